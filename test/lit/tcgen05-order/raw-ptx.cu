// Warp-specialised accumulator hand-off in raw PTX. The MMA warp commits the
// accumulator to acc_full; the epilogue warps wait for it, read the
// accumulator with tcgen05.ld, wait::ld and signal tmem_empty; the MMA warp
// waits for tmem_empty and deallocates. PTX ISA 9.7.16.6 asks for
// tcgen05.fence::after_thread_sync after each wait (before tcgen05.ld and
// before tcgen05.dealloc) and tcgen05.fence::before_thread_sync before the
// epilogue's arrive. Three findings, each fixed where it belongs.
// REQUIRES: nvcc
// RUN: cp %s %t.cu
// RUN: %proxyfence --arch=sm_100a --disable=proxyfence-tcgen05-order %t.cu -- -I%S/Inputs 2>&1 | FileCheck --check-prefix=CLEAN %s
// RUN: not %proxyfence --arch=sm_100a %t.cu -- -I%S/Inputs 2>&1 | FileCheck %s
// RUN: %proxyfence --arch=sm_100a --fix --quiet %t.cu -- -I%S/Inputs
// RUN: FileCheck --check-prefix=FIXED --input-file=%t.cu %s
// RUN: %proxyfence --arch=sm_100a %t.cu -- -I%S/Inputs 2>&1 | FileCheck --check-prefix=CLEAN %s
// RUN: %nvcc-sm100a -I%S/Inputs -cubin -o /dev/null %t.cu
#include "tmem_ptx.h"

__global__ void __launch_bounds__(256) gemm_epilogue(uint64_t adesc, uint64_t bdesc, uint32_t idesc, float *out) {
  __shared__ alignas(8) uint64_t acc_full, tmem_empty;
  __shared__ uint32_t tmem_base;
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (threadIdx.x == 0) {
    bar_init(&acc_full, 1);
    bar_init(&tmem_empty, 128);
  }
  if (warp == 0)
    tmem_alloc(&tmem_base, 128);
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  uint32_t tmem = tmem_base;
  if (warp == 0) {
    if (lane == 0) {
      umma(tmem, adesc, bdesc, idesc, 0);
      umma_commit(&acc_full);
    }
    bar_wait(&tmem_empty, 0);
    tmem_dealloc(tmem, 128);
  } else if (warp >= 4) {
    bar_wait(&acc_full, 0);
    float v = tmem_load(tmem + ((warp - 4) * 32 << 16));
    asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");
    bar_arrive(&tmem_empty);
    out[threadIdx.x] = v;
  }
}
// CHECK: raw-ptx.cu.tmp.cu:38:5: warning: tcgen05.dealloc is ordered after another thread's tcgen05.ld/st by a thread synchronisation, with no tcgen05.fence::after_thread_sync between them [proxyfence-tcgen05-order]
// CHECK: tmem_ptx.h:{{[0-9]+}}:{{[0-9]+}}: note: tcgen05.dealloc.cta_group::1 here, inside 'tmem_dealloc'
// CHECK: tmem_ptx.h:{{[0-9]+}}:{{[0-9]+}}: note: synchronised here; the fence goes after it, inside 'bar_wait'
// CHECK: raw-ptx.cu.tmp.cu:37:5: note: inside 'bar_wait', called here
// CHECK: note: the other thread signals here (mbarrier.arrive.shared::cta), inside 'bar_arrive'
// CHECK: raw-ptx.cu.tmp.cu:43:5: note: inside 'bar_arrive', called here
// CHECK: raw-ptx.cu.tmp.cu:37:30: note: insert 'asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");' here
// CHECK: raw-ptx.cu.tmp.cu:41:15: warning: tcgen05.ld is ordered after another thread's tcgen05 operations by a thread synchronisation, with no tcgen05.fence::after_thread_sync between them [proxyfence-tcgen05-order]
// CHECK: note: the other thread signals here (tcgen05.commit.cta_group::1), inside 'umma_commit'
// CHECK: raw-ptx.cu.tmp.cu:40:28: note: insert 'asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");' here
// CHECK: raw-ptx.cu.tmp.cu:43:5: warning: the mbarrier arrive hands this thread's tcgen05.ld/st over to another thread's tcgen05.dealloc with no tcgen05.fence::before_thread_sync before it [proxyfence-tcgen05-order]
// CHECK: note: the other thread's tcgen05.dealloc after its synchronisation, line 37, inside 'tmem_dealloc'
// CHECK: raw-ptx.cu.tmp.cu:43:5: note: insert 'asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");' here
// CHECK: proxyfence: 3 findings in 1 file

// FIXED:      {{^    }}bar_wait(&tmem_empty, 0);
// FIXED-NEXT: {{^    }}asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
// FIXED-NEXT: {{^    }}tmem_dealloc(tmem, 128);
// FIXED:      {{^    }}bar_wait(&acc_full, 0);
// FIXED-NEXT: {{^    }}asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
// FIXED:      {{^    }}asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");
// FIXED-NEXT: {{^    }}asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
// FIXED-NEXT: {{^    }}bar_arrive(&tmem_empty);

// CLEAN-NOT: warning:
// CLEAN: proxyfence: 0 findings in 1 file
