// A braced initialiser that narrows a runtime value (`coord c = {blockIdx.x,
// blockIdx.y}` into int members, as ThunderKittens writes its tile
// coordinates) is a warning to nvcc and an error to clang, which marks the
// kernel as dropped by a front-end error. The nvcc view reads it as nvcc
// does: the kernel is analysed in full and the file is not reported as
// partly analysed.
// RUN: not %proxyfence --stats %s 2>&1 | FileCheck %s
// RUN: not %proxyfence --stats --no-nvcc-view %s 2>&1 | FileCheck --check-prefix=PLAIN %s
// REQUIRES: nvcc
// RUN: %nvcc-sm90a -cubin -o /dev/null %s
#include <cuda.h>
#include <cstdint>
struct coord { int x, y; };
__device__ void tma_store(const CUtensorMap *map, const float *src, coord c) {
  uint32_t s = static_cast<uint32_t>(__cvta_generic_to_shared(src));
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];"
               :: "l"(map), "r"(s), "r"(c.x), "r"(c.y) : "memory");
}
__global__ void store_tile(const __grid_constant__ CUtensorMap map, float v) {
  __shared__ alignas(128) float tile[256];
  tile[threadIdx.x] = v;
  __syncthreads();
  coord c = {blockIdx.x, blockIdx.y};
  if (threadIdx.x == 0)
    tma_store(&map, tile, c);
}

// CHECK: narrowing.cu:[[#@LINE-3]]:5: warning: TMA store reads shared memory 'tile' {{.*}}[proxyfence-tma-store]
// CHECK: proxyfence: 1 finding in 1 file
// CHECK-NOT: not fully analysed
// CHECK: code dropped by front-end errors: 0;
// PLAIN: not fully analysed (front-end errors)
// PLAIN: stats: dropped: {{.*}}narrowing.cu:[[#@LINE-14]]:17: store_tile: code dropped by a front-end error
