// An SS wgmma in a helper reads two operands that its parameters designate
// (`sP` and `sV`, as in an attention kernel's P @ V), and its caller zeroes
// the tail of `sV` just before calling it. Inside the helpers the write and
// the wgmma meet only through what the kernel passes, so each call decides;
// the wgmma's two operands are two reads at one statement, and the one that
// meets the write (`sV`) decides, not the first (`sP`, another buffer).
// RUN: cp %s %t.cu
// RUN: not %proxyfence %t.cu -- 2>&1 | FileCheck %s
// CHECK: ss-operands-through-parameters.cu.tmp.cu:[[@LINE+25]]:3: warning: wgmma reads shared memory 'sV' as an operand, written through the generic proxy with no fence.proxy.async on the path
// CHECK: ss-operands-through-parameters.cu.tmp.cu:[[@LINE+30]]:3: note: both sides meet through this call, with its arguments
// CHECK: ss-operands-through-parameters.cu.tmp.cu:[[@LINE+22]]:3: note: generic-proxy write to 'sV' here
// CHECK: proxyfence: 1 finding in 1 file
// RUN: %nvcc-sm90a -cubin -o /dev/null %s
// REQUIRES: nvcc
#include <cuda_bf16.h>
#include <cstdint>

__device__ __forceinline__ uint64_t desc_encode(uint64_t x) { return (x & 0x3FFFF) >> 4; }
__device__ __forceinline__ uint64_t make_desc(const void *smem) {
  uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(smem));
  return desc_encode(addr) | (desc_encode(128) << 16) | (desc_encode(256) << 32);
}
__device__ void ss_gemm(const __nv_bfloat16 *sP, const __nv_bfloat16 *sV, float *d) {
  uint64_t da = make_desc(sP), db = make_desc(sV);
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %6, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%0, %1, %2, %3}, %4, %5, p, 1, 1, 0, 0;\n}\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]) : "l"(da), "l"(db), "r"(0) : "memory");
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}
// Zero the tail of V, then multiply: the fence between them is missing.
__device__ void tail_then_gemm(const __nv_bfloat16 *sP, __nv_bfloat16 *sV, float *d) {
  sV[threadIdx.x] = __float2bfloat16(0.f);
  ss_gemm(sP, sV, d);
}
__global__ void attn(float *out) {
  __shared__ alignas(128) __nv_bfloat16 sP[64 * 16];
  __shared__ alignas(128) __nv_bfloat16 sV[16 * 8];
  float d[4] = {};
  tail_then_gemm(sP, sV, d);
  out[threadIdx.x] = d[0];
}
