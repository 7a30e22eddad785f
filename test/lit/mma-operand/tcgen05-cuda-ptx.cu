// Blackwell through the cuda::ptx wrappers of libcu++ (tcgen05_mma,
// tcgen05_mma_tmem_a, tcgen05_cp_128x256b, tcgen05_commit): the analysis
// reads the asm in their bodies. The fix is spelled as the file spells
// fences (cuda::ptx) and needs no include.
// REQUIRES: nvcc
// RUN: cp %s %t.cu
// RUN: not %proxyfence --arch=sm_100a %t.cu 2>&1 | FileCheck %s
// RUN: %proxyfence --arch=sm_100a --fix --quiet %t.cu
// RUN: FileCheck --check-prefix=FIXED --input-file=%t.cu %s
// RUN: cp %t.cu %t.again.cu
// RUN: %proxyfence --arch=sm_100a --fix --quiet %t.again.cu
// RUN: cmp %t.cu %t.again.cu
// RUN: %proxyfence --arch=sm_100a %t.cu 2>&1 | FileCheck --check-prefix=CLEAN %s
// RUN: %nvcc-sm100a -cubin -o /dev/null %t.cu
#include <cuda/ptx>
#include <cuda_bf16.h>
#include <cstdint>

namespace ptx = cuda::ptx;

__device__ __forceinline__ uint64_t smem_desc(const void *smem) {
  uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(smem));
  return ((addr & 0x3FFFF) >> 4) | (uint64_t(128 >> 4) << 16) |
         (uint64_t(256 >> 4) << 32) | (uint64_t(1) << 46);
}

// A and B from shared memory; the scale factors copied with tcgen05.cp.
__global__ void gemm_ss(const __nv_bfloat16 *A, const __nv_bfloat16 *B,
                        const float *amax, uint32_t tmem_d, uint32_t idesc) {
  __shared__ alignas(1024) __nv_bfloat16 sA[128 * 16];
  __shared__ alignas(1024) __nv_bfloat16 sB[128 * 16];
  __shared__ alignas(128) uint8_t sSF[128 * 32];
  __shared__ alignas(8) uint64_t done;
  if (threadIdx.x == 0)
    ptx::mbarrier_init(&done, 1);
  for (int i = threadIdx.x; i < 128 * 16; i += blockDim.x) {
    sA[i] = A[i];
    sB[i] = B[i];
  }
  for (int i = threadIdx.x; i < 128 * 32; i += blockDim.x)
    sSF[i] = static_cast<uint8_t>(amax[i]);
  __syncthreads();
  if (threadIdx.x == 0) {
    ptx::tcgen05_cp_128x256b(ptx::cta_group_1, tmem_d + 256, smem_desc(sSF));
    ptx::tcgen05_mma(ptx::kind_f16, ptx::cta_group_1, tmem_d, smem_desc(sA),
                     smem_desc(sB), idesc, false);
    ptx::tcgen05_commit(ptx::cta_group_1, &done);
  }
}

// A from tensor memory: sA is not read by the MMA, sB is.
__global__ void gemm_ts(const __nv_bfloat16 *A, const __nv_bfloat16 *B,
                        uint32_t tmem_d, uint32_t tmem_a, uint32_t idesc,
                        float *Out) {
  __shared__ alignas(1024) __nv_bfloat16 sA[128 * 16];
  __shared__ alignas(1024) __nv_bfloat16 sB[128 * 16];
  for (int i = threadIdx.x; i < 128 * 16; i += blockDim.x) {
    sA[i] = A[i];
    sB[i] = B[i];
  }
  __syncthreads();
  if (threadIdx.x == 0)
    ptx::tcgen05_mma_tmem_a(ptx::kind_f16, ptx::cta_group_1, tmem_d, tmem_a,
                            smem_desc(sB), idesc, true);
  Out[threadIdx.x] = __bfloat162float(sA[threadIdx.x]);
}

// Already fenced (convention 2: the issuing thread, after the barrier).
__global__ void gemm_fenced(const __nv_bfloat16 *A, const __nv_bfloat16 *B,
                            uint32_t tmem_d, uint32_t idesc) {
  __shared__ alignas(1024) __nv_bfloat16 sA[128 * 16];
  __shared__ alignas(1024) __nv_bfloat16 sB[128 * 16];
  for (int i = threadIdx.x; i < 128 * 16; i += blockDim.x) {
    sA[i] = A[i];
    sB[i] = B[i];
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    ptx::fence_proxy_async(ptx::space_shared);
    ptx::tcgen05_mma(ptx::kind_f16, ptx::cta_group_2, tmem_d, smem_desc(sA),
                     smem_desc(sB), idesc, false);
  }
}
// CHECK: tcgen05-cuda-ptx.cu.tmp.cu:44:5: warning: tcgen05.cp reads shared memory 'sSF' as an operand, written through the generic proxy with no fence.proxy.async on the path [proxyfence-mma-operand]
// CHECK: tcgen05_cp.h:{{[0-9]+}}:{{[0-9]+}}: note: tcgen05.cp issued here, inside 'tcgen05_cp_128x256b'
// CHECK: :41:5: note: generic-proxy write to 'sSF' here
// CHECK: :42:3: note: this barrier orders threads, not proxies; insert the fence before it
// CHECK: :42:3: note: insert 'cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);' here
// CHECK: tcgen05-cuda-ptx.cu.tmp.cu:45:5: warning: tcgen05.mma reads shared memory 'sA' or 'sB' as an operand, written through the generic proxy with no fence.proxy.async on the path [proxyfence-mma-operand]
// CHECK: tcgen05_mma.h:{{[0-9]+}}:{{[0-9]+}}: note: tcgen05.mma issued here, inside 'tcgen05_mma'
// CHECK: :37:5: note: generic-proxy write to 'sA' here
// CHECK: :38:5: note: generic-proxy write to 'sB' here
// CHECK: :42:3: note: insert 'cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);' here
// CHECK: tcgen05-cuda-ptx.cu.tmp.cu:63:5: warning: tcgen05.mma reads shared memory 'sB' as an operand, written through the generic proxy with no fence.proxy.async on the path [proxyfence-mma-operand]
// CHECK: tcgen05_mma.h:{{[0-9]+}}:{{[0-9]+}}: note: tcgen05.mma issued here, inside 'tcgen05_mma_tmem_a'
// CHECK-NOT: 'sA'
// CHECK: :59:5: note: generic-proxy write to 'sB' here
// CHECK: :61:3: note: insert 'cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);' here
// CHECK-NOT: warning:
// CHECK: proxyfence: 3 findings in 1 file

// FIXED:      #include <cuda/ptx>
// FIXED-NOT:  #include <cuda/ptx>
// FIXED:      sSF[i] = static_cast<uint8_t>(amax[i]);
// FIXED-NEXT: {{^  }}cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
// FIXED-NEXT: {{^  }}__syncthreads();
// FIXED:      sB[i] = B[i];
// FIXED-NEXT: {{^  }}}
// FIXED-NEXT: {{^  }}cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
// FIXED-NEXT: {{^  }}__syncthreads();
// FIXED-NEXT: if (threadIdx.x == 0)
// FIXED-NEXT: ptx::tcgen05_mma_tmem_a

// CLEAN: proxyfence: 0 findings in 1 file
