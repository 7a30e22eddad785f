// The write three hundred template instantiations down, through a chain of
// two hundred macros, inside blocks nested a hundred deep, and a recursive
// function: found, fixed, and no stack overflow or endless summary.
// RUN: cp %s %t.cu
// RUN: not %proxyfence %t.cu -- -ftemplate-depth=1024 2>&1 | FileCheck %s
// RUN: %proxyfence --fix --quiet %t.cu -- -ftemplate-depth=1024
// RUN: FileCheck --check-prefix=FIXED --input-file=%t.cu %s
// RUN: %proxyfence %t.cu -- -ftemplate-depth=1024
// RUN: %nvcc-sm90a -ftemplate-depth=1024 -cubin -o /dev/null %t.cu
// REQUIRES: nvcc
#include <cuda.h>

#define M0(x) x
#define M1(x) M0(x)
#define M2(x) M1(x)
#define M3(x) M2(x)
#define M4(x) M3(x)
#define M5(x) M4(x)
#define M6(x) M5(x)
#define M7(x) M6(x)
#define M8(x) M7(x)
#define M9(x) M8(x)
#define N0(x) M9(M9(x))
#define N1(x) N0(N0(x))
#define N2(x) N1(N1(x))
#define N3(x) N2(N2(x))
#define N4(x) N3(N3(x))
#define DEEP(x) N4(x)

template <int N> struct Fill {
  __device__ static void run(float *t, float v) { Fill<N - 1>::run(t, v + 1.f); }
};
template <> struct Fill<0> {
  __device__ static void run(float *t, float v) { DEEP(t[threadIdx.x] = v); }
};

__device__ int countdown(int n) { return n <= 0 ? 0 : 1 + countdown(n - 1); }

#define B10(x) {{{{{{{{{{ x }}}}}}}}}}
#define B100(x) B10(B10(B10(B10(B10(B10(B10(B10(B10(B10(x))))))))))

__global__ void store(const __grid_constant__ CUtensorMap tmap, float v) {
  __shared__ alignas(128) float tile[1024];
  B100(Fill<300>::run(tile, v + countdown(threadIdx.x));)
  __syncthreads();
  if (threadIdx.x == 0)
    asm volatile("cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [%0, {%2}], [%1];"
                 :: "l"(&tmap), "r"((unsigned)__cvta_generic_to_shared(tile)), "r"(0) : "memory");
}
// CHECK: deep-nesting.cu.tmp.cu:47:5: warning: TMA store reads shared memory 'tile' written through the generic proxy with no fence.proxy.async on the path [proxyfence-tma-store]
// CHECK: proxyfence: 1 finding in 1 file

// FIXED:      {{^  }}B100(Fill<300>::run(tile, v + countdown(threadIdx.x));)
// FIXED-NEXT: {{^  }}asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
// FIXED-NEXT: {{^  }}__syncthreads();
