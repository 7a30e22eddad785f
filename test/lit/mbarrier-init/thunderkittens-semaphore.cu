// ThunderKittens style: `init_semaphore` and a remote `arrive` wrap the PTX
// (the remote address comes from `mapa` in its own asm statement). Kernel
// `signal` initialises and goes straight to the CTA barrier: the fix is the
// init fence in thread 0's block and a relaxed cluster arrive + wait after
// it. Kernel `signal_cg` publishes the init with cooperative groups'
// cluster.sync(), a release arrive + acquire wait: nothing to report.
// RUN: cp %s %t.cu
// RUN: not %proxyfence %t.cu 2>&1 | FileCheck %s
// RUN: %proxyfence --fix --quiet %t.cu
// RUN: FileCheck --check-prefix=FIXED --input-file=%t.cu %s
// RUN: %proxyfence %t.cu 2>&1 | FileCheck --check-prefix=CLEAN %s
// RUN: %nvcc-sm90a -cubin -o /dev/null %t.cu
#include <cooperative_groups.h>
#include <cstdint>

struct semaphore {
  uint64_t value;
};

__device__ static inline void init_semaphore(semaphore &bar, int thread_count,
                                             int transaction_count = 0) {
  void const *const ptr = &bar;
  uint32_t bar_ptr = static_cast<uint32_t>(__cvta_generic_to_shared(ptr));
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n"
               :: "r"(bar_ptr), "r"(thread_count + transaction_count));
}

__device__ static inline void arrive(semaphore &bar, int dst_cta, uint32_t count = 1) {
  uint32_t mbar_ptr = static_cast<uint32_t>(__cvta_generic_to_shared(&bar));
  uint32_t neighbor_mbar_ptr;
  asm volatile("mapa.shared::cluster.u32  %0, %1, %2;\n"
               : "=r"(neighbor_mbar_ptr) : "r"(mbar_ptr), "r"(dst_cta));
  asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0], %1;\n"
               :: "r"(neighbor_mbar_ptr), "r"(count) : "memory");
}

__device__ static inline void wait(semaphore &bar, int phase) {
  uint32_t mbar_ptr = static_cast<uint32_t>(__cvta_generic_to_shared(&bar));
  asm volatile("{\n.reg .pred P1;\nLAB_WAIT:\n"
               "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 P1, [%0], %1;\n"
               "@P1 bra.uni DONE;\nbra.uni LAB_WAIT;\nDONE:\n}\n"
               :: "r"(mbar_ptr), "r"(phase) : "memory");
}

__global__ void __cluster_dims__(2, 1, 1) signal(int *out) {
  __shared__ semaphore ready;
  int rank = cooperative_groups::this_cluster().block_rank();
  if (threadIdx.x == 0)
    init_semaphore(ready, 1);
  __syncthreads();
  if (threadIdx.x == 0)
    arrive(ready, rank ^ 1);
  wait(ready, 0);
  out[blockIdx.x] = rank;
}

__global__ void __cluster_dims__(2, 1, 1) signal_cg(int *out) {
  __shared__ semaphore ready;
  auto cluster = cooperative_groups::this_cluster();
  if (threadIdx.x == 0)
    init_semaphore(ready, 1);
  cluster.sync();
  if (threadIdx.x == 0)
    arrive(ready, cluster.block_rank() ^ 1);
  wait(ready, 0);
  out[blockIdx.x] = 1;
}
// CHECK: thunderkittens-semaphore.cu.tmp.cu:49:5: warning: mbarrier 'ready' is used by another CTA of the cluster before its initialisation is visible there: no fence.mbarrier_init.release.cluster and no cluster barrier between them [proxyfence-mbarrier-init]
// CHECK: :24:3: note: mbarrier initialised here, inside 'init_semaphore'
// CHECK: :33:3: note: used by another CTA of the cluster here (mbarrier.arrive.shared::cluster), inside 'arrive'
// CHECK: :52:5: note: inside 'arrive', called here
// CHECK: :49:30: note: insert 'asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");' here
// CHECK: :49:30: note: insert 'asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory"); asm volatile("barrier.cluster.wait.aligned;" ::: "memory");' here
// CHECK-NOT: warning:
// CHECK: proxyfence: 1 finding in 1 file

// FIXED:      {{^  }}if (threadIdx.x == 0)
// FIXED-NEXT: {{^    }}{ init_semaphore(ready, 1); asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory"); }
// FIXED-NEXT: {{^  }}asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
// FIXED-NEXT: {{^  }}asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
// FIXED-NEXT: {{^  }}__syncthreads();
// signal_cg is left alone.
// FIXED:      {{^  }}auto cluster = cooperative_groups::this_cluster();
// FIXED-NEXT: {{^  }}if (threadIdx.x == 0)
// FIXED-NEXT: {{^    }}init_semaphore(ready, 1);
// FIXED-NEXT: {{^  }}cluster.sync();

// CLEAN: proxyfence: 0 findings in 1 file
