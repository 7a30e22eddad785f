// CuTe-style GMMA atoms: the smem address reaches wgmma through
// cute::cast_smem_ptr_to_uint, the GmmaDescriptor union (bitfields written,
// the 64-bit word read by its conversion operator) and a const& parameter of
// the atom's static fma(). warpgroup_fence_operand() (an empty asm) and
// warpgroup_arrive() (wgmma.fence) order registers only: neither clears it.
// RUN: cp %s %t.cu
// RUN: not %proxyfence %t.cu -- -I%S/Inputs 2>&1 | FileCheck %s
// RUN: %proxyfence --fix --quiet %t.cu -- -I%S/Inputs
// RUN: FileCheck --check-prefix=FIXED --input-file=%t.cu %s
// RUN: cp %t.cu %t.again.cu
// RUN: %proxyfence --fix --quiet %t.again.cu -- -I%S/Inputs
// RUN: cmp %t.cu %t.again.cu
// RUN: %proxyfence %t.cu -- -I%S/Inputs 2>&1 | FileCheck --check-prefix=CLEAN %s
// RUN: %nvcc-sm90a -I%S/Inputs -cubin -o /dev/null %t.cu
#include "mini_cute.h"
#include <cuda_bf16.h>

// SS: both operands written by every thread, then read by the atom.
__global__ void cute_ss(const __nv_bfloat16 *A, const __nv_bfloat16 *B,
                        float scale, float *D) {
  __shared__ alignas(128) __nv_bfloat16 sA[64 * 16];
  __shared__ alignas(128) __nv_bfloat16 sB[16 * 64];
  for (int i = threadIdx.x; i < 64 * 16; i += blockDim.x)
    sA[i] = __float2bfloat16(__bfloat162float(A[i]) * scale);
  for (int i = threadIdx.x; i < 16 * 64; i += blockDim.x)
    sB[i] = B[i];
  __syncthreads();
  cute::GmmaDescriptor desc_a = cute::make_gmma_desc(sA, 128, 256);
  cute::GmmaDescriptor desc_b = cute::make_gmma_desc(sB, 128, 256);
  float d[32];
  for (int i = 0; i < 32; ++i)
    d[i] = 0.f;
  for (int i = 0; i < 32; ++i)
    cute::warpgroup_fence_operand(d[i]);
  cute::warpgroup_arrive();
  cute::SM90_64x64x16_F32BF16BF16_SS::fma(desc_a, desc_b, d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7], d[8], d[9], d[10], d[11], d[12], d[13], d[14], d[15], d[16], d[17], d[18], d[19], d[20], d[21], d[22], d[23], d[24], d[25], d[26], d[27], d[28], d[29], d[30], d[31]);
  cute::warpgroup_commit_batch();
  cute::warpgroup_wait<0>();
  for (int i = 0; i < 32; ++i)
    D[threadIdx.x * 32 + i] = d[i];
}

// RS: A is staged in smem but read into registers with ldmatrix (generic
// proxy); only B is an smem operand of the MMA. The writes to sA_stage are
// no finding of this rule; the writes to sB are.
__global__ void cute_rs(const __nv_bfloat16 *A, const __nv_bfloat16 *B,
                        float *D) {
  __shared__ alignas(128) __nv_bfloat16 sA_stage[64 * 16];
  __shared__ alignas(128) __nv_bfloat16 sB[16 * 64];
  for (int i = threadIdx.x; i < 64 * 16; i += blockDim.x)
    sA_stage[i] = A[i];
  for (int i = threadIdx.x; i < 16 * 64; i += blockDim.x)
    sB[i] = B[i];
  __syncthreads();
  uint32_t a0, a1, a2, a3;
  cute::SM75_U32x4_LDSM_N::copy(
      cute::cast_smem_ptr_to_uint(&sA_stage[(threadIdx.x % 64) * 16]), a0, a1,
      a2, a3);
  cute::GmmaDescriptor desc_b = cute::make_gmma_desc(sB, 128, 256);
  float d[32];
  for (int i = 0; i < 32; ++i)
    d[i] = 0.f;
  cute::warpgroup_arrive();
  cute::SM90_64x64x16_F32BF16BF16_RS::fma(a0, a1, a2, a3, desc_b, d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7], d[8], d[9], d[10], d[11], d[12], d[13], d[14], d[15], d[16], d[17], d[18], d[19], d[20], d[21], d[22], d[23], d[24], d[25], d[26], d[27], d[28], d[29], d[30], d[31]);
  cute::warpgroup_commit_batch();
  cute::warpgroup_wait<0>();
  for (int i = 0; i < 32; ++i)
    D[threadIdx.x * 32 + i] = d[i];
}

// Disjoint buffers: the generic writes go to sBias, the MMA reads sA and sB,
// which only the bulk copy writes (async proxy): no finding.
__global__ void cute_disjoint(const __nv_bfloat16 *A, const __nv_bfloat16 *B,
                              const float *bias, float *D) {
  __shared__ alignas(128) __nv_bfloat16 sA[64 * 16];
  __shared__ alignas(128) __nv_bfloat16 sB[16 * 64];
  __shared__ float sBias[64];
  __shared__ alignas(8) cutlass::arch::ClusterBarrier full;
  if (threadIdx.x == 0)
    full.init(1);
  if (threadIdx.x < 64)
    sBias[threadIdx.x] = bias[threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0) {
    full.arrive_and_expect_tx(sizeof(sA) + sizeof(sB));
    cute::SM90_BULK_COPY_G2S::copy(A, &full.barrier_, sA, sizeof(sA));
    cute::SM90_BULK_COPY_G2S::copy(B, &full.barrier_, sB, sizeof(sB));
  }
  full.wait(0);
  cute::GmmaDescriptor desc_a = cute::make_gmma_desc(sA, 128, 256);
  cute::GmmaDescriptor desc_b = cute::make_gmma_desc(sB, 128, 256);
  float d[32];
  for (int i = 0; i < 32; ++i)
    d[i] = 0.f;
  cute::warpgroup_arrive();
  cute::SM90_64x64x16_F32BF16BF16_SS::fma(desc_a, desc_b, d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7], d[8], d[9], d[10], d[11], d[12], d[13], d[14], d[15], d[16], d[17], d[18], d[19], d[20], d[21], d[22], d[23], d[24], d[25], d[26], d[27], d[28], d[29], d[30], d[31]);
  cute::warpgroup_commit_batch();
  cute::warpgroup_wait<0>();
  for (int i = 0; i < 32; ++i)
    D[threadIdx.x * 32 + i] = d[i] + sBias[threadIdx.x % 64];
}
// CHECK: cute-gmma.cu.tmp.cu:36:3: warning: wgmma reads shared memory 'sA' or 'sB' as an operand, written through the generic proxy with no fence.proxy.async on the path (wgmma.fence orders registers, not shared memory) [proxyfence-mma-operand]
// CHECK: mini_cute.h:82:5: note: wgmma issued here, inside 'fma'
// CHECK: :24:5: note: generic-proxy write to 'sA' here
// CHECK: :26:5: note: generic-proxy write to 'sB' here
// CHECK: :27:3: note: this barrier orders threads, not proxies; insert the fence before it
// CHECK: :27:3: note: insert 'cutlass::arch::fence_view_async_shared();' here
// CHECK: cute-gmma.cu.tmp.cu:64:3: warning: wgmma reads shared memory 'sB' as an operand, written through the generic proxy with no fence.proxy.async on the path (wgmma.fence orders registers, not shared memory) [proxyfence-mma-operand]
// CHECK: mini_cute.h:122:5: note: wgmma issued here, inside 'fma'
// CHECK-NOT: sA_stage
// CHECK: :53:5: note: generic-proxy write to 'sB' here
// CHECK-NOT: sA_stage
// CHECK: :54:3: note: this barrier orders threads, not proxies; insert the fence before it
// CHECK: :54:3: note: insert 'cutlass::arch::fence_view_async_shared();' here
// CHECK-NOT: warning:
// CHECK: proxyfence: 2 findings in 1 file

// The fence goes before each barrier, spelled as CUTLASS spells it (the file
// names cute::); no include is added, the header declares it.
// FIXED-NOT: #include <cutlass
// FIXED:      sB[i] = B[i];
// FIXED-NEXT: {{^  }}cutlass::arch::fence_view_async_shared();
// FIXED-NEXT: {{^  }}__syncthreads();
// FIXED:      sB[i] = B[i];
// FIXED-NEXT: {{^  }}cutlass::arch::fence_view_async_shared();
// FIXED-NEXT: {{^  }}__syncthreads();
// FIXED:      sBias[threadIdx.x] = bias[threadIdx.x];
// FIXED-NEXT: {{^  }}__syncthreads();

// CLEAN: proxyfence: 0 findings in 1 file
