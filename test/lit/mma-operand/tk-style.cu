// ThunderKittens-style wrappers: the descriptor is an object whose
// constructor stores the tile's address and whose member function returns
// it; mma_AB takes the tiles by reference. The smem address is followed
// through all of it, so writes to a tile the MMA does not read are no finding.
// REQUIRES: nvcc
// RUN: cp %s %t.cu
// RUN: not %proxyfence %t.cu -- -I%S/Inputs 2>&1 | FileCheck %s
// RUN: %proxyfence --fix --quiet %t.cu -- -I%S/Inputs
// RUN: FileCheck --check-prefix=FIXED --input-file=%t.cu %s
// RUN: cp %t.cu %t.again.cu
// RUN: %proxyfence --fix --quiet %t.again.cu -- -I%S/Inputs
// RUN: cmp %t.cu %t.again.cu
// RUN: %proxyfence %t.cu -- -I%S/Inputs 2>&1 | FileCheck --check-prefix=CLEAN %s
// RUN: %nvcc-sm90a -I%S/Inputs -cubin -o /dev/null %t.cu
#include "mini_tk.h"

using namespace kittens;

__global__ void tk_gemm(const bf16 *A, const bf16 *B, float scale, float *D) {
  __shared__ alignas(128) st_bf<64, 32> As;
  __shared__ alignas(128) st_bf<32, 8> Bs;
  __shared__ alignas(128) st_bf<64, 8> Cs; // epilogue staging, not an operand
  for (int i = threadIdx.x; i < 64 * 32; i += blockDim.x)
    As.data[i] = __float2bfloat16(__bfloat162float(A[i]) * scale);
  for (int i = threadIdx.x; i < 32 * 8; i += blockDim.x)
    Bs.data[i] = B[i];
  for (int i = threadIdx.x; i < 64 * 8; i += blockDim.x)
    Cs.data[i] = __float2bfloat16(0.f);
  __syncthreads();
  rt_fl<4> d = {};
  warpgroup::mma_fence(d);
  warpgroup::mma_AB(d, As, Bs);
  warpgroup::mma_commit_group();
  warpgroup::mma_async_wait();
  for (int i = 0; i < 4; ++i)
    D[threadIdx.x * 4 + i] = d.data[i] + __bfloat162float(Cs.data[threadIdx.x]);
}

// CHECK: tk-style.cu.tmp.cu:32:3: warning: wgmma reads shared memory 'As' or 'Bs' as an operand, written through the generic proxy with no fence.proxy.async on the path (wgmma.fence orders registers, not shared memory) [proxyfence-mma-operand]
// CHECK: mini_tk.h:{{[0-9]+}}:5: note: wgmma issued here, inside 'mma_AB'
// CHECK-NOT: 'Cs'
// CHECK: :24:5: note: generic-proxy write to 'As' here
// CHECK-NOT: 'Cs'
// CHECK: :26:5: note: generic-proxy write to 'Bs' here
// CHECK-NOT: 'Cs'
// CHECK: :29:3: note: this barrier orders threads, not proxies; insert the fence before it
// CHECK: :29:3: note: insert 'asm volatile("fence.proxy.async.shared::cta;" ::: "memory");' here
// CHECK: proxyfence: 1 finding in 1 file

// FIXED:      Cs.data[i] = __float2bfloat16(0.f);
// FIXED-NEXT: {{^  }}asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
// FIXED-NEXT: {{^  }}__syncthreads();

// CLEAN: proxyfence: 0 findings in 1 file
