// Code every thread runs, reusing its barriers in later phases. The k-loop's
// MMAs wait on `loaded`; after the loop, the epilogue reads the accumulator
// with tcgen05.ld and signals `loaded` again, and meets at two
// __syncthreads() before warp 0 frees tensor memory. The later arrive on
// `loaded` comes after every MMA in program order, so it hands nothing to
// them; the first __syncthreads() is an earlier instance of the CTA barrier
// than the one the deallocation waits for. Only the last barrier and the
// deallocation are reported (PTX ISA 9.7.16.6.4: wait::ld and
// before_thread_sync before it, after_thread_sync after it).
// REQUIRES: nvcc
// RUN: cp %s %t.cu
// RUN: not %proxyfence --arch=sm_100a %t.cu -- -I%S/Inputs 2>&1 | FileCheck %s
// RUN: %nvcc-sm100a -I%S/Inputs -cubin -o /dev/null %t.cu
#include "tmem_ptx.h"

__global__ void __launch_bounds__(128) phases(uint64_t adesc, uint64_t bdesc, uint32_t idesc, float *out, int k_tiles) {
  __shared__ alignas(8) uint64_t loaded, mma_done;
  __shared__ uint32_t tmem_base;
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (threadIdx.x == 0) {
    bar_init(&loaded, 1);
    bar_init(&mma_done, 1);
  }
  if (warp == 0)
    tmem_alloc(&tmem_base, 128);
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  uint32_t tmem = tmem_base;
  for (int k = 0; k < k_tiles; ++k) {
    if (threadIdx.x == 0)
      bar_arrive(&loaded);
    bar_wait(&loaded, k & 1);
    if (warp == 0 && lane == 0) {
      umma(tmem, adesc, bdesc, idesc, k);
      umma_commit(&mma_done);
    }
    bar_wait(&mma_done, k & 1);
  }
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  float v = tmem_load(tmem + ((warp * 32) << 16));
  out[threadIdx.x] = v;
  __syncthreads();
  if (threadIdx.x == 0)
    bar_arrive(&loaded);
  bar_wait(&loaded, k_tiles & 1);
  out[128 + threadIdx.x] = v;
  __syncthreads();
  if (warp == 0)
    tmem_dealloc(tmem, 128);
}
// CHECK-NOT: warning:
// CHECK: barrier-phases.cu.tmp.cu:48:3: warning: the barrier hands this thread's tcgen05.ld/st over to another thread's tcgen05.dealloc with no tcgen05.wait::ld and tcgen05.fence::before_thread_sync before it [proxyfence-tcgen05-order]
// CHECK-NOT: warning:
// CHECK: barrier-phases.cu.tmp.cu:50:5: warning: tcgen05.dealloc is ordered after another thread's tcgen05.ld/st by a thread synchronisation, with no tcgen05.fence::after_thread_sync between them [proxyfence-tcgen05-order]
// CHECK-NOT: warning:
// CHECK: proxyfence: 2 findings in 1 file
