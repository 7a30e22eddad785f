// The writes happen in a __device__ helper, the TMA store in another: the
// summaries of both carry the hazard to the kernel, and the fence goes into
// the kernel before its barrier.
// REQUIRES: nvcc
// RUN: cp %s %t.cu
// RUN: not %proxyfence %t.cu 2>&1 | FileCheck %s
// RUN: %proxyfence --fix --quiet %t.cu
// RUN: FileCheck --check-prefix=FIXED --input-file=%t.cu %s
// RUN: %proxyfence %t.cu 2>&1 | FileCheck --check-prefix=CLEAN %s
// RUN: %nvcc-sm90a -cubin -o /dev/null %t.cu
#include <cuda.h>
#include <cstdint>

__device__ void fill(float *dst, float v) {
  for (int i = threadIdx.x; i < 1024; i += blockDim.x)
    dst[i] = v * i;
}

// Writes and fences: callers see no pending write.
__device__ void fill_fenced(float *dst, float v) {
  for (int i = threadIdx.x; i < 1024; i += blockDim.x)
    dst[i] = v * i;
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

__device__ void tma_store(const CUtensorMap *tmap, const float *src) {
  uint32_t smem = static_cast<uint32_t>(__cvta_generic_to_shared(src));
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];"
               :: "l"(tmap), "r"(smem), "r"(0), "r"(0) : "memory");
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}

__global__ void via_helpers(const __grid_constant__ CUtensorMap tmap, float v) {
  __shared__ alignas(128) float tile[1024];
  fill(tile, v);
  __syncthreads();
  if (threadIdx.x == 0)
    tma_store(&tmap, tile);
}

__global__ void via_fenced_helper(const __grid_constant__ CUtensorMap tmap, float v) {
  __shared__ alignas(128) float tile[1024];
  fill_fenced(tile, v);
  __syncthreads();
  if (threadIdx.x == 0)
    tma_store(&tmap, tile);
}

// The helper writes one buffer, the store reads another.
__global__ void other_buffer(const __grid_constant__ CUtensorMap tmap, float v) {
  __shared__ alignas(128) float staging[1024];
  __shared__ alignas(128) float out[1024];
  fill(staging, v);
  __syncthreads();
  for (int i = threadIdx.x; i < 1024; i += blockDim.x)
    v += staging[i];
  if (threadIdx.x == 0)
    tma_store(&tmap, out);
}
// CHECK: helper-function.cu.tmp.cu:38:5: warning: TMA store reads shared memory 'tile' written through the generic proxy with no fence.proxy.async on the path [proxyfence-tma-store]
// CHECK: :28:3: note: TMA store issued here, inside 'tma_store'
// CHECK: :16:5: note: generic-proxy write to 'tile' here
// CHECK: :35:3: note: inside 'fill', called here
// CHECK: :36:3: note: this barrier orders threads, not proxies; insert the fence before it
// CHECK: :36:3: note: insert 'asm volatile("fence.proxy.async.shared::cta;" ::: "memory");' here
// CHECK-NOT: warning:
// CHECK: proxyfence: 1 finding in 1 file

// FIXED:      {{^  }}fill(tile, v);
// FIXED-NEXT: {{^  }}asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
// FIXED-NEXT: {{^  }}__syncthreads();
// FIXED:      {{^  }}fill_fenced(tile, v);
// FIXED-NEXT: {{^  }}__syncthreads();
// FIXED:      {{^  }}fill(staging, v);
// FIXED-NEXT: {{^  }}__syncthreads();

// CLEAN: proxyfence: 0 findings in 1 file
