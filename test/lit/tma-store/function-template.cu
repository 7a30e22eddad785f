// Writes in a function template, and a kernel template instantiated twice:
// one warning and one fence per place in the source, not per instantiation.
// REQUIRES: nvcc
// RUN: cp %s %t.cu
// RUN: not %proxyfence %t.cu 2>&1 | FileCheck %s
// RUN: %proxyfence --fix --quiet %t.cu
// RUN: FileCheck --check-prefix=FIXED --input-file=%t.cu %s
// RUN: grep -c '^ *asm volatile("fence.proxy.async' %t.cu | FileCheck --check-prefix=COUNT %s
// RUN: %proxyfence %t.cu 2>&1 | FileCheck --check-prefix=CLEAN %s
// RUN: %nvcc-sm90a -cubin -o /dev/null %t.cu
#include <cuda.h>
#include <cstdint>

__device__ void tma_store(const CUtensorMap *tmap, const void *src) {
  uint32_t smem = static_cast<uint32_t>(__cvta_generic_to_shared(src));
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];"
               :: "l"(tmap), "r"(smem), "r"(0), "r"(0) : "memory");
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}

template <int N>
__device__ void fill(float (&dst)[N], float v) {
  for (int i = threadIdx.x; i < N; i += blockDim.x)
    dst[i] = v * i;
}

__global__ void via_template_helper(const __grid_constant__ CUtensorMap tmap, float v) {
  __shared__ alignas(128) float tile[1024];
  fill(tile, v);
  __syncthreads();
  if (threadIdx.x == 0)
    tma_store(&tmap, tile);
}

template <typename T>
__global__ void templated(const __grid_constant__ CUtensorMap tmap, T v) {
  __shared__ alignas(128) T tile[1024];
  for (int i = threadIdx.x; i < 1024; i += blockDim.x)
    tile[i] = v;
  __syncthreads();
  if (threadIdx.x == 0)
    tma_store(&tmap, tile);
}
template __global__ void templated<float>(const __grid_constant__ CUtensorMap, float);
template __global__ void templated<int>(const __grid_constant__ CUtensorMap, int);

// Never instantiated: analysed as written (test/lit/templates has more).
template <typename T>
__global__ void uninstantiated(const __grid_constant__ CUtensorMap tmap, T v) {
  __shared__ alignas(128) T tile[1024];
  tile[threadIdx.x] = v;
  __syncthreads();
  if (threadIdx.x == 0)
    tma_store(&tmap, tile);
}
// CHECK: function-template.cu.tmp.cu:32:5: warning: TMA store reads shared memory 'tile' written through the generic proxy with no fence.proxy.async on the path [proxyfence-tma-store]
// CHECK: :24:5: note: generic-proxy write to 'tile' here
// CHECK: :29:3: note: inside 'fill', called here
// CHECK: :30:3: note: insert 'asm volatile("fence.proxy.async.shared::cta;" ::: "memory");' here
// CHECK-NOT: warning:
// CHECK: function-template.cu.tmp.cu:42:5: warning: TMA store reads shared memory 'tile' written through the generic proxy with no fence.proxy.async on the path [proxyfence-tma-store]
// CHECK: :39:5: note: generic-proxy write to 'tile' here
// CHECK: :40:3: note: insert 'asm volatile("fence.proxy.async.shared::cta;" ::: "memory");' here
// CHECK: function-template.cu.tmp.cu:54:5: warning: TMA store reads shared memory 'tile' written through the generic proxy with no fence.proxy.async on the path [proxyfence-tma-store]
// CHECK: :51:3: note: generic-proxy write to 'tile' here
// CHECK-NOT: warning:
// CHECK: proxyfence: 3 findings in 1 file

// FIXED:      {{^  }}fill(tile, v);
// FIXED-NEXT: {{^  }}asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
// FIXED-NEXT: {{^  }}__syncthreads();
// FIXED:      {{^    }}tile[i] = v;
// FIXED-NEXT: {{^  }}asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
// FIXED-NEXT: {{^  }}__syncthreads();
// FIXED:      {{^  }}tile[threadIdx.x] = v;
// FIXED-NEXT: {{^  }}asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
// FIXED-NEXT: {{^  }}__syncthreads();

// COUNT: {{^}}3{{$}}

// CLEAN: proxyfence: 0 findings in 1 file
