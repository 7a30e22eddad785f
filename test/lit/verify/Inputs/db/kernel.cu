#include <cstdint>
#include "tile_config.h"

__global__ void store_tile(float *out) {
  __shared__ alignas(128) float tile[kTileElems];
  tile[threadIdx.x] = 1.0f + threadIdx.x;
  __syncthreads();
  if (threadIdx.x == 0)
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;"
                 :: "l"(out), "r"(static_cast<uint32_t>(__cvta_generic_to_shared(tile))),
                    "r"(kTileElems * 4)
                 : "memory");
}
