// Asm templates spelled oddly: comments, tabs and newlines inside, a line
// splice in the string, several instructions on one line, `%%` escapes, a
// predicate with spaces. Each async operation is still found; the fence
// already written in odd spacing still counts.
// RUN: cp %s %t.cu
// RUN: not %proxyfence %t.cu 2>&1 | FileCheck %s
// RUN: %proxyfence --fix --quiet %t.cu
// RUN: %proxyfence %t.cu
// RUN: %nvcc-sm90a -cubin -o /dev/null %t.cu
// REQUIRES: nvcc
#include <cuda.h>

__global__ void commented(const __grid_constant__ CUtensorMap tmap, float v) {
  __shared__ alignas(128) float tile[1024];
  tile[threadIdx.x] = v;
  __syncthreads();
  if (threadIdx.x == 0)
    asm volatile("/* store */ {\n\t.reg .pred p;  // unused\n"
                 "\tsetp.eq.u32 p, %2, 0;\n"
                 "\t@ p   cp.async.bulk.tensor.1d.global.shared::cta.bulk_group\n"
                 "\t\t[%0,   {%2}] ,\n\t\t[%1]\t;\n}"
                 :: "l"(&tmap), "r"((unsigned)__cvta_generic_to_shared(tile)), "r"(0) : "memory");
}

__global__ void spliced(const __grid_constant__ CUtensorMap tmap, float v) {
  __shared__ alignas(128) float tile[1024];
  tile[threadIdx.x] = v;
  __syncthreads();
  if (threadIdx.x == 0)
    asm volatile("cp.async.bulk.tensor.1d.global.shared::cta.bulk_group \
[%0, {%2}], [%1]; cp.async.bulk.commit_group; cp.async.bulk.wait_group.read 0;"
                 :: "l"(&tmap), "r"((unsigned)__cvta_generic_to_shared(tile)), "r"(0) : "memory");
}

__global__ void already_fenced(const __grid_constant__ CUtensorMap tmap, float v) {
  __shared__ alignas(128) float tile[1024];
  unsigned lane;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
  tile[threadIdx.x] = v + lane;
  asm volatile("  /* x */\tfence.proxy.async.shared::cta \t ;  // done\n" ::: "memory");
  __syncthreads();
  if (threadIdx.x == 0)
    asm volatile("cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [%0, {%2}], [%1];"
                 :: "l"(&tmap), "r"((unsigned)__cvta_generic_to_shared(tile)), "r"(0) : "memory");
}
// CHECK: odd-asm.cu.tmp.cu:18:5: warning: TMA store reads shared memory 'tile'
// CHECK: odd-asm.cu.tmp.cu:30:5: warning: TMA store reads shared memory 'tile'
// CHECK-NOT: warning:
// CHECK: proxyfence: 2 findings in 1 file
