// A fix that does not compile is rolled back: the CUTLASS spelling includes
// <cutlass/arch/barrier.h>, which this machine's nvcc cannot find. The file
// is left byte for byte as it was, and the exit status says so.
// REQUIRES: nvcc
// RUN: cp %s %t.cu
// RUN: not %proxyfence --fix --verify --fence-style=cutlass %t.cu > %t.out 2>&1
// RUN: FileCheck --input-file=%t.out %s
// RUN: cmp %s %t.cu
#include <cstdint>

__global__ void chunk_copy(float *out) {
  __shared__ alignas(128) float buf[256];
  buf[threadIdx.x] = 2.0f * threadIdx.x;
  __syncthreads();
  if (threadIdx.x == 0)
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], 1024;"
                 :: "l"(out), "r"(static_cast<uint32_t>(__cvta_generic_to_shared(buf)))
                 : "memory");
}
// CHECK: warning: bulk async store reads shared memory 'buf'
// CHECK: proxyfence: verify: {{.*}}rollback.cu.tmp.cu: FAILED: the fixed file does not compile with nvcc for sm_90a:
// CHECK: cutlass/arch/barrier.h
// CHECK: proxyfence: verify: {{.*}}rollback.cu.tmp.cu: fix rolled back (original restored)
// CHECK: proxyfence: 1 finding in 1 file, 0 fixed, 1 left
