// `bar.sync 15` with no thread count is a barrier of every thread of the
// CTA, as `__syncthreads` is (PTX ISA, bar/barrier: "if no thread count is
// specified, all threads in the CTA participate"); ThunderKittens publishes
// its semaphores' init with `everyone::sync(15)`, the id in a register.
// Kernel `published` is correct. Kernel `counted` names a thread count: only
// those threads meet there, so the other warps may use the mbarrier before
// its init; the fix is a CTA barrier.
// RUN: cp %s %t.cu
// RUN: not %proxyfence %t.cu 2>&1 | FileCheck %s
// RUN: %proxyfence --fix --quiet %t.cu
// RUN: %proxyfence %t.cu 2>&1 | FileCheck --check-prefix=CLEAN %s
// RUN: %nvcc-sm90a -cubin -o /dev/null %t.cu
#include <cstdint>

__device__ static inline void sync_all(int id) {
  asm volatile("bar.sync %0;\n" :: "r"(id));
}
__device__ static inline void sync_some(int id, int threads) {
  asm volatile("bar.sync %0, %1;\n" :: "r"(id), "r"(threads));
}
__device__ static inline void init_semaphore(uint64_t &bar, int count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::
               "r"((uint32_t)__cvta_generic_to_shared(&bar)), "r"(count));
}
__device__ static inline void arrive(uint64_t &bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::
               "r"((uint32_t)__cvta_generic_to_shared(&bar)) : "memory");
}

__global__ void published() {
  __shared__ uint64_t ready;
  if (threadIdx.x == 128)
    init_semaphore(ready, blockDim.x);
  sync_all(15);
  arrive(ready);
}

__global__ void counted() {
  __shared__ uint64_t ready;
  if (threadIdx.x == 128)
    init_semaphore(ready, blockDim.x);
  sync_some(15, 128);
  arrive(ready);
}

// CHECK:     .cu:[[#@LINE-5]]:5: warning: mbarrier 'ready' is used by other threads before a CTA-wide barrier {{.*}}[proxyfence-mbarrier-init]
// CHECK-NOT: warning:
// CHECK:     proxyfence: 1 finding in 1 file
// CLEAN:     proxyfence: 0 findings in 1 file
