// Per-warp chunks: 16-byte stores through an inlined helper, __syncwarp(),
// then lane 0 bulk-stores the chunk. No fence: the race of warp_chunk_race.
#include <cstdint>

__device__ __forceinline__ void store16(uint32_t addr, uint32_t v) {
  asm volatile("st.shared.v4.b32 [%0], {%1, %1, %1, %1};" :: "r"(addr), "r"(v) : "memory");
}

__global__ void chunks(uint4 *out, uint32_t run) {
  extern __shared__ __align__(128) uint4 smem[];
  const uint32_t warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const uint32_t chunk = static_cast<uint32_t>(__cvta_generic_to_shared(smem + warp * 128));
  for (uint32_t it = 0; it < 8; ++it) {
    for (uint32_t j = 0; j < 4; ++j)
      store16(chunk + 16 * (lane + 32 * j), run + it);
    __syncwarp();
    if (lane == 0) {
      asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], 2048;"
                   :: "l"(out + (it * gridDim.x + blockIdx.x) * 1024 + warp * 128), "r"(chunk)
                   : "memory");
      asm volatile("cp.async.bulk.commit_group;" ::: "memory");
      asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
    }
    __syncwarp();
  }
}
