// The accumulator hand-off of raw-ptx.cu in libcu++'s <cuda/ptx> spelling
// (tcgen05_alloc/dealloc, tcgen05_mma, tcgen05_commit, tcgen05_ld_32x32b,
// tcgen05_wait_ld, mbarrier_try_wait_parity): the analysis reads the asm in
// their bodies, and the fixes are spelled cuda::ptx::tcgen05_* as the file
// spells its tcgen05 calls. The fixed file has no finding: the inserted
// wrappers are recognised.
// REQUIRES: nvcc
// RUN: cp %s %t.cu
// RUN: not %proxyfence --arch=sm_100a %t.cu 2>&1 | FileCheck %s
// RUN: %proxyfence --arch=sm_100a --fix --quiet %t.cu
// RUN: FileCheck --check-prefix=FIXED --input-file=%t.cu %s
// RUN: %proxyfence --arch=sm_100a %t.cu 2>&1 | FileCheck --check-prefix=CLEAN %s
// RUN: %nvcc-sm100a -cubin -o /dev/null %t.cu
#include <cuda/ptx>
#include <cstdint>

namespace ptx = cuda::ptx;

__device__ inline void wait_phase(uint64_t *bar, uint32_t phase) {
  while (!ptx::mbarrier_try_wait_parity(bar, phase)) {
  }
}

__global__ void __launch_bounds__(256) gemm_epilogue(uint64_t adesc, uint64_t bdesc, uint32_t idesc, float *out) {
  __shared__ alignas(8) uint64_t acc_full, tmem_empty;
  __shared__ uint32_t tmem_base;
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (threadIdx.x == 0) {
    ptx::mbarrier_init(&acc_full, 1);
    ptx::mbarrier_init(&tmem_empty, 128);
  }
  if (warp == 0)
    ptx::tcgen05_alloc(ptx::cta_group_1, &tmem_base, 128);
  ptx::tcgen05_fence_before_thread_sync();
  __syncthreads();
  ptx::tcgen05_fence_after_thread_sync();
  uint32_t tmem = tmem_base;
  if (warp == 0) {
    if (lane == 0) {
      ptx::tcgen05_mma(ptx::kind_f16, ptx::cta_group_1, tmem, adesc, bdesc, idesc, false);
      ptx::tcgen05_commit(ptx::cta_group_1, &acc_full);
    }
    wait_phase(&tmem_empty, 0);
    ptx::tcgen05_dealloc(ptx::cta_group_1, tmem, 128);
  } else if (warp >= 4) {
    wait_phase(&acc_full, 0);
    uint32_t v[1];
    ptx::tcgen05_ld_32x32b(v, tmem + ((warp - 4) * 32 << 16));
    ptx::mbarrier_arrive(&tmem_empty);
    out[threadIdx.x] = __uint_as_float(v[0]);
  }
}
// CHECK: cuda-ptx.cu.tmp.cu:44:5: warning: tcgen05.dealloc is ordered after another thread's tcgen05.ld/st by a thread synchronisation, with no tcgen05.fence::after_thread_sync between them [proxyfence-tcgen05-order]
// CHECK: tcgen05_alloc.h:{{[0-9]+}}:{{[0-9]+}}: note: tcgen05.dealloc.cta_group::1 here, inside 'tcgen05_dealloc'
// CHECK: cuda-ptx.cu.tmp.cu:49:5: note: inside 'mbarrier_arrive', called here
// CHECK: cuda-ptx.cu.tmp.cu:43:32: note: insert 'cuda::ptx::tcgen05_fence_after_thread_sync();' here
// CHECK: cuda-ptx.cu.tmp.cu:48:5: warning: tcgen05.ld is ordered after another thread's tcgen05 operations by a thread synchronisation, with no tcgen05.fence::after_thread_sync between them [proxyfence-tcgen05-order]
// CHECK: note: the other thread signals here (tcgen05.commit.cta_group::1), inside 'tcgen05_commit'
// CHECK: cuda-ptx.cu.tmp.cu:46:30: note: insert 'cuda::ptx::tcgen05_fence_after_thread_sync();' here
// CHECK: cuda-ptx.cu.tmp.cu:49:5: warning: the mbarrier arrive hands this thread's tcgen05.ld/st over to another thread's tcgen05.dealloc with no tcgen05.wait::ld and tcgen05.fence::before_thread_sync before it [proxyfence-tcgen05-order]
// CHECK: cuda-ptx.cu.tmp.cu:49:5: note: insert 'cuda::ptx::tcgen05_wait_ld(); cuda::ptx::tcgen05_fence_before_thread_sync();' here
// CHECK-NOT: warning:
// CHECK: proxyfence: 3 findings in 1 file

// FIXED:      {{^    }}wait_phase(&tmem_empty, 0);
// FIXED-NEXT: {{^    }}cuda::ptx::tcgen05_fence_after_thread_sync();
// FIXED-NEXT: {{^    }}ptx::tcgen05_dealloc(
// FIXED:      {{^    }}wait_phase(&acc_full, 0);
// FIXED-NEXT: {{^    }}cuda::ptx::tcgen05_fence_after_thread_sync();
// FIXED:      {{^    }}ptx::tcgen05_ld_32x32b(
// FIXED-NEXT: {{^    }}cuda::ptx::tcgen05_wait_ld();
// FIXED-NEXT: {{^    }}cuda::ptx::tcgen05_fence_before_thread_sync();
// FIXED-NEXT: {{^    }}ptx::mbarrier_arrive(&tmem_empty);

// CLEAN-NOT: warning:
// CLEAN: proxyfence: 0 findings in 1 file
