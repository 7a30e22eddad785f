// The other direction of the hand-off: transform warps write tensor memory
// with tcgen05.st (SM100_TMEM_STORE atom) and signal `ready`; the MMA warp
// waits and issues tcgen05.mma, which reads or overwrites those columns.
// The store must complete (tcgen05.wait::st, CUTLASS's
// fence_view_async_tmem_store()) and be fenced before the arrive, and the MMA
// warp needs tcgen05.fence::after_thread_sync after its wait (PTX ISA
// 9.7.16.6.4, 9.7.16.11). store_then_mma misses all three (two findings:
// at the arrive and at the MMA); the fixed file has none.
// REQUIRES: nvcc
// RUN: cp %s %t.cu
// RUN: not %proxyfence --arch=sm_100a %t.cu -- -I%S/Inputs 2>&1 | FileCheck %s
// RUN: %proxyfence --arch=sm_100a --fix --quiet %t.cu -- -I%S/Inputs
// RUN: FileCheck --check-prefix=FIXED --input-file=%t.cu %s
// RUN: %proxyfence --arch=sm_100a %t.cu -- -I%S/Inputs 2>&1 | FileCheck --check-prefix=CLEAN %s
// RUN: %nvcc-sm100a -I%S/Inputs -cubin -o /dev/null %t.cu
#include "mini_cutlass_tmem.h"

__global__ void __launch_bounds__(160) store_then_mma(const float *in, uint64_t adesc, uint64_t bdesc, uint64_t idesc) {
  __shared__ cutlass::arch::ClusterBarrier ready;
  __shared__ uint32_t tmem_base;
  int warp = threadIdx.x / 32;
  if (threadIdx.x == 0)
    ready.init(128);
  if (warp == 0)
    cute::TMEM::Allocator1Sm{}.allocate(128, &tmem_base);
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  uint32_t tmem = tmem_base;
  if (warp == 0) {
    ready.wait(0);
    cute::SM100_MMA_F16BF16_SS::fma(adesc, bdesc, tmem, 1, idesc);
  } else {
    uint32_t bits = __float_as_uint(in[threadIdx.x]);
    cute::SM100_TMEM_STORE_32dp32b1x::copy(bits, tmem + (((warp - 1) * 32) << 16));
    ready.arrive();
  }
}
// CHECK: cutlass-tmem-store.cu.tmp.cu:32:5: warning: tcgen05.mma is ordered after another thread's tcgen05.ld/st by a thread synchronisation, with no tcgen05.fence::after_thread_sync between them [proxyfence-tcgen05-order]
// CHECK: cutlass-tmem-store.cu.tmp.cu:31:19: note: insert 'asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");' here
// CHECK: cutlass-tmem-store.cu.tmp.cu:36:5: warning: the mbarrier arrive hands this thread's tcgen05.ld/st over to another thread's tcgen05.mma with no tcgen05.wait::st and tcgen05.fence::before_thread_sync before it [proxyfence-tcgen05-order]
// CHECK: cutlass-tmem-store.cu.tmp.cu:36:5: note: insert 'cutlass::arch::fence_view_async_tmem_store(); asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");' here
// CHECK-NOT: warning:
// CHECK: proxyfence: 2 findings in 1 file

// FIXED:      {{^    }}ready.wait(0);
// FIXED-NEXT: {{^    }}asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
// FIXED-NEXT: {{^    }}cute::SM100_MMA_F16BF16_SS::fma
// FIXED:      {{^    }}cute::SM100_TMEM_STORE_32dp32b1x::copy(
// FIXED-NEXT: {{^    }}cutlass::arch::fence_view_async_tmem_store();
// FIXED-NEXT: {{^    }}asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
// FIXED-NEXT: {{^    }}ready.arrive();

// CLEAN-NOT: warning:
// CLEAN: proxyfence: 0 findings in 1 file
