// A kernel template that the translation unit never instantiates (a header
// of kernels, as DeepGEMM ships them) is checked as written: its epilogue
// waits for its tcgen05.ld (wait::ld) but meets the deallocating warp at a
// barrier with no tcgen05.fence::before_thread_sync, and the free has no
// tcgen05.fence::after_thread_sync (PTX ISA 9.7.16.6.4).
// REQUIRES: nvcc
// RUN: cp %s %t.cu
// RUN: not %proxyfence --arch=sm_100a %t.cu -- -I%S/Inputs 2>&1 | FileCheck %s
// RUN: %nvcc-sm100a -I%S/Inputs -cubin -o /dev/null %t.cu
#include "tmem_ptx.h"

template <uint32_t kColumns>
__global__ void __launch_bounds__(128) drain(float *out) {
  __shared__ uint32_t tmem_base;
  int warp = threadIdx.x / 32;
  if (warp == 0)
    tmem_alloc(&tmem_base, kColumns);
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  uint32_t tmem = tmem_base;
  for (uint32_t c = 0; c < kColumns; ++c) {
    float v = tmem_load(tmem + ((warp * 32) << 16) + c);
    asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");
    out[c * 128 + threadIdx.x] = v;
  }
  __syncthreads();
  if (warp == 1)
    tmem_dealloc(tmem, kColumns);
}
// CHECK: template-kernel.cu.tmp.cu:27:3: warning: the barrier hands this thread's tcgen05.ld/st over to another thread's tcgen05.dealloc with no tcgen05.fence::before_thread_sync before it [proxyfence-tcgen05-order]
// CHECK: template-kernel.cu.tmp.cu:29:5: warning: tcgen05.dealloc is ordered after another thread's tcgen05.ld/st by a thread synchronisation, with no tcgen05.fence::after_thread_sync between them [proxyfence-tcgen05-order]
// CHECK-NOT: warning:
// CHECK: proxyfence: 2 findings in 1 file
