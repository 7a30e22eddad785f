// Code nvcc compiles reaches builtins clang lacks once nvcc's macros are on:
// the in-memory prelude declares them (nothing is written to disk).
// RUN: %proxyfence --arch=sm_100a --stats %s 2>&1 | FileCheck %s
// RUN: %proxyfence --arch=sm_100a --stats --no-nvcc-view %s 2>&1 | FileCheck --check-prefix=OFF %s
// RUN: %proxyfence --print-nvcc-prelude | FileCheck --check-prefix=TEXT %s
// RUN: %proxyfence --print-command --arch=sm_100a %s | tr '\0' ' ' | FileCheck --check-prefix=CMD %s
// RUN: %proxyfence --print-command --arch=sm_100a --no-nvcc-view %s | tr '\0' ' ' | FileCheck --check-prefix=CMD-OFF %s

__device__ unsigned read_relaxed(unsigned *p) {
#if (__CUDACC_VER_MAJOR__ > 12) || (__CUDACC_VER_MAJOR__ == 12 && __CUDACC_VER_MINOR__ >= 8)
  return __nv_atomic_load_n(p, __NV_ATOMIC_RELAXED);
#else
  return *(volatile unsigned *)p;
#endif
}
__device__ float2 scale(float2 a, float2 b) { return __fmul2_rn(a, b); }
__global__ void k(unsigned *p, float2 *f) {
  p[1] = read_relaxed(p);
  f[0] = scale(f[1], f[2]);
}

// CHECK: proxyfence: 0 findings in 1 file
// CHECK-NOT: not fully analysed
// CHECK: code dropped by front-end errors: 0;
// OFF: not fully analysed (front-end errors): {{.*}}prelude.cu
// OFF: code dropped by front-end errors: 1;
// TEXT: __nv_atomic_load_n
// TEXT: #include <crt/sm_100_rt.h>
// CMD: -D__CUDACC_VER_MAJOR__={{[0-9]+}} {{.*}}-D__CUDA_ARCH_FEAT_SM100_ALL -D__CUDA_ARCH_SPECIFIC__=1000 -D__CUDA_ARCH_FAMILY_SPECIFIC__=1000 -include /proxyfence-nvcc-view/prelude.cuh
// CMD-OFF-NOT: __CUDACC_VER_MAJOR__
// CMD-OFF-NOT: prelude.cuh
