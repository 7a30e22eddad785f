// A wrapper's accesses through its parameters are decided at each call:
// `const coord &idx` bound to a braced temporary or a register variable is
// never shared memory, so its reads beside the TMA load into `dst` are no
// hazard; a helper that writes and TMA-stores the buffer it is given is
// reported in the helper when a call passes it the same shared memory for
// both, with a note at that call.
// RUN: not %proxyfence %s 2>&1 | FileCheck %s
#include <cuda.h>
#include <cstdint>

struct coord {
  int r, c;
};

__device__ __forceinline__ void load_async(float *dst, const CUtensorMap *map, uint64_t *bar,
                                           const coord &idx) {
  uint32_t d = static_cast<uint32_t>(__cvta_generic_to_shared(dst));
  uint32_t b = static_cast<uint32_t>(__cvta_generic_to_shared(bar));
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
               " [%0], [%1, {%3, %4}], [%2];"
               :: "r"(d), "l"(map), "r"(b), "r"(idx.c), "r"(idx.r) : "memory");
}
__device__ __forceinline__ void tma_store(const CUtensorMap *map, const float *src) {
  uint32_t s = static_cast<uint32_t>(__cvta_generic_to_shared(src));
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %2}], [%1];"
               :: "l"(map), "r"(s), "r"(0) : "memory");
}
// Writes `tile`, then TMA-stores `out`: a hazard exactly when they are the
// same buffer, which only the caller knows.
__device__ void fill_then_store(float *tile, const float *out, const CUtensorMap *map) {
  tile[threadIdx.x] = 1.0f;
  __syncwarp();
  if (threadIdx.x == 0)
    tma_store(map, out);
}
// `stmatrix` through a 32-bit address the caller computes.
__device__ __forceinline__ void stmatrix_to(uint32_t addr, uint32_t v) {
  asm volatile("stmatrix.sync.aligned.m8n8.x1.shared::cta.b16 [%0], {%1};" :: "r"(addr), "r"(v));
}

__global__ void wrappers(const __grid_constant__ CUtensorMap map, int tiles) {
  __shared__ alignas(128) float a[1024];
  __shared__ alignas(128) float b[1024];
  __shared__ alignas(8) uint64_t bar;
  coord here{0, 0};
  for (int t = 0; t < tiles; ++t) {
    load_async(a, &map, &bar, {t, 0});
    load_async(b, &map, &bar, here);
    here.r += 1;
  }
  fill_then_store(a, b, &map);
  fill_then_store(b, b, &map);
}

__global__ void lifted_stmatrix(const __grid_constant__ CUtensorMap map, uint32_t base) {
  __shared__ alignas(128) float c[1024];
  stmatrix_to(base + threadIdx.x * 16, threadIdx.x);
  __syncthreads();
  if (threadIdx.x == 0)
    tma_store(&map, c);
}

// CHECK-NOT: proxyfence-async-overwrite
// CHECK: param-pairs.cu:34:5: warning: TMA store reads shared memory 'b' written through the generic proxy
// CHECK: :52:3: note: both sides meet through this call, with its arguments
// CHECK: :25:3: note: TMA store issued here, inside 'tma_store'
// CHECK: :31:3: note: generic-proxy write to 'b' here
// CHECK-NOT: :52:3: note: inside
// CHECK: :32:3: note: insert
// CHECK-NOT: proxyfence-async-overwrite
// CHECK: param-pairs.cu:60:5: warning: TMA store reads shared memory written through the generic proxy
// CHECK: :38:3: note: generic-proxy write to shared memory here (stmatrix.shared::cta)
// CHECK: :57:3: note: inside 'stmatrix_to', called here
// CHECK-NOT: warning:
// CHECK: proxyfence: 2 findings in 1 file
