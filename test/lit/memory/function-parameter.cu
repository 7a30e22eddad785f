// A call through a function parameter is followed when the caller passes a
// known function (`apply(write_tile, tile)`, `explode(Op::fma, ...)`): the
// write it makes reaches the TMA store. Passing a function that writes
// nothing leaves nothing to fence.
// RUN: not %proxyfence %s 2>&1 | FileCheck %s
#include <cuda.h>
#include <cstdint>

__device__ __forceinline__ void tma_store(const CUtensorMap *map, const float *src) {
  uint32_t s = static_cast<uint32_t>(__cvta_generic_to_shared(src));
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %2}], [%1];"
               :: "l"(map), "r"(s), "r"(0) : "memory");
}
struct Op {
  static __device__ void fill(float *t) { t[threadIdx.x] = 1.0f; }
  static __device__ void keep(float *) {}
};
__device__ void apply(void (*f)(float *), float *t) { f(t); }
template <class F> __device__ void explode(F f, float *t) { (*f)(t); }

__global__ void through_pointer(const __grid_constant__ CUtensorMap map) {
  __shared__ alignas(128) float tile[1024];
  apply(Op::fill, tile);
  __syncthreads();
  if (threadIdx.x == 0)
    tma_store(&map, tile);
}

__global__ void through_template(const __grid_constant__ CUtensorMap map) {
  __shared__ alignas(128) float tile[1024];
  explode(&Op::fill, tile);
  __syncthreads();
  if (threadIdx.x == 0)
    tma_store(&map, tile);
}

__global__ void nothing_written(const __grid_constant__ CUtensorMap map) {
  __shared__ alignas(128) float tile[1024];
  apply(Op::keep, tile);
  __syncthreads();
  if (threadIdx.x == 0)
    tma_store(&map, tile);
}

// CHECK: function-parameter.cu:26:5: warning: TMA store reads shared memory 'tile' written through the generic proxy
// CHECK: :15:43: note: generic-proxy write to 'tile' here
// CHECK: function-parameter.cu:34:5: warning: TMA store reads shared memory 'tile' written through the generic proxy
// CHECK-NOT: warning:
// CHECK: proxyfence: 2 findings in 1 file
