// Dependent-typed shared arrays in never-instantiated templates: a row of a
// multi-dimensional `__shared__ T buf[kStages][..][..]` is its address, so
// the write and the TMA store of that row meet; a subscript of a by-value
// object of dependent type (`Coords<unsigned, N> c; c[0]`) is an operator
// call, not a read of shared memory.
// RUN: not %proxyfence %s 2>&1 | FileCheck %s
#include <cuda.h>
#include <cstdint>

__device__ void tma_store(const CUtensorMap *tmap, const void *src) {
  uint32_t smem = static_cast<uint32_t>(__cvta_generic_to_shared(src));
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];"
               :: "l"(tmap), "r"(smem), "r"(0), "r"(0) : "memory");
}
__device__ void tma_load(const CUtensorMap *tmap, void *dst, unsigned x, uint64_t *bar) {
  asm volatile("cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2}], [%3];"
               :: "r"((unsigned)__cvta_generic_to_shared(dst)), "l"(tmap), "r"(x),
                  "r"((unsigned)__cvta_generic_to_shared(bar)) : "memory");
}

template <typename T, int kStages>
__global__ void staged(const __grid_constant__ CUtensorMap tmap, const T *in) {
  __shared__ alignas(128) T tile[kStages][32][32];
  for (int s = 0; s < kStages; ++s) {
    tile[s][threadIdx.y][threadIdx.x] = in[threadIdx.x];
    __syncthreads();
    if (threadIdx.x == 0)
      tma_store(&tmap, reinterpret_cast<const void *>(&tile[s]));
  }
}
// CHECK: dependent-arrays.cu:28:7: warning: TMA store reads shared memory 'tile' written through the generic proxy with no fence.proxy.async on the path [proxyfence-tma-store]
// CHECK: dependent-arrays.cu:25:5: note: generic-proxy write to 'tile' here

template <typename T, int N>
struct Coords {
  T v[N];
  __device__ T operator[](int i) const { return v[i]; }
};

// Negative: `c` is the function's own copy; `c[0]` is no shared memory.
template <int N>
__device__ void load_at(const CUtensorMap *tmap, Coords<unsigned, N> c, void *smem,
                        uint64_t *bar) {
  tma_load(tmap, smem, c[0], bar);
}
// CHECK-NOT: warning:
// CHECK: proxyfence: 1 finding in 1 file
