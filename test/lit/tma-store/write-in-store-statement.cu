// The write happens inside the statement that issues the store (a helper
// fills the tile and returns it as the store's argument): there is no point
// between the two to put the fence, so the finding gets no automatic fix,
// and --fix leaves the file unchanged.
// REQUIRES: nvcc
// RUN: cp %s %t.cu
// RUN: not %proxyfence %t.cu 2>&1 | FileCheck %s
// RUN: not %proxyfence --fix --quiet %t.cu
// RUN: cmp %s %t.cu
// RUN: %nvcc-sm90a -cubin -o /dev/null %t.cu
#include <cuda.h>
#include <cstdint>

__device__ __forceinline__ void tma_store(const CUtensorMap *tmap, const void *src) {
  uint32_t smem = static_cast<uint32_t>(__cvta_generic_to_shared(src));
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];"
               :: "l"(tmap), "r"(smem), "r"(0), "r"(0) : "memory");
}

__device__ float *fill(float *tile, float v) {
  for (int i = 0; i < 32; ++i)
    tile[i] = v * i;
  return tile;
}

__global__ void one_statement(const __grid_constant__ CUtensorMap tmap, float v) {
  __shared__ alignas(128) float tile[32];
  if (threadIdx.x == 0)
    tma_store(&tmap, fill(tile, v));
}
// CHECK: write-in-store-statement.cu.tmp.cu:29:5: warning: TMA store reads shared memory 'tile' written through the generic proxy with no fence.proxy.async on the path [proxyfence-tma-store]
// CHECK: :22:5: note: generic-proxy write to 'tile' here
// CHECK: :29:22: note: inside 'fill', called here
// CHECK: :29:5: note: no automatic fix: the generic-proxy access is part of the statement the fence would precede
// CHECK-NOT: warning:
// CHECK: proxyfence: 1 finding in 1 file
