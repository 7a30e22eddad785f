// Summaries are specialised on constant arguments. A TMA wrapper called
// with its default `num_multicast = 1` never takes its multicast branch, so
// the barrier it completes on is used by this CTA alone: __syncthreads()
// after the init is enough. Called with 2, the multicast load signals the
// barrier of the peer CTA as well, before a cluster barrier publishes the
// init.
// RUN: not %proxyfence %s 2>&1 | FileCheck %s
#include <cuda.h>
#include <cstdint>

__device__ inline uint32_t smem(const void *p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
__device__ inline void init_bar(uint64_t *bar) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem(bar)) : "memory");
}
__device__ void tma_copy(float *dst, const CUtensorMap *map, uint64_t *bar,
                         int num_multicast = 1) {
  if (num_multicast == 1) {
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%3, %3}], [%2];"
                 :: "r"(smem(dst)), "l"(map), "r"(smem(bar)), "r"(0) : "memory");
  } else {
    uint16_t mask = (1u << num_multicast) - 1;
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
                 " [%0], [%1, {%3, %3}], [%2], %4;"
                 :: "r"(smem(dst)), "l"(map), "r"(smem(bar)), "r"(0), "h"(mask) : "memory");
  }
}

__global__ void __cluster_dims__(2, 1, 1) single_cta_use(const __grid_constant__ CUtensorMap map) {
  __shared__ alignas(128) float tile[1024];
  __shared__ alignas(8) uint64_t full;
  if (threadIdx.x == 0)
    init_bar(&full);
  __syncthreads();
  if (threadIdx.x == 0)
    tma_copy(tile, &map, &full);
}

__global__ void __cluster_dims__(2, 1, 1) multicast_use(const __grid_constant__ CUtensorMap map) {
  __shared__ alignas(128) float tile[1024];
  __shared__ alignas(8) uint64_t full;
  if (threadIdx.x == 0)
    init_bar(&full);
  __syncthreads();
  if (threadIdx.x == 0)
    tma_copy(tile, &map, &full, 2);
}

// CHECK-NOT: warning:
// CHECK: constant-arguments.cu:45:5: warning: mbarrier 'full' is used by another CTA of the cluster before its initialisation is visible there
// CHECK: :25:5: note: used by another CTA of the cluster here (multicast TMA load), inside 'tma_copy'
// CHECK: :48:5: note: inside 'tma_copy', called here
// CHECK-NOT: warning:
// CHECK: proxyfence: 1 finding in 1 file
