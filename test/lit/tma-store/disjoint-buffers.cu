// The generic writes and the TMA store touch different buffers: no hazard.
// Beside it, the same kernel storing the buffer it wrote is reported.
// REQUIRES: nvcc
// RUN: cp %s %t.cu
// RUN: not %proxyfence %t.cu 2>&1 | FileCheck %s
// RUN: %proxyfence --fix --quiet %t.cu
// RUN: FileCheck --check-prefix=FIXED --input-file=%t.cu %s
// RUN: %nvcc-sm90a -cubin -o /dev/null %t.cu
#include <cuda.h>
#include <cstdint>

__device__ __forceinline__ void tma_store(const CUtensorMap *tmap, const void *src) {
  uint32_t smem = static_cast<uint32_t>(__cvta_generic_to_shared(src));
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];"
               :: "l"(tmap), "r"(smem), "r"(0), "r"(0) : "memory");
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}

// tileB was filled (and fenced) by an earlier phase; this one writes tileA.
__global__ void disjoint(const __grid_constant__ CUtensorMap tmap, const float *in) {
  __shared__ alignas(128) float tileA[1024];
  __shared__ alignas(128) float tileB[1024];
  for (int i = threadIdx.x; i < 1024; i += blockDim.x)
    tileB[i] = in[i];
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  for (int i = threadIdx.x; i < 1024; i += blockDim.x)
    tileA[i] = tileB[i] * 2.0f;
  __syncthreads();
  if (threadIdx.x == 0)
    tma_store(&tmap, tileB);
}

// Same shape, but the store reads tileA, which was just written.
__global__ void same_buffer(const __grid_constant__ CUtensorMap tmap, const float *in) {
  __shared__ alignas(128) float tileA[1024];
  __shared__ alignas(128) float tileB[1024];
  for (int i = threadIdx.x; i < 1024; i += blockDim.x)
    tileB[i] = in[i];
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  for (int i = threadIdx.x; i < 1024; i += blockDim.x)
    tileA[i] = tileB[i] * 2.0f;
  __syncthreads();
  if (threadIdx.x == 0)
    tma_store(&tmap, tileA);
}
// CHECK-NOT: warning:
// CHECK: disjoint-buffers.cu.tmp.cu:46:5: warning: TMA store reads shared memory 'tileA' written through the generic proxy with no fence.proxy.async on the path [proxyfence-tma-store]
// CHECK: :43:5: note: generic-proxy write to 'tileA' here
// CHECK: :44:3: note: insert 'asm volatile("fence.proxy.async.shared::cta;" ::: "memory");' here
// CHECK-NOT: warning:
// CHECK: proxyfence: 1 finding in 1 file

// FIXED:      {{^    }}tileA[i] = tileB[i] * 2.0f;
// FIXED-NEXT: {{^  }}__syncthreads();
// FIXED-NEXT: {{^  }}if (threadIdx.x == 0)
// FIXED-NEXT: {{^    }}tma_store(&tmap, tileB);
// FIXED:      {{^    }}tileA[i] = tileB[i] * 2.0f;
// FIXED-NEXT: {{^  }}asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
// FIXED-NEXT: {{^  }}__syncthreads();
// FIXED-NEXT: {{^  }}if (threadIdx.x == 0)
// FIXED-NEXT: {{^    }}tma_store(&tmap, tileA);
