// A kernel template's branches on template constants (`if constexpr
// (kEarly)`, `if (!kEarly)`) take the same arm everywhere on a path, in every
// iteration: an instantiation has one value. `drain` loads from tensor memory
// in one `kEarly` arm and waits for the load in the matching arm further on;
// a path through the first arm and past the second would skip the wait, but
// no instantiation runs it, so nothing is reported. `drain_wrong_arm` waits
// in the opposite arm: with kEarly the load is never waited for before the
// barrier hands the columns to the deallocating warp.
// REQUIRES: nvcc
// RUN: cp %s %t.cu
// RUN: not %proxyfence --arch=sm_100a %t.cu -- -I%S/Inputs 2>&1 | FileCheck %s
// RUN: %nvcc-sm100a -I%S/Inputs -cubin -o /dev/null %t.cu
#include "tmem_ptx.h"

template <uint32_t kColumns, bool kEarly>
__global__ void __launch_bounds__(128) drain(float *out, int tiles) {
  __shared__ uint32_t tmem_base;
  int warp = threadIdx.x / 32;
  if (warp == 0)
    tmem_alloc(&tmem_base, kColumns);
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  uint32_t tmem = tmem_base;
  float v = 0;
  for (int t = 0; t < tiles; ++t) {
    if constexpr (kEarly)
      v += tmem_load(tmem + ((warp * 32) << 16) + t % kColumns);
    out[t * 128 + threadIdx.x] = 0;
    if (kEarly)
      asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");
  }
  out[threadIdx.x] = v;
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  if (warp == 1)
    tmem_dealloc(tmem, kColumns);
}

template <uint32_t kColumns, bool kEarly>
__global__ void __launch_bounds__(128) drain_wrong_arm(float *out, int tiles) {
  __shared__ uint32_t tmem_base;
  int warp = threadIdx.x / 32;
  if (warp == 0)
    tmem_alloc(&tmem_base, kColumns);
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  uint32_t tmem = tmem_base;
  float v = 0;
  for (int t = 0; t < tiles; ++t) {
    if constexpr (kEarly)
      v += tmem_load(tmem + ((warp * 32) << 16) + t % kColumns);
    out[t * 128 + threadIdx.x] = 0;
    if (!kEarly)
      asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");
  }
  out[threadIdx.x] = v;
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  if (warp == 1)
    tmem_dealloc(tmem, kColumns);
}
// CHECK: constant-arms.cu.tmp.cu:[[@LINE-5]]:3: warning: the barrier hands this thread's tcgen05.ld/st over to another thread's tcgen05.dealloc with no tcgen05.wait::ld {{.*}}[proxyfence-tcgen05-order]
// CHECK-NOT: warning:
// CHECK: proxyfence: 1 finding in 1 file
