// The TmemDeallocBarrier structure in CUTLASS spellings (TMEM::Allocator1Sm,
// SM100_MMA atom, umma_arrive, SM100_TMEM_LOAD, ClusterBarrier): the MMA warp
// commits each accumulator to tmem_full and, once the epilogue released it
// on tmem_empty, reuses it; at the end it waits on tmem_dealloc and frees.
// The epilogue warps read the accumulator with tcgen05.ld. Nothing orders the
// tcgen05 operations across the warps: wait::ld and before_thread_sync go
// before each epilogue arrive, after_thread_sync after each wait (PTX ISA
// 9.7.16.6.4, 9.7.16.11). CUTLASS spells wait::ld
// fence_view_async_tmem_load() and has no tcgen05.fence wrapper (raw PTX).
// The fixed file has no finding: the inserted spellings are recognised.
// REQUIRES: nvcc
// RUN: cp %s %t.cu
// RUN: not %proxyfence --arch=sm_100a %t.cu -- -I%S/Inputs 2>&1 | FileCheck %s
// RUN: %proxyfence --arch=sm_100a --fix --quiet %t.cu -- -I%S/Inputs
// RUN: FileCheck --check-prefix=FIXED --input-file=%t.cu %s
// RUN: %proxyfence --arch=sm_100a %t.cu -- -I%S/Inputs 2>&1 | FileCheck --check-prefix=CLEAN %s
// RUN: %nvcc-sm100a -I%S/Inputs -cubin -o /dev/null %t.cu
#include "mini_cutlass_tmem.h"

using TmemAllocator = cute::TMEM::Allocator1Sm;

__global__ void __launch_bounds__(256) gemm_ws(uint64_t adesc, uint64_t bdesc, uint64_t idesc, float *out, int tiles) {
  __shared__ cutlass::arch::ClusterBarrier tmem_full, tmem_empty, tmem_dealloc;
  __shared__ uint32_t tmem_base;
  int warp = threadIdx.x / 32;
  TmemAllocator tmem_allocator{};
  if (threadIdx.x == 0) {
    tmem_full.init(1);
    tmem_empty.init(128);
    tmem_dealloc.init(128);
  }
  if (warp == 0)
    tmem_allocator.allocate(TmemAllocator::Sm100TmemCapacityColumns, &tmem_base);
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  uint32_t tmem = tmem_base;
  if (warp == 0) {
    for (int t = 0; t < tiles; ++t) {
      tmem_empty.wait((t & 1) ^ 1);
      cute::SM100_MMA_F16BF16_SS::fma(adesc, bdesc, tmem, 0, idesc);
      cutlass::arch::umma_arrive(reinterpret_cast<uint64_t const *>(&tmem_full));
    }
    tmem_allocator.release_allocation_lock();
    tmem_dealloc.wait(0);
    tmem_allocator.free(tmem, TmemAllocator::Sm100TmemCapacityColumns);
  } else if (warp >= 4) {
    for (int t = 0; t < tiles; ++t) {
      tmem_full.wait(t & 1);
      uint32_t v;
      cute::SM100_TMEM_LOAD_32dp32b1x::copy(tmem + ((warp - 4) * 32 << 16), v);
      tmem_empty.arrive();
      out[t * 128 + threadIdx.x - 128] = __uint_as_float(v);
    }
    tmem_dealloc.arrive();
  }
}
// CHECK: cutlass-ws.cu.tmp.cu:41:7: warning: tcgen05.mma is ordered after another thread's tcgen05.ld/st by a thread synchronisation, with no tcgen05.fence::after_thread_sync between them [proxyfence-tcgen05-order]
// CHECK: cutlass-ws.cu.tmp.cu:52:7: note: inside 'arrive', called here
// CHECK: cutlass-ws.cu.tmp.cu:40:36: note: insert 'asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");' here
// CHECK: cutlass-ws.cu.tmp.cu:46:5: warning: tcgen05.dealloc is ordered after another thread's tcgen05.ld/st by a thread synchronisation, with no tcgen05.fence::after_thread_sync between them [proxyfence-tcgen05-order]
// CHECK: mini_cutlass_tmem.h:{{[0-9]+}}:5: note: tcgen05.dealloc.cta_group::1 here, inside 'free'
// CHECK: cutlass-ws.cu.tmp.cu:55:5: note: inside 'arrive', called here
// CHECK: cutlass-ws.cu.tmp.cu:45:26: note: insert 'asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");' here
// CHECK: cutlass-ws.cu.tmp.cu:51:7: warning: tcgen05.ld is ordered after another thread's tcgen05 operations by a thread synchronisation, with no tcgen05.fence::after_thread_sync between them [proxyfence-tcgen05-order]
// CHECK: note: the other thread signals here (tcgen05.commit.cta_group::1), inside 'umma_arrive'
// CHECK: cutlass-ws.cu.tmp.cu:49:29: note: insert 'asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");' here
// CHECK: cutlass-ws.cu.tmp.cu:52:7: warning: the mbarrier arrive hands this thread's tcgen05.ld/st over to another thread's tcgen05.mma with no tcgen05.wait::ld and tcgen05.fence::before_thread_sync before it [proxyfence-tcgen05-order]
// CHECK: cutlass-ws.cu.tmp.cu:52:7: note: insert 'cutlass::arch::fence_view_async_tmem_load(); asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");' here
// CHECK: cutlass-ws.cu.tmp.cu:55:5: warning: the mbarrier arrive hands this thread's tcgen05.ld/st over to another thread's tcgen05.dealloc with no tcgen05.wait::ld and tcgen05.fence::before_thread_sync before it [proxyfence-tcgen05-order]
// CHECK: cutlass-ws.cu.tmp.cu:55:5: note: insert 'cutlass::arch::fence_view_async_tmem_load(); asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");' here
// CHECK-NOT: warning:
// CHECK: proxyfence: 5 findings in 1 file

// FIXED:      {{^      }}tmem_empty.wait((t & 1) ^ 1);
// FIXED-NEXT: {{^      }}asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
// FIXED-NEXT: {{^      }}cute::SM100_MMA_F16BF16_SS::fma
// FIXED:      {{^    }}tmem_dealloc.wait(0);
// FIXED-NEXT: {{^    }}asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
// FIXED-NEXT: {{^    }}tmem_allocator.free
// FIXED:      {{^      }}tmem_full.wait(t & 1);
// FIXED-NEXT: {{^      }}asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
// FIXED:      {{^      }}cute::SM100_TMEM_LOAD_32dp32b1x::copy
// FIXED-NEXT: {{^      }}cutlass::arch::fence_view_async_tmem_load();
// FIXED-NEXT: {{^      }}asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
// FIXED-NEXT: {{^      }}tmem_empty.arrive();
// FIXED:      {{^    }}cutlass::arch::fence_view_async_tmem_load();
// FIXED-NEXT: {{^    }}asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
// FIXED-NEXT: {{^    }}tmem_dealloc.arrive();

// CLEAN-NOT: warning:
// CLEAN: proxyfence: 0 findings in 1 file
