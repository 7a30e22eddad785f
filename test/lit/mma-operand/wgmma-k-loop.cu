// k-loops: where the smem operand is written once before the loop the fence
// is hoisted out of it (it runs once); where it is rewritten every iteration
// the fence stays inside, after the writes and before the barrier.
// RUN: cp %s %t.cu
// RUN: not %proxyfence %t.cu 2>&1 | FileCheck %s
// RUN: %proxyfence --fix --quiet %t.cu
// RUN: FileCheck --check-prefix=FIXED --input-file=%t.cu %s
// RUN: cp %t.cu %t.again.cu
// RUN: %proxyfence --fix --quiet %t.again.cu
// RUN: cmp %t.cu %t.again.cu
// RUN: %proxyfence %t.cu 2>&1 | FileCheck --check-prefix=CLEAN %s
// RUN: %nvcc-sm90a -cubin -o /dev/null %t.cu
#include <cuda_bf16.h>
#include <cstdint>

__device__ __forceinline__ uint64_t make_desc(const void *smem) {
  uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(smem));
  return ((addr & 0x3FFFF) >> 4) | (uint64_t(128 >> 4) << 16) |
         (uint64_t(256 >> 4) << 32);
}

__device__ __forceinline__ void wgmma_m64n8k16(float (&d)[4], uint64_t da,
                                               uint64_t db) {
  asm volatile("{\n"
               ".reg .pred p;\n"
               "setp.ne.b32 p, %6, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 "
               "{%0, %1, %2, %3}, %4, %5, p, 1, 1, 0, 0;\n"
               "}\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "l"(da), "l"(db), "r"(1)
               : "memory");
}

__device__ __forceinline__ void wgmma_sync() {
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
}

// The whole K extent of both operands is staged once, then the loop walks
// it 16 columns at a time. The fence runs once, before the loop.
__global__ void staged_once(const __nv_bfloat16 *A, const __nv_bfloat16 *B,
                            float *D, int ksteps) {
  __shared__ alignas(128) __nv_bfloat16 sA[4][64 * 16];
  __shared__ alignas(128) __nv_bfloat16 sB[4][16 * 8];
  for (int i = threadIdx.x; i < 4 * 64 * 16; i += blockDim.x)
    sA[i / (64 * 16)][i % (64 * 16)] = A[i];
  for (int i = threadIdx.x; i < 4 * 16 * 8; i += blockDim.x)
    sB[i / (16 * 8)][i % (16 * 8)] = B[i];
  float d[4] = {0.f, 0.f, 0.f, 0.f};
  for (int k = 0; k < ksteps; ++k) {
    __syncthreads();
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
    wgmma_m64n8k16(d, make_desc(sA[k % 4]), make_desc(sB[k % 4]));
    wgmma_sync();
  }
  for (int i = 0; i < 4; ++i)
    D[threadIdx.x * 4 + i] = d[i];
}

// A is converted from fp32 and rewritten every iteration (B is staged once):
// the fence belongs inside the loop, after this iteration's writes.
__global__ void rewritten_each_step(const float *A, const __nv_bfloat16 *B,
                                    float *D, int ksteps) {
  __shared__ alignas(128) __nv_bfloat16 sA[64 * 16];
  __shared__ alignas(128) __nv_bfloat16 sB[16 * 8];
  for (int i = threadIdx.x; i < 16 * 8; i += blockDim.x)
    sB[i] = B[i];
  float d[4] = {0.f, 0.f, 0.f, 0.f};
  for (int k = 0; k < ksteps; ++k) {
    for (int i = threadIdx.x; i < 64 * 16; i += blockDim.x)
      sA[i] = __float2bfloat16(A[k * 64 * 16 + i]);
    __syncthreads();
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
    wgmma_m64n8k16(d, make_desc(sA), make_desc(sB));
    wgmma_sync();
    __syncthreads();
  }
  for (int i = 0; i < 4; ++i)
    D[threadIdx.x * 4 + i] = d[i];
}
// CHECK: wgmma-k-loop.cu.tmp.cu:54:5: warning: wgmma reads shared memory 'sA' or 'sB' as an operand, written through the generic proxy with no fence.proxy.async on the path (wgmma.fence orders registers, not shared memory) [proxyfence-mma-operand]
// CHECK: :24:3: note: wgmma issued here, inside 'wgmma_m64n8k16'
// CHECK: :47:5: note: generic-proxy write to 'sA' here
// CHECK: :49:5: note: generic-proxy write to 'sB' here
// CHECK: :52:5: note: this barrier orders threads, not proxies; insert the fence before it
// CHECK: :51:3: note: insert 'asm volatile("fence.proxy.async.shared::cta;" ::: "memory");' here, before the loop: no write happens inside it
// CHECK: wgmma-k-loop.cu.tmp.cu:75:5: warning: wgmma reads shared memory 'sB' or 'sA' as an operand
// CHECK: :68:5: note: generic-proxy write to 'sB' here
// CHECK: :72:7: note: generic-proxy write to 'sA' here
// CHECK: :73:5: note: this barrier orders threads, not proxies; insert the fence before it
// CHECK: :73:5: note: insert 'asm volatile("fence.proxy.async.shared::cta;" ::: "memory");' here{{$}}
// CHECK: proxyfence: 2 findings in 1 file

// FIXED:      sB[i / (16 * 8)][i % (16 * 8)] = B[i];
// FIXED-NEXT: float d[4] = {0.f, 0.f, 0.f, 0.f};
// FIXED-NEXT: {{^  }}asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
// FIXED-NEXT: {{^  }}for (int k = 0; k < ksteps; ++k) {
// FIXED-NEXT: {{^    }}__syncthreads();

// FIXED:      sA[i] = __float2bfloat16(A[k * 64 * 16 + i]);
// FIXED-NEXT: {{^    }}asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
// FIXED-NEXT: {{^    }}__syncthreads();
// FIXED-NEXT: asm volatile("wgmma.fence.sync.aligned;" ::: "memory");

// CLEAN: proxyfence: 0 findings in 1 file
