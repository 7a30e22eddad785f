// Deprecated libcu++ TMA wrappers from <cuda/barrier>: the fence is spelled
// cuda::device::experimental::fence_proxy_async_shared_cta().
// REQUIRES: nvcc
// RUN: cp %s %t.cu
// RUN: not %proxyfence %t.cu 2>&1 | FileCheck %s
// RUN: %proxyfence --fix --quiet %t.cu
// RUN: FileCheck --check-prefix=FIXED --input-file=%t.cu %s
// RUN: grep '^ *cuda::device::experimental::fence_proxy_async_shared_cta' %t.cu | count 2
// RUN: %proxyfence %t.cu 2>&1 | FileCheck --check-prefix=CLEAN %s
// RUN: %nvcc-sm90a -cubin -o /dev/null %t.cu
#include <cuda.h>
#include <cuda/barrier>

namespace cde = cuda::device::experimental;

__global__ void epilogue(const __grid_constant__ CUtensorMap tmap, float bias) {
  __shared__ alignas(128) float tile[32][32];
  for (int i = threadIdx.x; i < 32 * 32; i += blockDim.x)
    tile[i / 32][i % 32] = bias * i;
  __syncthreads();
  if (threadIdx.x == 0) {
    cuda::device::experimental::cp_async_bulk_tensor_2d_shared_to_global(&tmap, 0, 0, &tile[0][0]);
    cuda::device::experimental::cp_async_bulk_commit_group();
    cuda::device::experimental::cp_async_bulk_wait_group_read<0>();
  }
}

// Fenced by the writers with the same spelling (through a namespace alias).
__global__ void fenced(const __grid_constant__ CUtensorMap tmap, float bias) {
  __shared__ alignas(128) float tile[32][32];
  for (int i = threadIdx.x; i < 32 * 32; i += blockDim.x)
    tile[i / 32][i % 32] = bias * i;
  cde::fence_proxy_async_shared_cta();
  __syncthreads();
  if (threadIdx.x == 0) {
    cde::cp_async_bulk_tensor_2d_shared_to_global(&tmap, 0, 0, &tile[0][0]);
    cde::cp_async_bulk_commit_group();
  }
}

// A bulk (non-tensor) store through the same header, not fenced.
__global__ void bulk(float *out, float bias) {
  __shared__ alignas(128) float tile[256];
  tile[threadIdx.x] = bias;
  __syncthreads();
  if (threadIdx.x == 0) {
    cde::cp_async_bulk_shared_to_global(out, tile, sizeof(tile));
    cde::cp_async_bulk_commit_group();
  }
}
// CHECK: cuda-experimental.cu.tmp.cu:22:5: warning: TMA store reads shared memory 'tile' written through the generic proxy with no fence.proxy.async on the path [proxyfence-tma-store]
// CHECK: :19:5: note: generic-proxy write to 'tile' here
// CHECK: :20:3: note: this barrier orders threads, not proxies; insert the fence before it
// CHECK: :20:3: note: insert 'cuda::device::experimental::fence_proxy_async_shared_cta();' here
// CHECK-NOT: warning:
// CHECK: cuda-experimental.cu.tmp.cu:47:5: warning: bulk async store reads shared memory 'tile' written through the generic proxy with no fence.proxy.async on the path [proxyfence-tma-store]
// CHECK: :44:3: note: generic-proxy write to 'tile' here
// CHECK: :45:3: note: insert 'cuda::device::experimental::fence_proxy_async_shared_cta();' here
// CHECK-NOT: warning:
// CHECK: proxyfence: 2 findings in 1 file

// FIXED:      tile[i / 32][i % 32] = bias * i;
// FIXED-NEXT: {{^  }}cuda::device::experimental::fence_proxy_async_shared_cta();
// FIXED-NEXT: {{^  }}__syncthreads();
// FIXED:      cde::fence_proxy_async_shared_cta();
// FIXED-NEXT: {{^  }}__syncthreads();
// FIXED:      tile[threadIdx.x] = bias;
// FIXED-NEXT: {{^  }}cuda::device::experimental::fence_proxy_async_shared_cta();
// FIXED-NEXT: {{^  }}__syncthreads();

// CLEAN: proxyfence: 0 findings in 1 file
