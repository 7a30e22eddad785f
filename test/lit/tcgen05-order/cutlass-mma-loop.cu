// One warp issues the MMAs of a k-loop while every thread waits, as
// single-warp CuTe kernels do: the UMMA atom elects a thread of the warp to
// issue tcgen05.mma, umma_arrive elects one to commit them, and the elected
// thread of the warp also hands each k-tile over on `loaded` (standing for
// arrive.expect_tx and the TMA loads). elect.sync elects the same thread
// every time (PTX ISA, elect.sync), so that arrive carries no MMA the commit
// has not already handed over, and the next MMA is the same thread's,
// pipelined after its own (9.7.16.6.2): no finding in the loop, in either
// kernel. Then all threads read the accumulator, meet at __syncthreads, and
// the warp frees tensor memory: mma_then_free reads after the commit's wait
// without tcgen05.fence::after_thread_sync, leaves its tcgen05.ld unwaited
// and unfenced at the barrier and frees with no after-fence: three findings
// (9.7.16.6.4, non-pipelined operations of different threads); the fixed
// file has none. The free's column count comes from a gcd-style loop over
// its own parameters: the rest of the kernel stays reachable.
// REQUIRES: nvcc
// RUN: cp %s %t.cu
// RUN: not %proxyfence --arch=sm_100a %t.cu -- -I%S/Inputs 2>&1 | FileCheck %s
// RUN: %proxyfence --arch=sm_100a --fix --quiet %t.cu -- -I%S/Inputs
// RUN: FileCheck --check-prefix=FIXED --input-file=%t.cu %s
// RUN: %proxyfence --arch=sm_100a %t.cu -- -I%S/Inputs 2>&1 | FileCheck --check-prefix=CLEAN %s
// RUN: %nvcc-sm100a -I%S/Inputs -cubin -o /dev/null %t.cu
#include "mini_cutlass_tmem.h"

__device__ int common_columns(int a, int b) {
  while (true) {
    if (a == 0)
      return b;
    b %= a;
    if (b == 0)
      return a;
    a %= b;
  }
}

__global__ void __launch_bounds__(128) mma_then_free(uint64_t adesc, uint64_t bdesc, uint64_t idesc, float *out, int k_tiles) {
  __shared__ cutlass::arch::ClusterBarrier loaded, mma_done;
  __shared__ uint32_t tmem_base;
  bool mma_warp = threadIdx.x / 32 == 0;
  uint32_t leader = cute::elect_one_sync();
  cute::TMEM::Allocator1Sm alloc{};
  if (mma_warp)
    alloc.allocate(128, &tmem_base);
  if (mma_warp && leader) {
    loaded.init(1);
    mma_done.init(1);
  }
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  uint32_t tmem = tmem_base;
  for (int k = 0; k < k_tiles; ++k) {
    if (mma_warp && leader)
      loaded.arrive();
    loaded.wait(k & 1);
    if (mma_warp) {
      cute::SM100_MMA_F16BF16_SS::fma(adesc, bdesc, tmem, k > 0, idesc);
      cutlass::arch::umma_arrive(reinterpret_cast<uint64_t const *>(&mma_done));
    }
    mma_done.wait(k & 1);
  }
  uint32_t v;
  cute::SM100_TMEM_LOAD_32dp32b1x::copy(tmem + ((threadIdx.x / 32) * 32 << 16), v);
  out[threadIdx.x] = __uint_as_float(v);
  __syncthreads();
  if (mma_warp) {
    alloc.release_allocation_lock();
    alloc.free(tmem, common_columns(128, 384));
  }
}
// CHECK-NOT: cutlass-mma-loop.cu.tmp.cu:57:{{.*}}warning:
// CHECK: cutlass-mma-loop.cu.tmp.cu:63:3: warning: tcgen05.ld is ordered after another thread's tcgen05 operations by a thread synchronisation, with no tcgen05.fence::after_thread_sync between them [proxyfence-tcgen05-order]
// CHECK: note: the other thread signals here (tcgen05.commit.cta_group::1), inside 'umma_arrive'
// CHECK: cutlass-mma-loop.cu.tmp.cu:60:26: note: insert 'asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");' here
// CHECK: cutlass-mma-loop.cu.tmp.cu:65:3: warning: the barrier hands this thread's tcgen05.ld/st over to another thread's tcgen05.dealloc with no tcgen05.wait::ld and tcgen05.fence::before_thread_sync before it [proxyfence-tcgen05-order]
// CHECK: cutlass-mma-loop.cu.tmp.cu:65:3: note: insert 'cutlass::arch::fence_view_async_tmem_load(); asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");' here
// CHECK: cutlass-mma-loop.cu.tmp.cu:68:5: warning: tcgen05.dealloc is ordered after another thread's tcgen05.ld/st by a thread synchronisation, with no tcgen05.fence::after_thread_sync between them [proxyfence-tcgen05-order]
// CHECK: cutlass-mma-loop.cu.tmp.cu:65:19: note: insert 'asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");' here
// CHECK-NOT: warning:
// CHECK: proxyfence: 3 findings in 1 file

// FIXED:      {{^    }}mma_done.wait(k & 1);
// FIXED-NEXT: {{^    }}asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
// FIXED-NEXT: {{^  }}}
// FIXED:      {{^  }}out[threadIdx.x] = __uint_as_float(v);
// FIXED-NEXT: {{^  }}cutlass::arch::fence_view_async_tmem_load();
// FIXED-NEXT: {{^  }}asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
// FIXED-NEXT: {{^  }}__syncthreads();
// FIXED-NEXT: {{^  }}asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");

// CLEAN-NOT: warning:
// CLEAN: proxyfence: 0 findings in 1 file
