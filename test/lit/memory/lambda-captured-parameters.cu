// A device function whose local lambdas use its own parameters, by capture
// (FlashAttention-3's backward step `bwd_step` reads the descriptors and
// pipelines of the mainloop's mma() this way). Inside the lambda those are
// still the function's parameters, not the lambda's: a caller binds them.
// `distinct` passes two tiles: the write of one and the TMA store of the
// other do not meet. `same` passes one tile for both: the write reaches the
// store, reported where the lambda of fill_then_store issues it.
// RUN: not %proxyfence %s 2>&1 | FileCheck %s
// RUN: %nvcc-sm90a -cubin -o /dev/null %s
#include <cuda.h>
#include <cstdint>

__device__ inline void tma_store(const CUtensorMap *map, const float *src) {
  asm volatile("cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [%0, {%2}], [%1];"
               :: "l"(map), "r"(uint32_t(__cvta_generic_to_shared(src))), "r"(0)
               : "memory");
}

__device__ void fill_then_store(float *staged, float *stored,
                                const CUtensorMap *map, float v) {
  auto fill = [&](float x) { staged[threadIdx.x] = x; };
  auto store = [&]() {
    if (threadIdx.x == 0)
      tma_store(map, stored);
    // CHECK: .cu:[[#@LINE-1]]:7: warning: TMA store reads shared memory 'a' written through the generic proxy {{.*}}[proxyfence-tma-store]
  };
  fill(v);
  __syncthreads();
  store();
  // CHECK: .cu:[[#@LINE-1]]:3: note: inside the lambda called here
}

__global__ void distinct(const __grid_constant__ CUtensorMap map, float v) {
  __shared__ alignas(128) float a[128], b[128];
  fill_then_store(a, b, &map, v);
}

__global__ void same(const __grid_constant__ CUtensorMap map, float v) {
  __shared__ alignas(128) float a[128];
  fill_then_store(a, a, &map, v);
}

// CHECK-NOT: warning:
// CHECK: proxyfence: 1 finding in 1 file
