// cta_group::2 deallocation (TMEM::Allocator2Sm): tcgen05.dealloc.cta_group::2
// frees the columns of both CTAs of the pair, so each MMA warp may free only
// after both CTAs' epilogues read their accumulators. Each epilogue thread
// signals the peer CTA's tmem_dealloc first (mapa + remote arrive), then its
// own; tmem_dealloc counts both CTAs' epilogues. pair_dealloc does this;
// own_only_dealloc signals only its own CTA, so the peer's epilogue may still
// be reading when the pair's memory is freed (no automatic fix: which
// barrier the peer signals is a design decision). The helpers hold the
// deallocation: it is judged in each kernel's context, not on its own.
// REQUIRES: nvcc
// RUN: cp %s %t.cu
// RUN: not %proxyfence --arch=sm_100a %t.cu -- -I%S/Inputs 2>&1 | FileCheck %s
// RUN: %nvcc-sm100a -I%S/Inputs -cubin -o /dev/null %t.cu
#include "mini_cutlass_tmem.h"

using TmemAllocator = cute::TMEM::Allocator2Sm;

// Both CTAs: initialise tmem_dealloc, allocate, publish both to the cluster.
__device__ uint32_t pair_setup(cutlass::arch::ClusterBarrier &tmem_dealloc, uint32_t count, uint32_t *tmem_base) {
  if (threadIdx.x == 0) {
    tmem_dealloc.init(count);
    cutlass::arch::fence_barrier_init();
  }
  if (threadIdx.x / 32 == 0)
    TmemAllocator{}.allocate(TmemAllocator::Sm100TmemCapacityColumns, tmem_base);
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  cute::cluster_arrive_relaxed();
  cute::cluster_wait();
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  return *tmem_base;
}

// The MMA warp's end: wait for the epilogues, free the pair's columns.
__device__ void pair_free(cutlass::arch::ClusterBarrier &tmem_dealloc, uint32_t tmem) {
  TmemAllocator tmem_allocator{};
  tmem_allocator.release_allocation_lock();
  tmem_dealloc.wait(0);
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  tmem_allocator.free(tmem, TmemAllocator::Sm100TmemCapacityColumns);
}

__device__ uint32_t read_accumulator(uint32_t tmem, int warp) {
  uint32_t v;
  cute::SM100_TMEM_LOAD_32dp32b1x::copy(tmem + ((warp - 4) * 32 << 16), v);
  cutlass::arch::fence_view_async_tmem_load();
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  return v;
}

__global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(256) pair_dealloc(float *out) {
  __shared__ cutlass::arch::ClusterBarrier tmem_dealloc;
  __shared__ uint32_t tmem_base;
  int warp = threadIdx.x / 32;
  uint32_t tmem = pair_setup(tmem_dealloc, 2 * 128, &tmem_base);
  if (warp == 0) {
    pair_free(tmem_dealloc, tmem);
  } else if (warp >= 4) {
    uint32_t v = read_accumulator(tmem, warp);
    tmem_dealloc.arrive(cute::block_rank_in_cluster() ^ 1);
    tmem_dealloc.arrive();
    out[threadIdx.x] = __uint_as_float(v);
  }
}

__global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(256) own_only_dealloc(float *out) {
  __shared__ cutlass::arch::ClusterBarrier tmem_dealloc;
  __shared__ uint32_t tmem_base;
  int warp = threadIdx.x / 32;
  uint32_t tmem = pair_setup(tmem_dealloc, 128, &tmem_base);
  if (warp == 0) {
    pair_free(tmem_dealloc, tmem);
  } else if (warp >= 4) {
    uint32_t v = read_accumulator(tmem, warp);
    tmem_dealloc.arrive();
    out[threadIdx.x] = __uint_as_float(v);
  }
}
// CHECK-NOT: warning:
// CHECK: cutlass-2sm-dealloc.cu.tmp.cu:71:5: warning: tcgen05.dealloc.cta_group::2 frees tensor memory of both CTAs of the pair, but its last synchronisation waits for no signal of the peer CTA [proxyfence-tcgen05-order]
// CHECK: mini_cutlass_tmem.h:{{[0-9]+}}:5: note: tcgen05.dealloc.cta_group::2 here, inside 'free'
// CHECK: cutlass-2sm-dealloc.cu.tmp.cu:71:5: note: inside 'wait', called here
// CHECK: note: no automatic fix: the peer CTA's epilogue must arrive on this CTA's barrier
// CHECK-NOT: warning:
// CHECK: proxyfence: 1 finding in 1 file
