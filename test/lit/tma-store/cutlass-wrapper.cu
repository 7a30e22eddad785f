// CUTLASS/CuTe-style code: the TMA store is a copy atom whose body is raw
// inline asm in a (local) header; the fence is spelled as CUTLASS spells it.
// REQUIRES: nvcc
// RUN: rm -rf %t && mkdir -p %t
// RUN: cp %S/Inputs/mini_cutlass.h %S/Inputs/mini_cutlass_config.h %t/ && cp %s %t/k.cu
// RUN: not %proxyfence %t/k.cu 2>&1 | FileCheck %s
// RUN: %proxyfence --fix --quiet %t/k.cu
// RUN: FileCheck --check-prefix=FIXED --input-file=%t/k.cu %s
// RUN: grep '^ *cutlass::arch::fence_view_async_shared' %t/k.cu | count 2
// The header is project code, but nothing in it needed a fix.
// RUN: cmp %S/Inputs/mini_cutlass.h %t/mini_cutlass.h
// RUN: %proxyfence %t/k.cu 2>&1 | FileCheck --check-prefix=CLEAN %s
// RUN: %nvcc-sm90a -cubin -o /dev/null %t/k.cu
#include <cuda.h>
#include "mini_cutlass.h"

__global__ void epilogue(const __grid_constant__ CUtensorMap tmap, float alpha) {
  __shared__ alignas(128) float smem_c[64 * 64];
  for (int i = threadIdx.x; i < 64 * 64; i += blockDim.x)
    smem_c[i] = alpha * i;
  __syncthreads();
  if (threadIdx.x == 0) {
    cute::SM90_TMA_STORE_2D::copy(&tmap, smem_c, 0, 0);
    cute::tma_store_arrive();
  }
}

// The CUTLASS epilogue's own order: every writer fences, then the block syncs.
__global__ void fenced(const __grid_constant__ CUtensorMap tmap, float alpha) {
  __shared__ alignas(128) float smem_c[64 * 64];
  for (int i = threadIdx.x; i < 64 * 64; i += blockDim.x)
    smem_c[i] = alpha * i;
  cutlass::arch::fence_view_async_shared();
  __syncthreads();
  if (threadIdx.x == 0) {
    cute::SM90_TMA_STORE_2D::copy(&tmap, smem_c, 0, 0);
    cute::tma_store_arrive();
  }
}
// CHECK: k.cu:23:5: warning: TMA store reads shared memory 'smem_c' written through the generic proxy with no fence.proxy.async on the path [proxyfence-tma-store]
// CHECK: mini_cutlass.h:{{[0-9]+}}:5: note: TMA store issued here, inside 'copy'
// CHECK: k.cu:20:5: note: generic-proxy write to 'smem_c' here
// CHECK: k.cu:21:3: note: this barrier orders threads, not proxies; insert the fence before it
// CHECK: k.cu:21:3: note: insert 'cutlass::arch::fence_view_async_shared();' here
// CHECK-NOT: warning:
// CHECK: proxyfence: 1 finding in 1 file

// FIXED:      smem_c[i] = alpha * i;
// FIXED-NEXT: {{^  }}cutlass::arch::fence_view_async_shared();
// FIXED-NEXT: {{^  }}__syncthreads();
// FIXED-NEXT: {{^  }}if (threadIdx.x == 0) {
// FIXED-NEXT: {{^    }}cute::SM90_TMA_STORE_2D::copy(&tmap, smem_c, 0, 0);

// CLEAN: proxyfence: 0 findings in 1 file
