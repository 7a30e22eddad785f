// --arch=sm_100a analyses the Blackwell side of the file: here only that
// side lacks the fence. The fixed file is compiled for sm_100a.
// REQUIRES: nvcc
// RUN: cp %s %t.cu
// RUN: %proxyfence %t.cu 2>&1 | FileCheck --check-prefix=SM90 %s
// RUN: not %proxyfence --arch=sm_100a %t.cu 2>&1 | FileCheck %s
// RUN: %proxyfence --arch=sm_100a --fix --quiet %t.cu
// RUN: FileCheck --check-prefix=FIXED --input-file=%t.cu %s
// RUN: %proxyfence --arch=sm_100a %t.cu 2>&1 | FileCheck --check-prefix=CLEAN %s
// RUN: %nvcc-sm100a -cubin -o /dev/null %t.cu
// RUN: %nvcc-sm90a -cubin -o /dev/null %t.cu
#include <cuda.h>
#include <cstdint>

__global__ void epilogue(const __grid_constant__ CUtensorMap tmap, float v) {
  __shared__ alignas(128) float tile[1024];
  for (int i = threadIdx.x; i < 1024; i += blockDim.x)
    tile[i] = v;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 1000
  __syncthreads();
#else
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
#endif
  if (threadIdx.x == 0) {
    uint32_t smem = static_cast<uint32_t>(__cvta_generic_to_shared(tile));
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];"
                 :: "l"(&tmap), "r"(smem), "r"(0), "r"(0) : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
  }
}
// SM90-NOT: warning:
// SM90: proxyfence: 0 findings in 1 file

// CHECK: sm100a.cu.tmp.cu:27:5: warning: TMA store reads shared memory 'tile' written through the generic proxy with no fence.proxy.async on the path [proxyfence-tma-store]
// CHECK: :18:5: note: generic-proxy write to 'tile' here
// CHECK: :20:3: note: this barrier orders threads, not proxies; insert the fence before it
// CHECK: :20:3: note: insert 'asm volatile("fence.proxy.async.shared::cta;" ::: "memory");' here
// CHECK-NOT: warning:
// CHECK: proxyfence: 1 finding in 1 file

// FIXED:      {{^#if defined\(__CUDA_ARCH__\) && __CUDA_ARCH__ >= 1000$}}
// FIXED-NEXT: {{^  }}asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
// FIXED-NEXT: {{^  }}__syncthreads();
// FIXED-NEXT: {{^#else$}}

// CLEAN: proxyfence: 0 findings in 1 file
