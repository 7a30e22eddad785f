// A load helper that picks its TMA form at run time (2D or 3D, as
// DeepGEMM's tma::copy does): one call in the kernel, one warning there, each
// form it may issue a note.
// RUN: not %proxyfence %s 2>&1 | FileCheck %s
#include <cuda.h>
#include <cstdint>

__device__ inline void tma_load(const CUtensorMap *map, uint64_t *bar, void *dst,
                                int rank) {
  uint32_t d = uint32_t(__cvta_generic_to_shared(dst));
  uint32_t b = uint32_t(__cvta_generic_to_shared(bar));
  if (rank == 2)
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%3, %3}], [%2];"
                 :: "r"(d), "l"(map), "r"(b), "r"(0) : "memory");
  else
    asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%3, %3, %3}], [%2];"
                 :: "r"(d), "l"(map), "r"(b), "r"(0) : "memory");
}

__global__ void reload(const __grid_constant__ CUtensorMap map, float *out,
                       int rank) {
  __shared__ alignas(128) float tile[1024];
  __shared__ alignas(8) uint64_t bar;
  out[threadIdx.x] = tile[threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0)
    tma_load(&map, &bar, tile, rank);
}

// CHECK: one-warning-per-call.cu:29:5: warning: TMA load overwrites shared memory 'tile' read through the generic proxy with no fence.proxy.async on the path [proxyfence-async-overwrite]
// CHECK-DAG: one-warning-per-call.cu:13:5: note: TMA load issued here, inside 'tma_load'
// CHECK-DAG: one-warning-per-call.cu:17:5: note: TMA load issued here, inside 'tma_load'
// CHECK-DAG: one-warning-per-call.cu:26:22: note: generic-proxy read of 'tile' here
// CHECK-NOT: warning:
// CHECK: proxyfence: 1 finding in 1 file
