// One elected thread copies scale factors into tensor memory (tcgen05.cp),
// signals the stage's mbarrier with its own arrive, waits on it (for the
// TMA bytes) and issues the MMA that reads them: ThunderKittens' MX-FP8
// MMA warp. The copy and the MMA are one thread's, and tcgen05.cp ->
// tcgen05.mma of one thread are pipelined in issue order (PTX ISA 9.7.16.6.3,
// implicitly pipelined tcgen05 instructions): no fence is missing. Where the
// other threads of the warp wrote the tensor memory with tcgen05.st before
// the same arrive, the MMA does need tcgen05.fence::after_thread_sync.
// REQUIRES: nvcc
// RUN: cp %s %t.cu
// RUN: not %proxyfence --arch=sm_100a %t.cu -- -I%S/Inputs 2>&1 | FileCheck %s
// RUN: %nvcc-sm100a -I%S/Inputs -cubin -o /dev/null %t.cu
#include "tmem_ptx.h"

__device__ inline void scale_copy(uint32_t taddr, uint64_t sdesc) {
  asm volatile("tcgen05.cp.cta_group::1.32x128b.warpx4 [%0], %1;" :: "r"(taddr), "l"(sdesc));
}
__device__ inline void tmem_store(uint32_t taddr, uint32_t v) {
  asm volatile("tcgen05.st.sync.aligned.32x32b.x1.b32 [%0], {%1};" :: "r"(taddr), "r"(v) : "memory");
}

__global__ void __launch_bounds__(128) own_copy(uint64_t adesc, uint64_t bdesc, uint64_t sdesc, uint32_t idesc, int k_tiles) {
  __shared__ alignas(8) uint64_t arrived[2], mma_done;
  __shared__ uint32_t tmem_base;
  if (threadIdx.x == 0) {
    bar_init(&arrived[0], 1);
    bar_init(&arrived[1], 1);
    bar_init(&mma_done, 1);
  }
  if (threadIdx.x / 32 == 0)
    tmem_alloc(&tmem_base, 256);
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  uint32_t tmem = tmem_base;
  if (threadIdx.x == 0) {
    for (int k = 0; k < k_tiles; ++k) {
      int stage = k % 2;
      scale_copy(tmem + 128 + stage * 16, sdesc);
      bar_arrive(&arrived[stage]);
      bar_wait(&arrived[stage], (k / 2) & 1);
      umma(tmem, adesc, bdesc, idesc, k);
    }
    umma_commit(&mma_done);
  }
}

__global__ void __launch_bounds__(128) warp_stores(uint64_t adesc, uint64_t bdesc, uint32_t idesc) {
  __shared__ alignas(8) uint64_t arrived;
  __shared__ uint32_t tmem_base;
  if (threadIdx.x == 0)
    bar_init(&arrived, 32);
  if (threadIdx.x / 32 == 0)
    tmem_alloc(&tmem_base, 256);
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  uint32_t tmem = tmem_base;
  if (threadIdx.x / 32 == 0) {
    tmem_store(tmem + 128, threadIdx.x);
    asm volatile("tcgen05.wait::st.sync.aligned;" ::: "memory");
    asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
    bar_arrive(&arrived);
    bar_wait(&arrived, 0);
    if (threadIdx.x == 0)
      umma(tmem, adesc, bdesc, idesc, 0);
  }
}
// CHECK-NOT: warning:
// CHECK: own-handoff.cu.tmp.cu:[[#@LINE-4]]:7: warning: tcgen05.mma is ordered after another thread's tcgen05.ld/st by a thread synchronisation, with no tcgen05.fence::after_thread_sync between them [proxyfence-tcgen05-order]
// CHECK-NOT: warning:
// CHECK: proxyfence: 1 finding in 1 file
