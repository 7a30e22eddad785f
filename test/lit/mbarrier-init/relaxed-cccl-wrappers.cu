// CCCL's spelling of the strided-init pattern: a sync handler whose init
// function initialises its barriers block-strided with cuda::ptx::mbarrier_init
// and whose cluster-init function then passes __cluster_barrier_arrive_relaxed
// and __cluster_barrier_wait, with no init fence. The warps of the kernel then
// arrive on and wait for barriers other threads initialised. The fix is
// cuda::ptx::fence_mbarrier_init after the init loop, in the function that
// that executes the relaxed arrive, right after the call that initialises:
// every initialising thread runs it, and callers that synchronise otherwise
// pay nothing.
// RUN: cp %s %t.cu
// RUN: not %proxyfence %t.cu 2>&1 | FileCheck %s
// RUN: %proxyfence --fix --quiet %t.cu
// RUN: FileCheck --check-prefix=FIXED --input-file=%t.cu %s
// RUN: %proxyfence %t.cu 2>&1 | FileCheck --check-prefix=CLEAN %s
// RUN: %nvcc-sm90a -cubin -o /dev/null %t.cu
#include <cuda/ptx>
#include <cstdint>

struct Handles {
  uint64_t *bars[2];
  int stages[2];
  int owners[2];

  template <int NumThreads>
  __device__ void initBarriers(int tid) {
    for (int r = 0; r < 2; ++r) {
      uint64_t *bar = bars[r];
      for (int s = tid; s < stages[r]; s += NumThreads)
        cuda::ptx::mbarrier_init(&bar[s], owners[r]);
    }
  }

  template <int NumThreads>
  __device__ void clusterInitSync(int tid) {
    initBarriers<NumThreads>(tid);
    __cluster_barrier_arrive_relaxed();
    __cluster_barrier_wait();
  }
};

template <int NumThreads>
__global__ void __launch_bounds__(NumThreads) scan_like(int *out) {
  __shared__ uint64_t ready[4], done[4];
  Handles h{{ready, done}, {4, 4}, {1, 32}};
  h.clusterInitSync<NumThreads>(threadIdx.x);
  int warp = threadIdx.x / 32;
  if (warp == 1 && threadIdx.x % 32 == 0)
    cuda::ptx::mbarrier_arrive(&ready[0]);
  if (warp == 2)
    while (!cuda::ptx::mbarrier_try_wait_parity(&ready[0], 0)) {
    }
  out[threadIdx.x] = warp;
}

template __global__ void scan_like<128>(int *);
// CHECK: relaxed-cccl-wrappers.cu.tmp.cu:45:3: warning: mbarrier 'ready' or 'done' is initialised by the threads that execute the init and used by the thread(s) where 'warp == 1 && threadIdx.x % 32 == 0' after only a relaxed cluster barrier: barrier.cluster.arrive.relaxed orders no memory, so the initialising thread must execute fence.mbarrier_init.release.cluster before it arrives [proxyfence-mbarrier-init]
// CHECK: note: mbarrier initialised here, inside 'mbarrier_init'
// CHECK: note: this cluster barrier is relaxed: it publishes the initialisation only after fence.mbarrier_init.release.cluster, inside '__cluster_barrier_arrive_relaxed'
// CHECK: note: used by other threads here (mbarrier.arrive.shared), inside 'mbarrier_arrive'
// CHECK: relaxed-cccl-wrappers.cu.tmp.cu:35:35: note: insert 'cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);' here
// CHECK: proxyfence: 1 finding in 1 file

// FIXED:      {{^    }}initBarriers<NumThreads>(tid);
// FIXED-NEXT: {{^    }}cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
// FIXED-NEXT: {{^    }}__cluster_barrier_arrive_relaxed();

// CLEAN-NOT: warning:
// CLEAN: proxyfence: 0 findings in 1 file
