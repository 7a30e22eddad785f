// wgmma RS in raw PTX: A comes from registers ({a0, a1, a2, a3}, loaded
// from a staging buffer with ldmatrix), only B is read from shared memory
// through its descriptor. Writes to the A staging buffer are no finding;
// the st.shared writes of B are.
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

__device__ __forceinline__ uint64_t make_desc(uint32_t addr) {
  return ((addr & 0x3FFFF) >> 4) | (uint64_t(128 >> 4) << 16) |
         (uint64_t(256 >> 4) << 32);
}

__global__ void rs_gemm(const __nv_bfloat16 *A, const uint4 *B, float *D) {
  __shared__ alignas(128) __nv_bfloat16 sA_stage[64 * 16];
  __shared__ alignas(128) uint4 sB[16 * 8 * 2 / 16];
  for (int i = threadIdx.x; i < 64 * 16; i += blockDim.x)
    sA_stage[i] = A[i];
  uint32_t b_addr = static_cast<uint32_t>(__cvta_generic_to_shared(sB));
  if (threadIdx.x < 16) {
    uint4 v = B[threadIdx.x];
    asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};"
                 :: "r"(b_addr + threadIdx.x * 16), "r"(v.x), "r"(v.y),
                    "r"(v.z), "r"(v.w)
                 : "memory");
  }
  __syncthreads();
  uint32_t a0, a1, a2, a3;
  uint32_t a_addr = static_cast<uint32_t>(
      __cvta_generic_to_shared(&sA_stage[(threadIdx.x % 64) * 16]));
  asm volatile("ldmatrix.sync.aligned.x4.m8n8.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(a0), "=r"(a1), "=r"(a2), "=r"(a3)
               : "r"(a_addr));
  uint64_t db = make_desc(b_addr);
  float d0 = 0.f, d1 = 0.f, d2 = 0.f, d3 = 0.f;
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  asm volatile("{\n"
               ".reg .pred p;\n"
               "setp.ne.b32 p, %9, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 "
               "{%0, %1, %2, %3}, {%4, %5, %6, %7}, %8, p, 1, 1, 0;\n"
               "}\n"
               : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
               : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "l"(db), "r"(0)
               : "memory");
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  D[threadIdx.x * 4 + 0] = d0;
  D[threadIdx.x * 4 + 1] = d1;
  D[threadIdx.x * 4 + 2] = d2;
  D[threadIdx.x * 4 + 3] = d3;
}
// CHECK: wgmma-rs-raw-ptx.cu.tmp.cu:45:3: warning: wgmma reads shared memory 'sB' as an operand, written through the generic proxy with no fence.proxy.async on the path (wgmma.fence orders registers, not shared memory) [proxyfence-mma-operand]
// CHECK-NOT: sA_stage
// CHECK: :30:5: note: generic-proxy write to 'sB' here (st.shared)
// CHECK-NOT: sA_stage
// CHECK: :35:3: note: this barrier orders threads, not proxies; insert the fence before it
// CHECK: :35:3: note: insert 'asm volatile("fence.proxy.async.shared::cta;" ::: "memory");' here
// CHECK: proxyfence: 1 finding in 1 file

// FIXED:      "r"(v.z), "r"(v.w)
// FIXED-NEXT: : "memory");
// FIXED-NEXT: {{^  [}]$}}
// FIXED-NEXT: {{^  }}asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
// FIXED-NEXT: {{^  }}__syncthreads();

// CLEAN: proxyfence: 0 findings in 1 file
