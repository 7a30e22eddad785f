// A static data member named through a shared object (`n / t[0].rows`, as
// ThunderKittens reads a tile's dimensions) reads that constant, not the
// tile: nothing for the TMA load that later overwrites the tile to conflict
// with. Reading an element of the tile before the load is a real read.
// RUN: not %proxyfence %s 2>&1 | FileCheck %s
// RUN: %nvcc-sm90a -cubin -o /dev/null %s
#include <cuda.h>
#include <cstdint>

struct tile {
  static constexpr int rows = 64;
  float data[64 * 16];
};

__device__ void tma_load(tile &t, const CUtensorMap *map, uint64_t *bar) {
  asm volatile("cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%3}], [%2];"
               :: "r"((uint32_t)__cvta_generic_to_shared(t.data)), "l"(map),
                  "r"((uint32_t)__cvta_generic_to_shared(bar)), "r"(0)
               : "memory");
}

__global__ void dimensions(const __grid_constant__ CUtensorMap map, int n,
                           int *out) {
  __shared__ alignas(128) tile t[2];
  __shared__ uint64_t bar;
  int blocks = n / t[0].rows;
  __syncthreads();
  if (threadIdx.x == 0)
    tma_load(t[0], &map, &bar);
  out[0] = blocks;
}

__global__ void element(const __grid_constant__ CUtensorMap map, int n,
                        float *out) {
  __shared__ alignas(128) tile t[2];
  __shared__ uint64_t bar;
  float first = t[0].data[0];
  __syncthreads();
  if (threadIdx.x == 0)
    tma_load(t[0], &map, &bar);
  // CHECK: .cu:[[#@LINE-1]]:5: warning: TMA load overwrites shared memory 't' read through the generic proxy {{.*}}[proxyfence-async-overwrite]
  out[0] = first;
}

// CHECK-NOT: warning:
// CHECK: proxyfence: 1 finding in 1 file
