// Raw-PTX epilogue: registers -> smem (C++ stores) -> __syncthreads -> TMA store.
// RUN: cp %s %t.cu
// RUN: not %proxyfence %t.cu 2>&1 | FileCheck %s
// RUN: %proxyfence --fix --quiet %t.cu
// RUN: FileCheck --check-prefix=FIXED --input-file=%t.cu %s
// RUN: %proxyfence %t.cu 2>&1 | FileCheck --check-prefix=CLEAN %s
// RUN: %nvcc-sm90a -cubin -o /dev/null %t.cu
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
// CHECK: raw-ptx.cu.tmp.cu:18:5: warning: TMA store reads shared memory 'tile' written through the generic proxy with no fence.proxy.async on the path [proxyfence-tma-store]
// CHECK: :14:5: note: generic-proxy write to 'tile' here
// CHECK: :15:3: note: this barrier orders threads, not proxies; insert the fence before it
// CHECK: :15:3: note: insert 'asm volatile("fence.proxy.async.shared::cta;" ::: "memory");' here
// CHECK: proxyfence: 1 finding in 1 file

// FIXED:      tile[i / 32][i % 32] = bias * i;
// FIXED-NEXT: {{^  }}asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
// FIXED-NEXT: {{^  }}__syncthreads();

// CLEAN: proxyfence: 0 findings in 1 file
