#include "noisy.h"
#include <cuda.h>
__global__ void store_tile(const CUtensorMap *map) {
  __shared__ alignas(128) float tile[128];
  tile[threadIdx.x] = 1.0f;
  __syncthreads();
  if (threadIdx.x == 0)
    asm volatile(
    "cp.async.bulk.tensor.1d.global.shared::cta.tile.bulk_group [%0, {%1}], [%2];"
        :: "l"(map), "r"(0), "r"((unsigned)__cvta_generic_to_shared(tile))
        : "memory");
}
