// nvcc places `extern __shared__ T s;` with T a struct (not an array of
// unknown bound) in dynamic shared memory; clang rejects it ("cannot be
// 'extern'") and drops its shared attribute, which made every access through
// it global memory and lost the findings on it. proxyfence keeps it shared,
// with its fields told apart, and with no front-end error.
// RUN: %proxyfence --stats %s > %t.out 2>&1 || true
// RUN: FileCheck --input-file=%t.out %s
// RUN: %proxyfence --strict %s > /dev/null 2>&1; test $? -eq 1
// REQUIRES: nvcc
// RUN: %nvcc-sm90a -cubin -o /dev/null %s
#include <cuda.h>
#include <cstdint>

struct Storage {
  alignas(128) float tile[1024];
  uint64_t bar;
};

__device__ __forceinline__ void tma_store(const CUtensorMap *map, const void *src) {
  asm volatile("cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [%0, {%2}], [%1];"
               :: "l"(map), "r"((unsigned)__cvta_generic_to_shared(src)), "r"(0) : "memory");
}

__global__ void missing(const __grid_constant__ CUtensorMap tmap, float v) {
  extern __shared__ Storage s;
  s.tile[threadIdx.x] = v;
  __syncthreads();
  if (threadIdx.x == 0)
    tma_store(&tmap, s.tile);
}
// CHECK:     extern-shared-object.cu:[[@LINE-2]]:5: warning: TMA store reads shared memory 's' {{.*}}[proxyfence-tma-store]
// CHECK:     extern-shared-object.cu:[[@LINE-6]]:3: note: generic-proxy write to 's' here

// Fenced: nothing to report.
__global__ void fenced(const __grid_constant__ CUtensorMap tmap, float v) {
  extern __shared__ Storage s;
  s.tile[threadIdx.x] = v;
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (threadIdx.x == 0)
    tma_store(&tmap, s.tile);
}

// Another field of the same object: the store does not read it.
__global__ void other_field(const __grid_constant__ CUtensorMap tmap) {
  extern __shared__ Storage s;
  if (threadIdx.x == 0)
    s.bar = 0;
  __syncthreads();
  if (threadIdx.x == 0)
    tma_store(&tmap, s.tile);
}

// In a kernel template too, checked as written.
template <int N>
__global__ void missing_in_template(const __grid_constant__ CUtensorMap tmap, float v) {
  extern __shared__ Storage s;
  s.tile[threadIdx.x % N] = v;
  __syncthreads();
  if (threadIdx.x == 0)
    tma_store(&tmap, s.tile);
}
// CHECK:     extern-shared-object.cu:[[@LINE-2]]:5: warning: TMA store reads shared memory 's' {{.*}}[proxyfence-tma-store]
// CHECK-NOT: warning:
// CHECK-NOT: front end
// CHECK:     proxyfence: 2 findings in 1 file
// CHECK:     stats: also recovered for clang: 0 __shared__ objects declared with a constructor, 0 under-aligned alignas, 4 extern __shared__ non-arrays;
