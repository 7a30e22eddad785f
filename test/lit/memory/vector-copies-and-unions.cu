// An epilogue that stores its tile as 16-byte vectors, the way a vectorising
// copy recasts a row of floats: `dst_v[i] = src_v[i]` with a struct type
// that the compiler copies bitwise, which is an operator call in the AST, not
// a built-in assignment. The tile lives in an unnamed union of the shared
// storage (C and D reuse the same bytes); messages name it by the field that
// holds the union.
// RUN: not %proxyfence %s 2>&1 | FileCheck %s
#include <cuda.h>
#include <cstdint>

// A union inside: the compiler copies it as raw bytes, with no member-wise
// body to analyse.
struct alignas(16) u128 {
  union {
    struct {
      uint64_t lo, hi;
    } parts;
    unsigned __int128 native;
  };
};

struct SharedStorage {
  union {
    float C[1024];
    float D[1024];
  } tensors;
  alignas(8) uint64_t bar;
};

__device__ void store_tile(u128 *dst, const u128 *src, int n) {
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    dst[i] = src[i];
}

__device__ void tma_store(const CUtensorMap *map, const void *src) {
  asm volatile("cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [%0, {%2}], [%1];"
               :: "l"(map), "r"(uint32_t(__cvta_generic_to_shared(src))), "r"(0)
               : "memory");
}

__global__ void vector_store_unfenced(const __grid_constant__ CUtensorMap map,
                                      const u128 *in) {
  extern __shared__ __align__(128) char smem[];
  SharedStorage &ss = *reinterpret_cast<SharedStorage *>(smem);
  store_tile(reinterpret_cast<u128 *>(ss.tensors.D), in, 256);
  __syncthreads();
  if (threadIdx.x == 0)
    tma_store(&map, ss.tensors.D);
}

__global__ void vector_store_fenced(const __grid_constant__ CUtensorMap map,
                                    const u128 *in) {
  extern __shared__ __align__(128) char smem[];
  SharedStorage &ss = *reinterpret_cast<SharedStorage *>(smem);
  store_tile(reinterpret_cast<u128 *>(ss.tensors.D), in, 256);
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (threadIdx.x == 0)
    tma_store(&map, ss.tensors.D);
}

// A vector copy out of shared memory into registers is a read, not a store:
// storing the tile from global memory into another buffer needs no fence.
__global__ void vector_read_only(const __grid_constant__ CUtensorMap map,
                                 u128 *out) {
  extern __shared__ __align__(128) char smem[];
  SharedStorage &ss = *reinterpret_cast<SharedStorage *>(smem);
  store_tile(out, reinterpret_cast<const u128 *>(ss.tensors.C), 256);
  __syncthreads();
  if (threadIdx.x == 0)
    tma_store(&map, ss.tensors.D);
}

// CHECK: vector-copies-and-unions.cu:48:5: warning: TMA store reads shared memory 'SharedStorage::tensors.D' written through the generic proxy with no fence.proxy.async on the path [proxyfence-tma-store]
// CHECK: vector-copies-and-unions.cu:32:5: note: generic-proxy write to 'SharedStorage::tensors.D' here
// CHECK-NOT: warning:
// CHECK: proxyfence: 1 finding in 1 file
