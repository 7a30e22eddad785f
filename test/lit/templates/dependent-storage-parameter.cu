// A collective's member function taking `SharedStorage &storage` whose type
// is a template parameter, never instantiated here: `storage.out` is a
// member of whatever the caller binds, known by name only. Writing it and
// handing it to a TMA store with no fence is reported; writing another
// member (`scratch`) and storing `out` is not, since distinct members never
// overlap; the fenced store is clean.
// RUN: not %proxyfence %s 2>&1 | FileCheck %s
#include <cuda.h>

__device__ inline void tma_store_1d(const CUtensorMap *map, const void *src) {
  asm volatile(
      "cp.async.bulk.tensor.1d.global.shared::cta.tile.bulk_group [%0, {%1}], [%2];"
      :: "l"(map), "r"(0), "r"((unsigned)__cvta_generic_to_shared(src))
      : "memory");
}

template <class SharedStorage>
struct Epilogue {
  __device__ void store(SharedStorage &storage, const CUtensorMap *map, float v) {
    storage.out[threadIdx.x] = v;
    __syncthreads();
    if (threadIdx.x == 0)
      tma_store_1d(map, storage.out);
  }
  __device__ void store_other(SharedStorage &storage, const CUtensorMap *map, float v) {
    storage.scratch[threadIdx.x] = v;
    __syncthreads();
    if (threadIdx.x == 0)
      tma_store_1d(map, storage.out);
  }
  __device__ void store_fenced(SharedStorage &storage, const CUtensorMap *map, float v) {
    storage.out[threadIdx.x] = v;
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    if (threadIdx.x == 0)
      tma_store_1d(map, storage.out);
  }
};

// CHECK: dependent-storage-parameter.cu:23:7: warning: TMA store reads shared memory 'storage.out' written through the generic proxy with no fence.proxy.async on the path [proxyfence-tma-store]
// CHECK: dependent-storage-parameter.cu:20:5: note: generic-proxy write to 'storage.out' here
// CHECK-NOT: warning:
// CHECK: proxyfence: 1 finding in 1 file
