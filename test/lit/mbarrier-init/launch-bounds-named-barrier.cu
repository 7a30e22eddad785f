// A named barrier that counts as many threads as __launch_bounds__ allows
// a block meets every thread of the CTA: a block has no more threads than
// the bound, and a barrier counting more threads than the block has never
// completes. ThunderKittens publishes its semaphores' init that way,
// `group<NUM_WARPS>::sync(15)` (`bar.sync 15, NUM_WARPS * 32`) under
// `__launch_bounds__(NUM_WARPS * 32)`, from a helper of the kernel.
// Kernel `bounded` is correct. In `wider` the bound allows twice the count,
// and `unbounded` has no bound: there the other warps may use the mbarrier
// before its init.
// RUN: not %proxyfence %s -- 2>&1 | FileCheck %s
#include <cstdint>

template <int Warps> struct group {
  static constexpr int GROUP_THREADS = Warps * 32;
  __device__ static inline void sync(int id) {
    asm volatile("bar.sync %0, %1;\n" :: "r"(id), "n"(GROUP_THREADS));
  }
};
__device__ static inline void init_semaphore(uint64_t &bar, int count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::
               "r"((uint32_t)__cvta_generic_to_shared(&bar)), "r"(count));
}
__device__ static inline void arrive(uint64_t &bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::
               "r"((uint32_t)__cvta_generic_to_shared(&bar)) : "memory");
}

template <int Warps>
__global__ __launch_bounds__(Warps * 32, 1) void bounded() {
  __shared__ uint64_t ready;
  if (threadIdx.x == 128)
    init_semaphore(ready, blockDim.x);
  group<Warps>::sync(15);
  arrive(ready);
}
template __global__ void bounded<8>();

__global__ __launch_bounds__(512, 1) void wider() {
  __shared__ uint64_t ready;
  if (threadIdx.x == 128)
    init_semaphore(ready, blockDim.x);
  group<8>::sync(15);
  arrive(ready);
}
// CHECK: .cu:[[#@LINE-4]]:5: warning: mbarrier 'ready' is used by other threads before a CTA-wide barrier {{.*}}[proxyfence-mbarrier-init]

__global__ void unbounded() {
  __shared__ uint64_t ready;
  if (threadIdx.x == 128)
    init_semaphore(ready, blockDim.x);
  group<8>::sync(15);
  arrive(ready);
}
// CHECK: .cu:[[#@LINE-4]]:5: warning: mbarrier 'ready' is used by other threads before a CTA-wide barrier {{.*}}[proxyfence-mbarrier-init]
// CHECK-NOT: warning:
// CHECK: proxyfence: 2 findings in 1 file
