// tcgen05.cp copies shared memory into tensor memory: its smem access is an
// async-proxy read, its destination is TMEM. Generic reads before it are no
// hazard at all; generic writes before it are an mma-operand finding, never
// an async-overwrite one.
// REQUIRES: nvcc
// RUN: cp %s %t.cu
// RUN: not %proxyfence --arch=sm_100a %t.cu -- -I%S/Inputs 2>&1 | FileCheck %s
// RUN: %proxyfence --arch=sm_100a --fix --quiet %t.cu -- -I%S/Inputs
// RUN: FileCheck --check-prefix=FIXED --input-file=%t.cu %s
// RUN: cp %t.cu %t.again.cu
// RUN: %proxyfence --arch=sm_100a --fix --quiet %t.again.cu -- -I%S/Inputs
// RUN: cmp %t.cu %t.again.cu
// RUN: %proxyfence --arch=sm_100a %t.cu -- -I%S/Inputs 2>&1 | FileCheck --check-prefix=CLEAN %s
// RUN: %nvcc-sm100a -I%S/Inputs -cubin -o /dev/null %t.cu
#include "mbar.h"

__device__ __forceinline__ uint64_t smem_desc(const void *smem) {
  return ((uint64_t(smem_u32(smem)) & 0x3FFFF) >> 4) |
         (uint64_t(128 >> 4) << 16) | (uint64_t(256 >> 4) << 32) |
         (uint64_t(1) << 46);
}

// Loaded by a bulk copy, read by every thread, then copied to TMEM.
__global__ void read_then_cp(const uint8_t *sf, float *out, uint32_t taddr) {
  __shared__ alignas(128) uint8_t sSF[128 * 32];
  __shared__ alignas(8) uint64_t full;
  if (threadIdx.x == 0)
    mbar_init(&full, 1);
  __syncthreads();
  if (threadIdx.x == 0) {
    mbar_expect_tx(&full, sizeof(sSF));
    bulk_load(sSF, sf, sizeof(sSF), &full);
  }
  mbar_wait(&full, 0);
  out[threadIdx.x] = float(sSF[threadIdx.x]);
  __syncthreads();
  if (threadIdx.x == 0)
    asm volatile("tcgen05.cp.cta_group::1.128x256b [%0], %1;"
                 :: "r"(taddr), "l"(smem_desc(sSF)) : "memory");
}

// Written by the threads, then copied to TMEM: the operand hazard only.
__global__ void write_then_cp(const float *amax, uint32_t taddr) {
  __shared__ alignas(128) uint8_t sSF[128 * 32];
  for (int i = threadIdx.x; i < 128 * 32; i += blockDim.x)
    sSF[i] = static_cast<uint8_t>(amax[i]);
  __syncthreads();
  if (threadIdx.x == 0)
    asm volatile("tcgen05.cp.cta_group::2.128x256b [%0], %1;"
                 :: "r"(taddr), "l"(smem_desc(sSF)) : "memory");
}

// CHECK-NOT: proxyfence-async-overwrite
// CHECK: tcgen05-cp-destination.cu.tmp.cu:49:5: warning: tcgen05.cp reads shared memory 'sSF' as an operand, written through the generic proxy with no fence.proxy.async on the path [proxyfence-mma-operand]
// CHECK-NOT: proxyfence-async-overwrite
// CHECK: proxyfence: 1 finding in 1 file

// Only write_then_cp is changed.
// FIXED:      out[threadIdx.x] = float(sSF[threadIdx.x]);
// FIXED-NEXT: {{^  }}__syncthreads();
// FIXED:      sSF[i] = static_cast<uint8_t>(amax[i]);
// FIXED-NEXT: {{^  }}asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
// FIXED-NEXT: {{^  }}__syncthreads();

// CLEAN: proxyfence: 0 findings in 1 file
