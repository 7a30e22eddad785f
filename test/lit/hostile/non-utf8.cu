// Bytes that are not UTF-8 in comments and strings (ÿþ, Latin-1 été):
// read, fixed, and every other byte kept.
// RUN: cp %s %t.cu
// RUN: not %proxyfence %t.cu 2>&1 | FileCheck %s
// RUN: %proxyfence --fix --quiet %t.cu
// RUN: not diff %s %t.cu | FileCheck --check-prefix=DIFF --match-full-lines %s
// RUN: %proxyfence %t.cu
#include <cuda.h>

__device__ const char note[] = "café ÿþ€";

__global__ void store(const __grid_constant__ CUtensorMap tmap, float v) {
  __shared__ alignas(128) float tile[1024]; /* Ã(  ¡ */
  tile[threadIdx.x] = v + note[0];
  __syncthreads(); // ð(Œ(
  if (threadIdx.x == 0)
    asm volatile("cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [%0, {%2}], [%1]; // é"
                 :: "l"(&tmap), "r"((unsigned)__cvta_generic_to_shared(tile)), "r"(0) : "memory");
}
// CHECK: non-utf8.cu.tmp.cu:17:5: warning: TMA store reads shared memory 'tile'
// CHECK: proxyfence: 1 finding in 1 file
// DIFF:      14a15
// DIFF-NEXT: >   asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
// DIFF-NOT:  {{.}}
