// The publishing forms of the strided-init pattern: a release cluster
// arrive (the default semantics of barrier.cluster.arrive), the init fence
// before a relaxed arrive, __syncthreads after a relaxed barrier, and a
// single thread that initialises and uses the barrier itself. Nothing to
// report.
// RUN: %proxyfence %s 2>&1 | FileCheck %s
// CHECK-NOT: warning:
// CHECK: proxyfence: 0 findings in 1 file
#include <cstdint>

__device__ inline uint32_t smem(const void *p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ inline void wait0(uint64_t *bar) {
  asm volatile("{\n\t.reg .pred p;\n\tWAIT:\n\t"
               "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\n\t"
               "@!p bra WAIT;\n\t}" :: "r"(smem(bar)) : "memory");
}

constexpr int kStages = 4;

__device__ inline void init_strided(uint64_t *bars) {
  for (int i = threadIdx.x; i < kStages; i += blockDim.x)
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem(&bars[i])) : "memory");
}

__global__ void release_arrive(int *out) {
  __shared__ alignas(8) uint64_t full[kStages];
  init_strided(full);
  asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
  asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
  wait0(&full[0]);
  out[threadIdx.x] = 1;
}

__global__ void default_arrive(int *out) {
  __shared__ alignas(8) uint64_t full[kStages];
  init_strided(full);
  asm volatile("barrier.cluster.arrive;" ::: "memory");
  asm volatile("barrier.cluster.wait;" ::: "memory");
  wait0(&full[1]);
  out[threadIdx.x] = 1;
}

__global__ void fenced_relaxed(int *out) {
  __shared__ alignas(8) uint64_t full[kStages];
  init_strided(full);
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
  asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
  wait0(&full[2]);
  out[threadIdx.x] = 1;
}

__global__ void relaxed_then_syncthreads(int *out) {
  __shared__ alignas(8) uint64_t full[kStages];
  init_strided(full);
  asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
  asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
  __syncthreads();
  wait0(&full[3]);
  out[threadIdx.x] = 1;
}

__global__ void same_thread(int *out) {
  __shared__ alignas(8) uint64_t bar;
  if (threadIdx.x == 0)
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem(&bar)) : "memory");
  asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
  asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(smem(&bar)) : "memory");
    wait0(&bar);
  }
  out[threadIdx.x] = 1;
}
