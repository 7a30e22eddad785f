// A member function whose lambda writes the object's own tile, passed to a
// helper that calls it for each element (`for_each([&](int i) { tile[i] =
// v; })`, a CuTe-style loop): inside the lambda `tile` is `this->tile` of
// the enclosing member, not a field of the lambda object, so the write
// reaches the TMA store of the tile after the barrier. The same loop over
// a tile the store does not read is no hazard; the fix is written before
// the barrier.
// RUN: cp %s %t.cu
// RUN: not %proxyfence %t.cu 2>&1 | FileCheck %s
// RUN: %proxyfence --fix --quiet %t.cu
// RUN: FileCheck --check-prefix=FIXED --input-file=%t.cu %s
// RUN: %proxyfence %t.cu 2>&1 | FileCheck --check-prefix=CLEAN %s
#include <cuda.h>
#include <cstdint>

__device__ void tma_store(const CUtensorMap *tmap, const void *src) {
  uint32_t s = static_cast<uint32_t>(__cvta_generic_to_shared(src));
  asm volatile("cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [%0, {%2}], [%1];"
               :: "l"(tmap), "r"(s), "r"(0) : "memory");
}

template <typename F> __device__ void for_each(F &&f) {
  for (int i = 0; i < 4; ++i)
    f(i);
}

struct Epilogue {
  alignas(128) float tile[256];
  alignas(128) float scratch[256];

  __device__ void store(const CUtensorMap *tmap, float v) {
    // FIXED: {{^ +}}for_each([&](int i) { tile[threadIdx.x * 4 + i] = v; });
    // FIXED-NEXT: {{^ +}}asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    // FIXED-NEXT: {{^ +}}__syncthreads();
    for_each([&](int i) { tile[threadIdx.x * 4 + i] = v; });
    __syncthreads();
    if (threadIdx.x == 0)
      tma_store(tmap, tile);
    // CHECK: .cu:[[@LINE-1]]:7: warning: TMA store reads shared memory 'Epilogue::tile' written through the generic proxy
  }

  __device__ void store_other(const CUtensorMap *tmap, float v) {
    for_each([&](int i) { scratch[threadIdx.x * 4 + i] = v; });
    __syncthreads();
    if (threadIdx.x == 0)
      tma_store(tmap, tile);
  }
};

__global__ void epilogue(const __grid_constant__ CUtensorMap tmap, float v) {
  extern __shared__ __align__(128) char smem[];
  reinterpret_cast<Epilogue *>(smem)->store(&tmap, v);
}

__global__ void epilogue_other(const __grid_constant__ CUtensorMap tmap, float v) {
  extern __shared__ __align__(128) char smem[];
  reinterpret_cast<Epilogue *>(smem)->store_other(&tmap, v);
}

// CHECK-NOT: warning:
// CHECK: proxyfence: 1 finding in 1 file
// CLEAN: proxyfence: 0 findings in 1 file
