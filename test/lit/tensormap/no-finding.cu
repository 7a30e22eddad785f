// The fenced forms, and a kernel that never modifies a map: nothing to
// report. The writer releases (or copies the map with tensormap.cp_fenceproxy,
// which releases) and the TMA issuer acquires after its last synchronisation;
// a __grid_constant__ map that device code never writes needs no acquire,
// nor does a map another kernel wrote that this one only picks by pointer
// (assigning a `const CUtensorMap *` writes no map).
// RUN: %proxyfence %s 2>&1 | FileCheck %s
// CHECK-NOT: warning:
// CHECK: proxyfence: 0 findings in 1 file
#include <cuda.h>
#include <cstdint>

__device__ inline uint32_t smem(const void *p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
__device__ inline void load_tile(float *dst, const void *tensor_map, uint64_t *bar) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 4096;" :: "r"(smem(bar)) : "memory");
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
               :: "r"(smem(dst)), "l"(tensor_map), "r"(0), "r"(0), "r"(smem(bar)) : "memory");
}

__global__ void fenced(CUtensorMap *maps, const float *src, uint64_t *bars) {
  __shared__ alignas(128) float tile[1024];
  __shared__ alignas(8) uint64_t full;
  CUtensorMap *map = maps + blockIdx.x;
  if (threadIdx.x == 0) {
    asm volatile("tensormap.replace.tile.global_address.global.b1024.b64 [%0], %1;" :: "l"(map), "l"(src) : "memory");
    asm volatile("fence.proxy.tensormap::generic.release.gpu;" ::: "memory");
    asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(map) : "memory");
    load_tile(tile, map, &full);
  }
}

__global__ void copied_with_fence(CUtensorMap *maps, const __grid_constant__ CUtensorMap tmpl) {
  __shared__ alignas(128) CUtensorMap staged;
  __shared__ alignas(128) float tile[1024];
  __shared__ alignas(8) uint64_t full;
  if (threadIdx.x < 32) {
    if (threadIdx.x == 0) {
      staged = tmpl;
      asm volatile("tensormap.replace.tile.global_address.shared::cta.b1024.b64 [%0], %1;" :: "r"(smem(&staged)), "l"(maps) : "memory");
    }
    __syncwarp();
    asm volatile("tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%0], [%1], 128;"
                 :: "l"(maps + blockIdx.x), "r"(smem(&staged)) : "memory");
    if (threadIdx.x == 0) {
      asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(maps + blockIdx.x) : "memory");
      load_tile(tile, maps + blockIdx.x, &full);
    }
  }
}

__global__ void never_modified(const __grid_constant__ CUtensorMap map) {
  __shared__ alignas(128) float tile[1024];
  __shared__ alignas(8) uint64_t full;
  if (threadIdx.x == 0)
    load_tile(tile, &map, &full);
}

__global__ void map_pointer_chosen(const __grid_constant__ CUtensorMap fallback,
                                   const CUtensorMap *per_group, int group) {
  __shared__ alignas(128) float tile[1024];
  __shared__ alignas(8) uint64_t full;
  const CUtensorMap *map = &fallback;
  if (group >= 0)
    map = &per_group[group];
  __syncthreads();
  if (threadIdx.x == 0)
    load_tile(tile, map, &full);
}
