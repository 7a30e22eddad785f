// CuTe-style UMMA atoms on Blackwell (sm_100a): SM100_MMA_F16BF16_SS (A and
// B from smem descriptors), _TS (A from tensor memory), _2x1SM_SS
// (cta_group::2) and the SM100_UTCCP copy atom (tcgen05.cp), each issued by
// an elected thread inside the atom.
// REQUIRES: nvcc
// RUN: cp %s %t.cu
// RUN: not %proxyfence --arch=sm_100a %t.cu -- -I%S/Inputs 2>&1 | FileCheck %s
// RUN: %proxyfence --arch=sm_100a --fix --quiet %t.cu -- -I%S/Inputs
// RUN: FileCheck --check-prefix=FIXED --input-file=%t.cu %s
// RUN: cp %t.cu %t.again.cu
// RUN: %proxyfence --arch=sm_100a --fix --quiet %t.again.cu -- -I%S/Inputs
// RUN: cmp %t.cu %t.again.cu
// RUN: %proxyfence --arch=sm_100a %t.cu -- -I%S/Inputs 2>&1 | FileCheck --check-prefix=CLEAN %s
// RUN: %nvcc-sm100a -I%S/Inputs -cubin -o /dev/null %t.cu
#include "mini_cute.h"
#include <cuda_bf16.h>

__global__ void umma_ss(const __nv_bfloat16 *A, const __nv_bfloat16 *B,
                        const float *amax, uint32_t tmem_c, uint64_t idesc) {
  __shared__ alignas(1024) __nv_bfloat16 sA[128 * 16];
  __shared__ alignas(1024) __nv_bfloat16 sB[128 * 16];
  __shared__ alignas(128) uint8_t sSF[128 * 32];
  for (int i = threadIdx.x; i < 128 * 16; i += blockDim.x) {
    sA[i] = A[i];
    sB[i] = B[i];
  }
  for (int i = threadIdx.x; i < 128 * 32; i += blockDim.x)
    sSF[i] = static_cast<uint8_t>(amax[i]);
  __syncthreads();
  if (threadIdx.x / 32 == 0) {
    cute::GmmaDescriptor desc_a = cute::make_gmma_desc(sA, 128, 256);
    cute::GmmaDescriptor desc_b = cute::make_gmma_desc(sB, 128, 256);
    cute::SM100_UTCCP_128dp256bit_1cta::copy(cute::make_gmma_desc(sSF, 16, 256),
                                             tmem_c + 256);
    cute::SM100_MMA_F16BF16_SS::fma(desc_a, desc_b, tmem_c, 0, idesc);
  }
}

// A in tensor memory: sA is staging for something else and is no operand.
__global__ void umma_ts(const __nv_bfloat16 *A, const __nv_bfloat16 *B,
                        uint32_t tmem_a, uint32_t tmem_c, uint64_t idesc,
                        float *Out) {
  __shared__ alignas(1024) __nv_bfloat16 sA[128 * 16];
  __shared__ alignas(1024) __nv_bfloat16 sB[128 * 16];
  for (int i = threadIdx.x; i < 128 * 16; i += blockDim.x) {
    sA[i] = A[i];
    sB[i] = B[i];
  }
  __syncthreads();
  if (threadIdx.x / 32 == 0) {
    cute::GmmaDescriptor desc_b = cute::make_gmma_desc(sB, 128, 256);
    cute::SM100_MMA_F16BF16_TS::fma(tmem_a, desc_b, tmem_c, 1, idesc);
  }
  Out[threadIdx.x] = __bfloat162float(sA[threadIdx.x]);
}

// The pair's MMA after a cluster barrier.
__global__ void __cluster_dims__(2, 1, 1)
umma_pair(const __nv_bfloat16 *A, const __nv_bfloat16 *B, uint32_t tmem_c,
          uint64_t idesc) {
  __shared__ alignas(1024) __nv_bfloat16 sA[128 * 16];
  __shared__ alignas(1024) __nv_bfloat16 sB[64 * 16];
  for (int i = threadIdx.x; i < 128 * 16; i += blockDim.x)
    sA[i] = A[i];
  for (int i = threadIdx.x; i < 64 * 16; i += blockDim.x)
    sB[i] = B[i];
  asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
  asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
  uint32_t rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  if (rank % 2 == 0 && threadIdx.x / 32 == 0) {
    cute::GmmaDescriptor desc_a = cute::make_gmma_desc(sA, 128, 256);
    cute::GmmaDescriptor desc_b = cute::make_gmma_desc(sB, 128, 256);
    cute::SM100_MMA_F16BF16_2x1SM_SS::fma(desc_a, desc_b, tmem_c, 0, idesc);
  }
}

// CHECK: cute-umma.cu.tmp.cu:33:5: warning: tcgen05.cp reads shared memory 'sSF' as an operand, written through the generic proxy with no fence.proxy.async on the path [proxyfence-mma-operand]
// CHECK: mini_cute.h:{{[0-9]+}}:5: note: tcgen05.cp issued here, inside 'copy'
// CHECK: :28:5: note: generic-proxy write to 'sSF' here
// CHECK: :29:3: note: insert 'cutlass::arch::fence_view_async_shared();' here
// CHECK: cute-umma.cu.tmp.cu:35:5: warning: tcgen05.mma reads shared memory 'sA' or 'sB' as an operand, written through the generic proxy with no fence.proxy.async on the path [proxyfence-mma-operand]
// CHECK: mini_cute.h:{{[0-9]+}}:7: note: tcgen05.mma issued here, inside 'fma'
// CHECK: :24:5: note: generic-proxy write to 'sA' here
// CHECK: :25:5: note: generic-proxy write to 'sB' here
// CHECK: :29:3: note: insert 'cutlass::arch::fence_view_async_shared();' here
// CHECK: cute-umma.cu.tmp.cu:52:5: warning: tcgen05.mma reads shared memory 'sB' as an operand, written through the generic proxy with no fence.proxy.async on the path [proxyfence-mma-operand]
// CHECK-NOT: 'sA'
// CHECK: :47:5: note: generic-proxy write to 'sB' here
// CHECK-NOT: 'sA'
// CHECK: :49:3: note: insert 'cutlass::arch::fence_view_async_shared();' here
// CHECK: cute-umma.cu.tmp.cu:74:5: warning: tcgen05.mma reads shared memory 'sA' or 'sB' as an operand
// CHECK: :64:5: note: generic-proxy write to 'sA' here
// CHECK: :66:5: note: generic-proxy write to 'sB' here
// CHECK: :67:3: note: this barrier orders threads, not proxies; insert the fence before it
// CHECK: :67:3: note: insert 'cutlass::arch::fence_view_async_shared();' here
// CHECK: proxyfence: 4 findings in 1 file

// FIXED:      sSF[i] = static_cast<uint8_t>(amax[i]);
// FIXED-NEXT: {{^  }}cutlass::arch::fence_view_async_shared();
// FIXED-NEXT: {{^  }}__syncthreads();
// FIXED:      sB[i] = B[i];
// FIXED-NEXT: {{^  }}}
// FIXED-NEXT: {{^  }}cutlass::arch::fence_view_async_shared();
// FIXED-NEXT: {{^  }}__syncthreads();
// FIXED:      sB[i] = B[i];
// FIXED-NEXT: {{^  }}cutlass::arch::fence_view_async_shared();
// FIXED-NEXT: {{^  }}asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");

// CLEAN: proxyfence: 0 findings in 1 file
