// The exact text of proxyfence-mma-operand for each MMA kind: which fence
// is missing, and for wgmma that wgmma.fence is not it.
// RUN: not %proxyfence --arch=sm_100a %s 2>&1 | FileCheck %s --match-full-lines --strict-whitespace
#include <cstdint>

__device__ __forceinline__ uint64_t desc(const void *smem) {
  return (static_cast<uint32_t>(__cvta_generic_to_shared(smem)) & 0x3FFFF) >> 4;
}

__global__ void wgmma_dynamic(float *D) {
  extern __shared__ __align__(128) uint16_t dyn[];
  dyn[threadIdx.x] = 0;
  __syncthreads();
  float d0 = 0.f, d1 = 0.f, d2 = 0.f, d3 = 0.f;
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  asm volatile("wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 "
               "{%0, %1, %2, %3}, %4, %5, 1, 1, 1, 0, 0;"
               : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
               : "l"(desc(dyn)), "l"(desc(dyn + 1024)));
  D[threadIdx.x] = d0 + d1 + d2 + d3;
}

__global__ void tcgen05_kinds(uint32_t tmem, uint32_t idesc) {
  __shared__ alignas(1024) uint16_t tileA[128 * 16];
  __shared__ alignas(128) uint8_t scales[128 * 32];
  tileA[threadIdx.x] = 1;
  scales[threadIdx.x] = 1;
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %1, %2, 1;"
                 :: "r"(tmem), "l"(desc(tileA)), "r"(idesc));
    asm volatile("tcgen05.cp.cta_group::1.128x256b [%0], %1;"
                 :: "r"(tmem), "l"(desc(scales)));
  }
}

//      CHECK:{{.*}}messages.cu:16:3: warning: wgmma reads dynamic shared memory as an operand, written through the generic proxy with no fence.proxy.async on the path (wgmma.fence orders registers, not shared memory) [proxyfence-mma-operand]
//      CHECK:{{.*}}messages.cu:12:3: note: generic-proxy write to dynamic shared memory here
//      CHECK:{{.*}}messages.cu:13:3: note: this barrier orders threads, not proxies; insert the fence before it
//      CHECK:{{.*}}messages.cu:13:3: note: insert 'asm volatile("fence.proxy.async.shared::cta;" ::: "memory");' here
//      CHECK:{{.*}}messages.cu:30:5: warning: tcgen05.mma reads shared memory 'tileA' as an operand, written through the generic proxy with no fence.proxy.async on the path [proxyfence-mma-operand]
//      CHECK:{{.*}}messages.cu:26:3: note: generic-proxy write to 'tileA' here
//      CHECK:{{.*}}messages.cu:28:3: note: this barrier orders threads, not proxies; insert the fence before it
//      CHECK:{{.*}}messages.cu:32:5: warning: tcgen05.cp reads shared memory 'scales' as an operand, written through the generic proxy with no fence.proxy.async on the path [proxyfence-mma-operand]
//      CHECK:{{.*}}messages.cu:27:3: note: generic-proxy write to 'scales' here
//      CHECK:{{.*}}messages.cu:28:3: note: this barrier orders threads, not proxies; insert the fence before it
//      CHECK:proxyfence: 3 findings in 1 file
