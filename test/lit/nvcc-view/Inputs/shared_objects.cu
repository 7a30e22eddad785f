// Function-scope __shared__ objects nvcc compiles (warning #20054-D, no
// constructor runs) and clang rejects (shared-objects.test).
#include <cuda.h>
#include <cuda/barrier>
// A default member initializer: not an empty constructor (CUDA E.2.3.1).
struct Staging {
  alignas(128) float tile[256];
  unsigned filled = 0;
};
using Barrier = cuda::barrier<cuda::thread_scope_block>;

__device__ void store_tile(const CUtensorMap *map, const float *tile) {
  asm volatile("cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [%0, {%2}], [%1];"
               :: "l"(map), "r"((unsigned)__cvta_generic_to_shared(tile)), "r"(0)
               : "memory");
}

__global__ void plain(const __grid_constant__ CUtensorMap map, float v) {
  __shared__ Staging stage;
  stage.tile[threadIdx.x] = v;
  __syncthreads();
  if (threadIdx.x == 0) store_tile(&map, stage.tile);
}

template <int Scale>
__global__ void scaled(const __grid_constant__ CUtensorMap map, float v) {
  __shared__ Barrier ready;
  static __shared__ Staging stage;
  if (threadIdx.x == 0) init(&ready, blockDim.x);
  __syncthreads();
  stage.tile[threadIdx.x] = v * Scale;
  ready.arrive_and_wait();
  if (threadIdx.x == 0) store_tile(&map, stage.tile);
}
template __global__ void scaled<2>(const __grid_constant__ CUtensorMap, float);
