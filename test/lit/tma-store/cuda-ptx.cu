// libcu++ spelling: the TMA store is cuda::ptx::cp_async_bulk_tensor, so the
// fence is spelled cuda::ptx::fence_proxy_async(cuda::ptx::space_shared).
// REQUIRES: nvcc
// RUN: cp %s %t.cu
// RUN: not %proxyfence %t.cu 2>&1 | FileCheck %s
// RUN: %proxyfence --fix --quiet %t.cu
// RUN: FileCheck --check-prefix=FIXED --input-file=%t.cu %s
// RUN: grep '^ *cuda::ptx::fence_proxy_async' %t.cu | count 2
// RUN: %proxyfence %t.cu 2>&1 | FileCheck --check-prefix=CLEAN %s
// RUN: %nvcc-sm90a -cubin -o /dev/null %t.cu
#include <cuda.h>
#include <cuda/ptx>
#include <cstdint>

__global__ void epilogue(const __grid_constant__ CUtensorMap tmap, float bias) {
  __shared__ alignas(128) float tile[32][32];
  for (int i = threadIdx.x; i < 32 * 32; i += blockDim.x)
    tile[i / 32][i % 32] = bias * i;
  __syncthreads();
  if (threadIdx.x == 0) {
    int32_t coords[2] = {0, 0};
    cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_global, cuda::ptx::space_shared,
                                    &tmap, coords, &tile[0][0]);
    cuda::ptx::cp_async_bulk_commit_group();
  }
}

// Already fenced with the same spelling: nothing to report.
__global__ void fenced(const __grid_constant__ CUtensorMap tmap, float bias) {
  __shared__ alignas(128) float tile[32][32];
  for (int i = threadIdx.x; i < 32 * 32; i += blockDim.x)
    tile[i / 32][i % 32] = bias * i;
  cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
  __syncthreads();
  if (threadIdx.x == 0) {
    int32_t coords[2] = {0, 0};
    cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_global, cuda::ptx::space_shared,
                                    &tmap, coords, &tile[0][0]);
    cuda::ptx::cp_async_bulk_commit_group();
  }
}
// CHECK: cuda-ptx.cu.tmp.cu:22:5: warning: TMA store reads shared memory 'tile' written through the generic proxy with no fence.proxy.async on the path [proxyfence-tma-store]
// CHECK: cuda/__ptx/instructions/generated/cp_async_bulk_tensor.h:{{[0-9]+}}:{{[0-9]+}}: note: TMA store issued here, inside 'cp_async_bulk_tensor'
// CHECK: :18:5: note: generic-proxy write to 'tile' here
// CHECK: :19:3: note: this barrier orders threads, not proxies; insert the fence before it
// CHECK: :19:3: note: insert 'cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);' here
// CHECK-NOT: warning:
// CHECK: proxyfence: 1 finding in 1 file

// FIXED:      tile[i / 32][i % 32] = bias * i;
// FIXED-NEXT: {{^  }}cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
// FIXED-NEXT: {{^  }}__syncthreads();
// FIXED:      tile[i / 32][i % 32] = bias * i;
// FIXED-NEXT: {{^  }}cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
// FIXED-NEXT: {{^  }}__syncthreads();

// CLEAN: proxyfence: 0 findings in 1 file
