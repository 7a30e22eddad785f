// `extern __shared__` arrays all start at the dynamic shared-memory base, so
// a write through one and a store through another are the same memory.
// REQUIRES: nvcc
// RUN: cp %s %t.cu
// RUN: not %proxyfence %t.cu 2>&1 | FileCheck %s
// RUN: %proxyfence --fix --quiet %t.cu
// RUN: FileCheck --check-prefix=FIXED --input-file=%t.cu %s
// RUN: %proxyfence %t.cu 2>&1 | FileCheck --check-prefix=CLEAN %s
// RUN: %nvcc-sm90a -cubin -o /dev/null %t.cu
#include <cuda.h>
#include <cstdint>

__device__ __forceinline__ void tma_store(const CUtensorMap *tmap, const void *src) {
  uint32_t smem = static_cast<uint32_t>(__cvta_generic_to_shared(src));
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];"
               :: "l"(tmap), "r"(smem), "r"(0), "r"(0) : "memory");
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}

// Written through a typed view of the raw buffer.
__global__ void typed_view(const __grid_constant__ CUtensorMap tmap, float v) {
  extern __shared__ __align__(128) unsigned char smem_raw[];
  float *tile = reinterpret_cast<float *>(smem_raw);
  for (int i = threadIdx.x; i < 1024; i += blockDim.x)
    tile[i] = v;
  __syncthreads();
  if (threadIdx.x == 0)
    tma_store(&tmap, smem_raw);
}

// Two extern declarations name the same bytes.
__global__ void two_names(const __grid_constant__ CUtensorMap tmap, float v) {
  extern __shared__ __align__(128) float dsm_a[];
  extern __shared__ __align__(128) float dsm_b[];
  dsm_a[threadIdx.x] = v;
  __syncthreads();
  if (threadIdx.x == 0)
    tma_store(&tmap, dsm_b);
}

// Fenced: nothing to report.
__global__ void fenced(const __grid_constant__ CUtensorMap tmap, float v) {
  extern __shared__ __align__(128) float dsm[];
  dsm[threadIdx.x] = v;
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (threadIdx.x == 0)
    tma_store(&tmap, dsm);
}

// The store reads a static buffer, not the dynamic one that was written.
__global__ void static_store(const __grid_constant__ CUtensorMap tmap, float v) {
  extern __shared__ __align__(128) float dsm[];
  __shared__ alignas(128) float tile[1024];
  dsm[threadIdx.x] = v;
  __syncthreads();
  if (threadIdx.x == 0)
    tma_store(&tmap, tile);
}
// CHECK: dynamic-shared.cu.tmp.cu:28:5: warning: TMA store reads dynamic shared memory written through the generic proxy with no fence.proxy.async on the path [proxyfence-tma-store]
// CHECK: :25:5: note: generic-proxy write to dynamic shared memory here
// CHECK: :26:3: note: insert 'asm volatile("fence.proxy.async.shared::cta;" ::: "memory");' here
// CHECK-NOT: warning:
// CHECK: dynamic-shared.cu.tmp.cu:38:5: warning: TMA store reads dynamic shared memory written through the generic proxy with no fence.proxy.async on the path [proxyfence-tma-store]
// CHECK: :35:3: note: generic-proxy write to dynamic shared memory here
// CHECK: :36:3: note: insert 'asm volatile("fence.proxy.async.shared::cta;" ::: "memory");' here
// CHECK-NOT: warning:
// CHECK: proxyfence: 2 findings in 1 file

// FIXED:      {{^    }}tile[i] = v;
// FIXED-NEXT: {{^  }}asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
// FIXED-NEXT: {{^  }}__syncthreads();
// FIXED:      {{^  }}dsm_a[threadIdx.x] = v;
// FIXED-NEXT: {{^  }}asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
// FIXED-NEXT: {{^  }}__syncthreads();
// FIXED:      {{^  }}dsm[threadIdx.x] = v;
// FIXED-NEXT: {{^  }}asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
// FIXED-NEXT: {{^  }}__syncthreads();
// FIXED:      {{^  }}dsm[threadIdx.x] = v;
// FIXED-NEXT: {{^  }}__syncthreads();

// CLEAN: proxyfence: 0 findings in 1 file
