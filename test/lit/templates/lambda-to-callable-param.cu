// An epilogue template hands its stores to a helper as a generic lambda:
// `Gmma::foreach_C(acc, [&](const auto &c, int m, int n) {...})`. In the
// pattern nothing is instantiated, so the helper's `func(frag[m][n], m, n)`
// names no callee and the lambda's stores were never seen. The lambda is
// bound to the callable parameter it is passed to, as a function pointer
// is; where the helper itself cannot be resolved (a member of a template
// parameter, `G::foreach_C`), the lambda is taken to run at the call. Both
// write the tile that the TMA store reads; the fenced twins are clean.
// RUN: not %proxyfence %s 2>&1 | FileCheck %s
// RUN: %nvcc-sm90a -cubin -o /dev/null %s
// REQUIRES: nvcc
#include <cstdint>

__device__ inline void tma_store(const void *map, const void *src) {
  asm volatile("cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [%0, {%1}], [%2];"
               :: "l"(map), "r"(0), "r"((unsigned)__cvta_generic_to_shared(src)) : "memory");
}
__device__ inline void fence_async() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

struct Gmma {
  template <class Frag, class Func>
  __device__ static void foreach_C(Frag &frag, Func &&func) {
    for (int m = 0; m < 2; ++m)
      for (int n = 0; n < 2; ++n)
        func(frag[m][n], m, n);
  }
};

template <class G, int N>
struct Epilogue {
  // The helper is known; its callable parameter is bound to the lambda.
  __device__ void bound(const void *map, float *smem) {
    float acc[2][2] = {};
    float *tile = smem + 64;
    Gmma::foreach_C(acc, [&](const auto &c, int m, int n) {
      tile[m * 2 + n + threadIdx.x * N] = c;
    });
    __syncthreads();
    if (threadIdx.x == 0)
      tma_store(map, tile);
  }
  // The helper depends on a template parameter: the lambda runs at the call.
  __device__ void unresolved(const void *map, float *smem) {
    float acc[2][2] = {};
    float *tile = smem + 64;
    G::foreach_C(acc, [&](const auto &c, int m, int n) {
      tile[m * 2 + n + threadIdx.x * N] = c;
    });
    __syncthreads();
    if (threadIdx.x == 0)
      tma_store(map, tile);
  }
  // Fenced after the lambda's stores: nothing to report.
  __device__ void fenced(const void *map, float *smem) {
    float acc[2][2] = {};
    float *tile = smem + 64;
    G::foreach_C(acc, [&](const auto &c, int m, int n) {
      tile[m * 2 + n + threadIdx.x * N] = c;
    });
    fence_async();
    __syncthreads();
    if (threadIdx.x == 0)
      tma_store(map, tile);
  }
};

template <class E>
__global__ void bound_kernel(const void *map) {
  extern __shared__ float smem[];
  E{}.bound(map, smem);
}
template <class E>
__global__ void unresolved_kernel(const void *map) {
  extern __shared__ float smem[];
  E{}.unresolved(map, smem);
}
template <class E>
__global__ void fenced_kernel(const void *map) {
  extern __shared__ float smem[];
  E{}.fenced(map, smem);
}
// CHECK: lambda-to-callable-param.cu:42:7: warning: TMA store reads {{.*}} written through the generic proxy with no fence.proxy.async on the path [proxyfence-tma-store]
// CHECK: lambda-to-callable-param.cu:38:7: note: generic-proxy write to
// CHECK: lambda-to-callable-param.cu:53:7: warning: TMA store reads {{.*}} written through the generic proxy with no fence.proxy.async on the path [proxyfence-tma-store]
// CHECK: lambda-to-callable-param.cu:49:7: note: generic-proxy write to
// CHECK-NOT: lambda-to-callable-param.cu:65:{{[0-9]+}}: warning
// CHECK: proxyfence: 2 findings in 1 file
