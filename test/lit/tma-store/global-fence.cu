// fence.proxy.async.global orders the global state space only: it does not
// order the shared-memory writes a TMA store reads, so the finding stays and
// the shared-memory fence is added.
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

__global__ void global_only(const __grid_constant__ CUtensorMap tmap, float v) {
  __shared__ alignas(128) float tile[1024];
  for (int i = threadIdx.x; i < 1024; i += blockDim.x)
    tile[i] = v;
  asm volatile("fence.proxy.async.global;" ::: "memory");
  __syncthreads();
  if (threadIdx.x == 0)
    tma_store(&tmap, tile);
}

// The issuer's fence is the global one too.
__global__ void issuer_global_only(const __grid_constant__ CUtensorMap tmap, float v) {
  __shared__ alignas(128) float tile[1024];
  for (int i = threadIdx.x; i < 1024; i += blockDim.x)
    tile[i] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("fence.proxy.async.global;" ::: "memory");
    tma_store(&tmap, tile);
  }
}

// Global and shared fences together: the shared one is what counts.
__global__ void both(const __grid_constant__ CUtensorMap tmap, float v) {
  __shared__ alignas(128) float tile[1024];
  for (int i = threadIdx.x; i < 1024; i += blockDim.x)
    tile[i] = v;
  asm volatile("fence.proxy.async.global;" ::: "memory");
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (threadIdx.x == 0)
    tma_store(&tmap, tile);
}
// CHECK: global-fence.cu.tmp.cu:28:5: warning: TMA store reads shared memory 'tile' written through the generic proxy with no fence.proxy.async on the path [proxyfence-tma-store]
// CHECK: :24:5: note: generic-proxy write to 'tile' here
// CHECK: :26:3: note: this barrier orders threads, not proxies; insert the fence before it
// CHECK: :26:3: note: insert 'asm volatile("fence.proxy.async.shared::cta;" ::: "memory");' here
// CHECK-NOT: warning:
// CHECK: global-fence.cu.tmp.cu:39:5: warning: TMA store reads shared memory 'tile' written through the generic proxy with no fence.proxy.async on the path [proxyfence-tma-store]
// CHECK: :35:5: note: generic-proxy write to 'tile' here
// CHECK: :36:3: note: insert 'asm volatile("fence.proxy.async.shared::cta;" ::: "memory");' here
// CHECK-NOT: warning:
// CHECK: proxyfence: 2 findings in 1 file

// FIXED:      {{^  }}asm volatile("fence.proxy.async.global;" ::: "memory");
// FIXED-NEXT: {{^  }}asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
// FIXED-NEXT: {{^  }}__syncthreads();
// FIXED:      {{^    }}tile[i] = v;
// FIXED-NEXT: {{^  }}asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
// FIXED-NEXT: {{^  }}__syncthreads();
// FIXED-NEXT: {{^  }}if (threadIdx.x == 0) {
// FIXED-NEXT: {{^    }}asm volatile("fence.proxy.async.global;" ::: "memory");
// FIXED-NEXT: {{^    }}tma_store(&tmap, tile);

// CLEAN: proxyfence: 0 findings in 1 file
