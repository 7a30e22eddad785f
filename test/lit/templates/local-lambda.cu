// A kernel template that nothing instantiates writes its tile through a
// local lambda (`auto transpose = [&](float *p) { ... };`). In the pattern
// the call has no direct callee when its argument's type depends on the
// template; it is the lambda's call operator all the same.
// RUN: not %proxyfence %s 2>&1 | FileCheck %s
#include <cuda.h>
#include <cstdint>

__device__ inline void tma_store(const CUtensorMap *map, const void *src) {
  asm volatile("cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [%0, {%2}], [%1];"
               :: "l"(map), "r"(uint32_t(__cvta_generic_to_shared(src))), "r"(0)
               : "memory");
}

template <class T, int kTile>
__global__ void transpose_then_store(const __grid_constant__ CUtensorMap map, T v) {
  __shared__ alignas(128) T tile[kTile];
  auto fill = [&](T *p, T x) { p[threadIdx.x] = x; };
  fill(tile, v);
  __syncthreads();
  if (threadIdx.x == 0)
    tma_store(&map, tile);
}

template <class T, int kTile>
__global__ void transpose_fence_store(const __grid_constant__ CUtensorMap map, T v) {
  __shared__ alignas(128) T tile[kTile];
  auto fill = [&](T *p, T x) { p[threadIdx.x] = x; };
  fill(tile, v);
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (threadIdx.x == 0)
    tma_store(&map, tile);
}

// CHECK: local-lambda.cu:22:5: warning: TMA store reads shared memory 'tile' written through the generic proxy with no fence.proxy.async on the path [proxyfence-tma-store]
// CHECK: local-lambda.cu:18:32: note: generic-proxy write to 'tile' here
// CHECK-NOT: warning:
// CHECK: proxyfence: 1 finding in 1 file
