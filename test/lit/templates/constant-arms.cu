// A kernel template that nothing instantiates, whose epilogue chooses
// between a TMA store and plain stores with `if constexpr` on a template
// value (FlashAttention-3's Use_TMA_O): the pattern keeps every arm, but an
// instantiation takes the same arm of the same condition wherever it meets
// it. The write that reaches the TMA store went through the TMA arm of the
// hand-off before it, so only that arm's fence counts: fenced there, no
// finding; fenced only in the other arm, one finding, fixed in the TMA arm.
// RUN: cp %s %t.cu
// RUN: not %proxyfence %t.cu 2>&1 | FileCheck %s
// RUN: %proxyfence --fix --quiet %t.cu
// RUN: FileCheck --check-prefix=FIXED --input-file=%t.cu %s
// RUN: %proxyfence %t.cu 2>&1 | FileCheck --check-prefix=CLEAN %s
// CLEAN: proxyfence: 0 findings in 1 file
// REQUIRES: nvcc
// RUN: %nvcc-sm90a -cubin -o /dev/null %t.cu
#include <cuda.h>
#include <cstdint>

__device__ inline void fence_async() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}
__device__ inline void tma_store(const CUtensorMap *tmap, const void *src) {
  uint32_t smem = static_cast<uint32_t>(__cvta_generic_to_shared(src));
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];"
               :: "l"(tmap), "r"(smem), "r"(0), "r"(0) : "memory");
}

template <bool UseTma>
__global__ void fenced_where_stored(const __grid_constant__ CUtensorMap tmap, float *out, float v) {
  __shared__ alignas(128) float tile[256];
  tile[threadIdx.x] = v;
  if constexpr (UseTma) {
    fence_async();
    __syncthreads();
  } else {
    __syncthreads();
  }
  if constexpr (UseTma) {
    if (threadIdx.x == 0)
      tma_store(&tmap, tile);
  } else {
    out[threadIdx.x] = tile[255 - threadIdx.x];
  }
}

template <bool UseTma>
__global__ void fenced_in_other_arm(const __grid_constant__ CUtensorMap tmap, float *out, float v) {
  __shared__ alignas(128) float tile[256];
  tile[threadIdx.x] = v;
  if constexpr (!UseTma) {
    fence_async();
    __syncthreads();
  } else {
    __syncthreads();
  }
  if constexpr (UseTma) {
    if (threadIdx.x == 0)
      tma_store(&tmap, tile);
    // CHECK: constant-arms.cu.tmp.cu:[[#@LINE-1]]:7: warning: TMA store reads shared memory 'tile' written through the generic proxy
  } else {
    out[threadIdx.x] = tile[255 - threadIdx.x];
  }
}
// CHECK-NOT: warning:
// CHECK: proxyfence: 1 finding in 1 file
// FIXED-LABEL: void fenced_in_other_arm(
// FIXED: } else {
// FIXED-NEXT: asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
// FIXED-NEXT: __syncthreads();
