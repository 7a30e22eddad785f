// A kernel template that nothing instantiates calls a member of a class
// template specialization with arguments of dependent type
// (`Stsm<__nv_bfloat162>::copy(cvt({acc[0], acc[1]}), ..., dst)`, an epilogue
// writing its accumulators with stmatrix). Sema only declares that member,
// never instantiates its body, so the body read is the class template's as
// written, with the call's arguments bound to its parameters. The stmatrix
// write then reaches the TMA store across a barrier; the fix goes before the
// barrier, and the fenced kernel is clean.
// RUN: cp %s %t.cu
// RUN: not %proxyfence %t.cu -- 2>&1 | FileCheck %s
// CHECK: specialization-member-pattern.cu.tmp.cu:[[@LINE+35]]:5: warning: TMA store reads dynamic shared memory written through the generic proxy with no fence.proxy.async on the path [proxyfence-tma-store]
// CHECK: specialization-member-pattern.cu.tmp.cu:[[@LINE+17]]:5: note: generic-proxy write to dynamic shared memory here (stmatrix.shared)
// CHECK: specialization-member-pattern.cu.tmp.cu:[[@LINE+28]]:3: note: inside 'copy', called here
// CHECK: proxyfence: 1 finding in 1 file
// RUN: %proxyfence --fix --quiet %t.cu --
// RUN: FileCheck --check-prefix=FIXED --input-file=%t.cu %s
// FIXED: fence.proxy.async.shared::cta
// FIXED-NEXT: __syncthreads();
// RUN: %proxyfence %t.cu -- 2>&1 | FileCheck --check-prefix=CLEAN %s
// CLEAN: proxyfence: 0 findings in 1 file
#include <cuda.h>
#include <cuda_bf16.h>

template <typename T>
struct Stsm {
  __device__ static void copy(T a, T b, T c, T d, void *dst) {
    unsigned const s[4] = {*reinterpret_cast<unsigned *>(&a), *reinterpret_cast<unsigned *>(&b),
                           *reinterpret_cast<unsigned *>(&c), *reinterpret_cast<unsigned *>(&d)};
    asm volatile("stmatrix.sync.aligned.x4.m8n8.shared.b16 [%0], {%1, %2, %3, %4};\n" ::"l"(dst),
                 "r"(s[0]), "r"(s[1]), "r"(s[2]), "r"(s[3]));
  }
};

template <int kNumAccum>
__global__ void epilogue(const __grid_constant__ CUtensorMap map) {
  extern __shared__ __align__(1024) unsigned char smem[];
  auto out = reinterpret_cast<__nv_bfloat16 *>(smem);
  float acc[kNumAccum];
  for (int i = 0; i < kNumAccum; ++i)
    acc[i] = i;
  Stsm<__nv_bfloat162>::copy(__float22bfloat162_rn({acc[0], acc[1]}), __float22bfloat162_rn({acc[2], acc[3]}),
                             __float22bfloat162_rn({acc[4], acc[5]}), __float22bfloat162_rn({acc[6], acc[7]}),
                             out + threadIdx.x * 8);
  __syncthreads();
  if (threadIdx.x == 0)
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];"
                 :: "l"(&map), "r"((unsigned)__cvta_generic_to_shared(out)), "r"(0), "r"(0) : "memory");
}
