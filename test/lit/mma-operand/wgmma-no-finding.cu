// No finding: both fence conventions, the unscoped fence, and writes to a
// buffer the MMA does not read (after the operands were fenced).
// RUN: %proxyfence %s 2>&1 | FileCheck %s
// RUN: %nvcc-sm90a -cubin -o /dev/null %s
#include <cuda_bf16.h>
#include <cstdint>

__device__ __forceinline__ uint64_t make_desc(const void *smem) {
  uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(smem));
  return ((addr & 0x3FFFF) >> 4) | (uint64_t(128 >> 4) << 16) |
         (uint64_t(256 >> 4) << 32);
}

__device__ __forceinline__ void wgmma_m64n8k16(float (&d)[4], uint64_t da,
                                               uint64_t db) {
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  asm volatile("{\n"
               ".reg .pred p;\n"
               "setp.ne.b32 p, %6, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 "
               "{%0, %1, %2, %3}, %4, %5, p, 1, 1, 0, 0;\n"
               "}\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "l"(da), "l"(db), "r"(1)
               : "memory");
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
}

// Convention 1: every writer fences, then the barrier.
__global__ void writers_fence(const __nv_bfloat16 *A, const __nv_bfloat16 *B,
                              float *D) {
  __shared__ alignas(128) __nv_bfloat16 sA[64 * 16];
  __shared__ alignas(128) __nv_bfloat16 sB[16 * 8];
  for (int i = threadIdx.x; i < 64 * 16; i += blockDim.x)
    sA[i] = A[i];
  for (int i = threadIdx.x; i < 16 * 8; i += blockDim.x)
    sB[i] = B[i];
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  float d[4] = {0.f, 0.f, 0.f, 0.f};
  wgmma_m64n8k16(d, make_desc(sA), make_desc(sB));
  for (int i = 0; i < 4; ++i)
    D[threadIdx.x * 4 + i] = d[i];
}

// Convention 2: the barrier, then the issuing threads fence right before
// the MMA (the unscoped fence covers shared memory too).
__global__ void issuer_fences(const __nv_bfloat16 *A, const __nv_bfloat16 *B,
                              float *D) {
  __shared__ alignas(128) __nv_bfloat16 sA[64 * 16];
  __shared__ alignas(128) __nv_bfloat16 sB[16 * 8];
  for (int i = threadIdx.x; i < 64 * 16; i += blockDim.x)
    sA[i] = A[i];
  for (int i = threadIdx.x; i < 16 * 8; i += blockDim.x)
    sB[i] = B[i];
  __syncthreads();
  asm volatile("fence.proxy.async;" ::: "memory");
  float d[4] = {0.f, 0.f, 0.f, 0.f};
  wgmma_m64n8k16(d, make_desc(sA), make_desc(sB));
  for (int i = 0; i < 4; ++i)
    D[threadIdx.x * 4 + i] = d[i];
}

// The fence covers the operands; sC, written afterwards, is never an operand.
__global__ void disjoint_after_fence(const __nv_bfloat16 *A,
                                     const __nv_bfloat16 *B, float *D) {
  __shared__ alignas(128) __nv_bfloat16 sA[64 * 16];
  __shared__ alignas(128) __nv_bfloat16 sB[16 * 8];
  __shared__ float sC[128 * 4];
  for (int i = threadIdx.x; i < 64 * 16; i += blockDim.x)
    sA[i] = A[i];
  for (int i = threadIdx.x; i < 16 * 8; i += blockDim.x)
    sB[i] = B[i];
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  for (int i = threadIdx.x; i < 128 * 4; i += blockDim.x)
    sC[i] = 0.f;
  __syncthreads();
  float d[4] = {0.f, 0.f, 0.f, 0.f};
  wgmma_m64n8k16(d, make_desc(sA), make_desc(sB));
  for (int i = 0; i < 4; ++i)
    sC[threadIdx.x * 4 + i] += d[i];
  __syncthreads();
  for (int i = threadIdx.x; i < 128 * 4; i += blockDim.x)
    D[i] = sC[i];
}

// CHECK-NOT: warning:
// CHECK: proxyfence: 0 findings in 1 file
