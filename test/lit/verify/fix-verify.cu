// --fix --verify: the fixed file is compiled with nvcc, and in its PTX every
// path from the tile stores to the TMA store passes the inserted fence.
// `verify` on the fixed file checks the whole PTX of the file again.
// REQUIRES: nvcc
// RUN: cp %s %t.cu
// RUN: %proxyfence --fix --verify %t.cu > %t.out 2>&1
// RUN: FileCheck --input-file=%t.out %s
// RUN: %proxyfence verify %t.cu 2>&1 | FileCheck --check-prefix=AGAIN %s
// RUN: not %proxyfence verify %s > %t.orig 2>&1
// RUN: FileCheck --check-prefix=ORIG --input-file=%t.orig %s
#include <cuda.h>
#include <cstdint>

__global__ void epilogue(const __grid_constant__ CUtensorMap tmap, float bias) {
  __shared__ alignas(128) float tile[32][32];
  for (int i = threadIdx.x; i < 32 * 32; i += blockDim.x)
    tile[i / 32][i % 32] = bias * i;
  __syncthreads();
  if (threadIdx.x == 0) {
    uint32_t smem = static_cast<uint32_t>(__cvta_generic_to_shared(&tile[0][0]));
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];"
                 :: "l"(&tmap), "r"(smem), "r"(0), "r"(0) : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
  }
}
// CHECK: fix-verify.cu.tmp.cu:21:5: warning: TMA store reads shared memory 'tile'
// CHECK: verified: {{.*}}fix-verify.cu.tmp.cu: 1 finding, fence present on every path in PTX
// CHECK: proxyfence: 1 finding in 1 file, 1 fixed, 0 left

// AGAIN: verified: {{.*}}fix-verify.cu.tmp.cu: fence present on every path in PTX (1 async-proxy operation checked)

// The original, unfixed: the PTX check finds the path and maps it to source.
// ORIG: .ptx:[[#]]:2: warning: TMA store reads shared memory written through the generic proxy with no fence.proxy.async on the path [proxyfence-tma-store]
// ORIG-NEXT: fix-verify.cu:22:25: note: TMA store issued here (cp.async.bulk.tensor.2d.global.shared::cta.bulk_group)
// ORIG-NEXT: .ptx:[[#]]:2: note: generic-proxy write here (st.shared.f32)
// ORIG-NEXT: fix-verify.cu:17:5: note: generic-proxy write here (st.shared.f32)
// ORIG: proxyfence: verify: {{.*}}fix-verify.cu: FAILED: 1 async-proxy operation reached by generic-proxy accesses with no fence in the PTX
// ORIG: proxyfence: verify: {{.*}}fix-verify.cu: PTX kept at {{.*}}.ptx
