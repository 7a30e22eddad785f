// CuTe hands wgmma its operands through a descriptor iterator: element i is
// `*(*this + i)`, a new descriptor built from the iterator's own. The smem
// each descriptor addresses is followed through the iterator's `*this`, so
// only a late write to an operand tile is reported, not one to another
// buffer written after the fence (`other`): the one warning, at the MMA
// both instantiations share, names `sB` alone.
// RUN: not %proxyfence %s -- -I%S/Inputs 2>&1 | FileCheck %s
// RUN: %nvcc-sm90a -I%S/Inputs -cubin -o /dev/null %s
#include "mini_cute.h"
#include <cuda_bf16.h>

template <bool kLateB>
__device__ void mma_after_fence(float *D) {
  __shared__ alignas(128) __nv_bfloat16 sA[64 * 16];
  __shared__ alignas(128) __nv_bfloat16 sB[16 * 64];
  __shared__ alignas(128) __nv_bfloat16 other[128];
  for (int i = threadIdx.x; i < 64 * 16; i += blockDim.x) {
    sA[i] = __float2bfloat16(1.f);
    sB[i] = __float2bfloat16(1.f);
  }
  cutlass::arch::fence_view_async_shared();
  __syncthreads();
  if (kLateB)
    sB[threadIdx.x] = __float2bfloat16(2.f);
  else
    other[threadIdx.x] = __float2bfloat16(2.f);
  cute::DescriptorIterator ia{cute::make_gmma_desc(sA, 128, 256)};
  cute::DescriptorIterator ib{cute::make_gmma_desc(sB, 128, 256)};
  float d[32] = {};
  cute::warpgroup_arrive();
  cute::SM90_64x64x16_F32BF16BF16_SS::fma(ia[0], ib[0], d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7], d[8], d[9], d[10], d[11], d[12], d[13], d[14], d[15], d[16], d[17], d[18], d[19], d[20], d[21], d[22], d[23], d[24], d[25], d[26], d[27], d[28], d[29], d[30], d[31]);
  // CHECK: .cu:[[#@LINE-1]]:3: warning: wgmma reads shared memory 'sB' as an operand, written through the generic proxy {{.*}}[proxyfence-mma-operand]
  cute::warpgroup_commit_batch();
  cute::warpgroup_wait<0>();
  D[threadIdx.x] = d[0] + __bfloat162float(other[(threadIdx.x + 1) % 128]);
}

__global__ void late_b(float *D) { mma_after_fence<true>(D); }
__global__ void late_other(float *D) { mma_after_fence<false>(D); }

// CHECK-NOT: warning:
// CHECK: proxyfence: 1 finding in 1 file
