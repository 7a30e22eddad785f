// The fixed warp_chunk_copy of examples/warp_chunk_race (its SASS, recorded
// with cuobjdump on an H200, is in fenced.sass; unfenced.sass is the
// original's).
#include <cstdint>

__global__ void warp_chunk_copy(uint4 *out, uint32_t run) {
  extern __shared__ __align__(128) uint4 smem[];
  const uint32_t warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const uint32_t chunk = static_cast<uint32_t>(__cvta_generic_to_shared(smem + warp * 128));
  for (uint32_t it = 0; it < 64; ++it) {
    for (uint32_t j = 0; j < 4; ++j)
      asm volatile("st.shared.v4.b32 [%0], {%1, %1, %1, %1};"
                   :: "r"(chunk + 16 * (lane + 32 * j)), "r"(run + it) : "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
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
