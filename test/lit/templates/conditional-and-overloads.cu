// A header-only kernel template that nothing instantiates, written the way
// production GEMMs pick their TMA operation and their shared-memory store:
// `using Op = conditional_t<kFlag, A, B>; Op::copy(...)`, and an overloaded
// `st_shared(ptr, value)` whose overload depends on the template. Candidates
// with the same effects act as one call; candidates that differ (a store or
// a fence) stay unknown, counted in --stats, and assumed to do nothing.
// RUN: not %proxyfence --stats %s 2>&1 | FileCheck %s
#include <cuda.h>
#include <cuda/std/type_traits>
#include <cstdint>

__device__ inline uint32_t smem_addr(const void *p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
__device__ inline void st_shared(const float *p, float v) {
  asm volatile("st.shared.f32 [%0], %1;" :: "r"(smem_addr(p)), "f"(v) : "memory");
}
__device__ inline void st_shared(const float2 *p, float2 v) {
  asm volatile("st.shared.v2.f32 [%0], {%1, %2};"
               :: "r"(smem_addr(p)), "f"(v.x), "f"(v.y) : "memory");
}

struct TmaStore {
  __device__ static void copy(const CUtensorMap *map, const void *src) {
    asm volatile("cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [%0, {%2}], [%1];"
                 :: "l"(map), "r"(smem_addr(src)), "r"(0) : "memory");
  }
};
struct TmaReduceAdd {
  __device__ static void copy(const CUtensorMap *map, const void *src) {
    asm volatile("cp.reduce.async.bulk.tensor.1d.global.shared::cta.add.bulk_group [%0, {%2}], [%1];"
                 :: "l"(map), "r"(smem_addr(src)), "r"(0) : "memory");
  }
};
struct FenceThenStore {
  __device__ static void copy(const CUtensorMap *map, const void *src) {
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    TmaStore::copy(map, src);
  }
};

template <bool kAccumulate, class T>
__global__ void epilogue(const __grid_constant__ CUtensorMap map, T v) {
  extern __shared__ __align__(128) char smem[];
  T *tile = reinterpret_cast<T *>(smem);
  st_shared(tile + threadIdx.x, v);
  __syncthreads();
  using Store = cuda::std::conditional_t<kAccumulate, TmaReduceAdd, TmaStore>;
  if (threadIdx.x == 0)
    Store::copy(&map, tile);
}

template <bool kFenced, class T>
__global__ void epilogue_maybe_fenced(const __grid_constant__ CUtensorMap map,
                                      T v) {
  extern __shared__ __align__(128) char smem[];
  T *tile = reinterpret_cast<T *>(smem);
  st_shared(tile + threadIdx.x, v);
  __syncthreads();
  using Store = cuda::std::conditional_t<kFenced, FenceThenStore, TmaStore>;
  if (threadIdx.x == 0)
    Store::copy(&map, tile);
}

// CHECK: conditional-and-overloads.cu:[[@LINE-15]]:5: warning: bulk async reduction reads dynamic shared memory written through the generic proxy with no fence.proxy.async on the path [proxyfence-tma-store]
// CHECK-NOT: warning
// CHECK: proxyfence: 1 finding in 1 file
// CHECK: stats: template calls left unresolved: 1
// CHECK-NEXT: stats: unresolved: {{.*}}conditional-and-overloads.cu:[[@LINE-7]]:5: 'copy'
