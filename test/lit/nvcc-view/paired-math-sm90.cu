// A header shared by sm_90 and sm_100 kernels uses the paired float math of
// sm_100 (`__fmul2_rn`) in a function template that the sm_90 build never
// instantiates. nvcc 13 accepts that for sm_90a (the names are looked up
// only when instantiated, and then rejected); clang looks non-dependent names
// up where the template is written. The prelude declares them below sm_100,
// so the file is analysed whole: no front-end error, the hazard in the kernel
// beside it found.
// RUN: not %proxyfence --arch=sm_90a %s > %t.out 2>&1
// RUN: FileCheck --input-file=%t.out %s
// RUN: not %proxyfence --arch=sm_90a --no-nvcc-view %s 2>&1 | FileCheck --check-prefix=OFF %s
// REQUIRES: nvcc
// RUN: %nvcc-sm90a -cubin -o /dev/null %s
#include <cuda.h>
#include <cstdint>

template <bool kUseUE8M0 = true>
__device__ void scale_factors(const float2 &amax, float2 &sf) {
  const float2 finfo = {1.0f / 448.0f, 1.0f / 448.0f};
  sf = __fmul2_rn(amax, finfo);
}

__global__ void store_tile(const __grid_constant__ CUtensorMap map, float v) {
  __shared__ alignas(128) float tile[256];
  tile[threadIdx.x] = v;
  __syncthreads();
  if (threadIdx.x == 0)
    asm volatile("cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [%0, {%2}], [%1];"
                 :: "l"(&map), "r"(uint32_t(__cvta_generic_to_shared(tile))), "r"(0)
                 : "memory");
}

// CHECK:     paired-math-sm90.cu:27:5: warning: TMA store reads shared memory 'tile'
// CHECK-NOT: front end
// CHECK:     proxyfence: 1 finding in 1 file
// CHECK-NOT: not fully analysed
// OFF: front end rejected part of this file {{.*}}'__fmul2_rn'
