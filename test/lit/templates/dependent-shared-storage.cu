// Shared storage of a template-parameter type, never instantiated here:
// `Storage &s = *reinterpret_cast<Storage *>(smem)` designates the dynamic
// shared memory, and so does every element `s.tile[i]` of it, whatever
// `tile` turns out to be. The write then reaches the TMA store unfenced
// (positive, with its fix); the fenced twin is clean.
// RUN: cp %s %t.cu && not %proxyfence %t.cu 2>&1 | FileCheck %s
// RUN: %proxyfence --fix --quiet %t.cu && FileCheck --check-prefix=FIXED --input-file=%t.cu %s
// RUN: %proxyfence %t.cu 2>&1 | FileCheck --check-prefix=CLEAN %s
#include <cuda.h>

__device__ inline void tma_store_1d(const CUtensorMap *map, const void *src) {
  asm volatile(
      "cp.async.bulk.tensor.1d.global.shared::cta.tile.bulk_group [%0, {%1}], [%2];"
      :: "l"(map), "r"(0), "r"((unsigned)__cvta_generic_to_shared(src))
      : "memory");
}

template <class Storage>
__global__ void unfenced(const CUtensorMap *map) {
  extern __shared__ __align__(128) char smem[];
  Storage &s = *reinterpret_cast<Storage *>(smem);
  s.tile[threadIdx.x] = 1.0f;
  __syncthreads();
  if (threadIdx.x == 0)
    tma_store_1d(map, s.tile);
}

template <class Storage>
__global__ void fenced(const CUtensorMap *map) {
  extern __shared__ __align__(128) char smem[];
  Storage &s = *reinterpret_cast<Storage *>(smem);
  s.tile[threadIdx.x] = 1.0f;
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (threadIdx.x == 0)
    tma_store_1d(map, s.tile);
}

// CHECK: .cu:25:5: warning: TMA store reads dynamic shared memory written through the generic proxy with no fence.proxy.async on the path [proxyfence-tma-store]
// CHECK: .cu:22:3: note: generic-proxy write to dynamic shared memory here
// CHECK-NOT: warning:
// CHECK: proxyfence: 1 finding in 1 file
// FIXED:      {{^  }}s.tile[threadIdx.x] = 1.0f;
// FIXED-NEXT: {{^  }}asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
// FIXED-NEXT: {{^  }}__syncthreads();
// CLEAN: proxyfence: 0 findings in 1 file
