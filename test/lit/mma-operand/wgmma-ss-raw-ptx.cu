// wgmma SS (A and B from shared memory) in raw PTX: the A tile is scaled in
// registers and staged in smem with C++ stores; __syncthreads() and
// wgmma.fence order threads and registers, not proxies.
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

__device__ __forceinline__ uint64_t desc_encode(uint64_t x) { return (x & 0x3FFFF) >> 4; }
__device__ __forceinline__ uint64_t make_desc(const void *smem) {
  uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(smem));
  return desc_encode(addr) | (desc_encode(128) << 16) | (desc_encode(256) << 32);
}

__global__ void scaled_gemm(const __nv_bfloat16 *A, const __nv_bfloat16 *B,
                            float scale, float *D) {
  __shared__ alignas(128) __nv_bfloat16 sA[64 * 16];
  __shared__ alignas(128) __nv_bfloat16 sB[16 * 8];
  for (int i = threadIdx.x; i < 64 * 16; i += blockDim.x)
    sA[i] = __float2bfloat16(__bfloat162float(A[i]) * scale);
  if (threadIdx.x < 16 * 8)
    sB[threadIdx.x] = B[threadIdx.x];
  __syncthreads();
  uint64_t da = make_desc(sA), db = make_desc(sB);
  float d0 = 0.f, d1 = 0.f, d2 = 0.f, d3 = 0.f;
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  asm volatile("{\n"
               ".reg .pred p;\n"
               "setp.ne.b32 p, %6, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 "
               "{%0, %1, %2, %3}, %4, %5, p, 1, 1, 0, 0;\n"
               "}\n"
               : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
               : "l"(da), "l"(db), "r"(0)
               : "memory");
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  D[threadIdx.x * 4 + 0] = d0;
  D[threadIdx.x * 4 + 1] = d1;
  D[threadIdx.x * 4 + 2] = d2;
  D[threadIdx.x * 4 + 3] = d3;
}
// CHECK: wgmma-ss-raw-ptx.cu.tmp.cu:34:3: warning: wgmma reads shared memory 'sA' or 'sB' as an operand, written through the generic proxy with no fence.proxy.async on the path (wgmma.fence orders registers, not shared memory) [proxyfence-mma-operand]
// CHECK: :27:5: note: generic-proxy write to 'sA' here
// CHECK: :29:5: note: generic-proxy write to 'sB' here
// CHECK: :30:3: note: this barrier orders threads, not proxies; insert the fence before it
// CHECK: :30:3: note: insert 'asm volatile("fence.proxy.async.shared::cta;" ::: "memory");' here
// CHECK: proxyfence: 1 finding in 1 file

// FIXED:      sB[threadIdx.x] = B[threadIdx.x];
// FIXED-NEXT: {{^  }}asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
// FIXED-NEXT: {{^  }}__syncthreads();

// CLEAN: proxyfence: 0 findings in 1 file
