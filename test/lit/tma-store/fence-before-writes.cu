// A fence that runs before the writes does not order them: in a loop, the
// fence at the top of the body precedes this iteration's writes, so the
// store still reads unfenced data (the TransformerEngine PR 2695 shape).
// REQUIRES: nvcc
// RUN: cp %s %t.cu
// RUN: not %proxyfence %t.cu 2>&1 | FileCheck %s
// RUN: %proxyfence --fix --quiet %t.cu
// RUN: FileCheck --check-prefix=FIXED --input-file=%t.cu %s
// RUN: %proxyfence %t.cu 2>&1 | FileCheck --check-prefix=CLEAN %s
// RUN: %nvcc-sm90a -cubin -o /dev/null %t.cu
#include <cuda.h>
#include <cstdint>

__device__ __forceinline__ void tma_store(const CUtensorMap *tmap, const void *src, int x) {
  uint32_t smem = static_cast<uint32_t>(__cvta_generic_to_shared(src));
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];"
               :: "l"(tmap), "r"(smem), "r"(x), "r"(0) : "memory");
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}

__global__ void too_early(const __grid_constant__ CUtensorMap tmap, const float *in, int n) {
  __shared__ alignas(128) float tile[1024];
  for (int k = 0; k < n; ++k) {
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    for (int i = threadIdx.x; i < 1024; i += blockDim.x)
      tile[i] = in[k * 1024 + i];
    __syncthreads();
    if (threadIdx.x == 0) {
      tma_store(&tmap, tile, k * 32);
      asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
    }
    __syncthreads();
  }
}

// The same loop with the fence after the writes is correct.
__global__ void in_place(const __grid_constant__ CUtensorMap tmap, const float *in, int n) {
  __shared__ alignas(128) float tile[1024];
  for (int k = 0; k < n; ++k) {
    for (int i = threadIdx.x; i < 1024; i += blockDim.x)
      tile[i] = in[k * 1024 + i];
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    if (threadIdx.x == 0) {
      tma_store(&tmap, tile, k * 32);
      asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
    }
    __syncthreads();
  }
}
// CHECK: fence-before-writes.cu.tmp.cu:29:7: warning: TMA store reads shared memory 'tile' written through the generic proxy with no fence.proxy.async on the path [proxyfence-tma-store]
// CHECK: :26:7: note: generic-proxy write to 'tile' here
// CHECK: :27:5: note: this barrier orders threads, not proxies; insert the fence before it
// CHECK: :27:5: note: insert 'asm volatile("fence.proxy.async.shared::cta;" ::: "memory");' here
// CHECK-NOT: warning:
// CHECK: proxyfence: 1 finding in 1 file

// The old fence stays; the new one goes after the writes, inside the loop.
// FIXED:      {{^    }}asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
// FIXED-NEXT: {{^    }}for (int i = threadIdx.x; i < 1024; i += blockDim.x)
// FIXED-NEXT: {{^      }}tile[i] = in[k * 1024 + i];
// FIXED-NEXT: {{^    }}asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
// FIXED-NEXT: {{^    }}__syncthreads();

// CLEAN: proxyfence: 0 findings in 1 file
