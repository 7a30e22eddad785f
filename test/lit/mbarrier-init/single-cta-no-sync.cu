// Single CTA: thread 0 initialises the mbarrier and the other threads arrive
// on it right away, with no CTA-wide barrier between: the init may not be
// visible to them yet. The fix puts __syncthreads() after the init's `if`,
// where every thread passes.
// RUN: cp %s %t.cu
// RUN: not %proxyfence %t.cu 2>&1 | FileCheck %s
// RUN: %proxyfence --fix --quiet %t.cu
// RUN: FileCheck --check-prefix=FIXED --input-file=%t.cu %s
// RUN: %proxyfence %t.cu 2>&1 | FileCheck --check-prefix=CLEAN %s
// RUN: %nvcc-sm90a -cubin -o /dev/null %t.cu
#include <cstdint>

__device__ inline uint32_t smem(const void *p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__global__ void reduce(const float *in, float *out) {
  __shared__ alignas(8) uint64_t bar;
  __shared__ float sum;
  if (threadIdx.x == 0) {
    sum = 0.0f;
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;"
                 :: "r"(smem(&bar)), "r"(blockDim.x) : "memory");
  }
  atomicAdd(&sum, in[threadIdx.x]);
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(smem(&bar)) : "memory");
  asm volatile("{\n\t.reg .pred p;\n\tWAIT:\n\t"
               "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\n\t"
               "@!p bra WAIT;\n\t}" :: "r"(smem(&bar)) : "memory");
  if (threadIdx.x == 0)
    *out = sum;
}
// CHECK: single-cta-no-sync.cu.tmp.cu:22:5: warning: mbarrier 'bar' is used by other threads before a CTA-wide barrier (__syncthreads) makes its initialisation visible to them [proxyfence-mbarrier-init]
// CHECK: :26:3: note: used by other threads here (mbarrier.arrive.shared::cta)
// CHECK: :27:3: note: used by other threads here (mbarrier.try_wait.shared::cta)
// CHECK: :24:4: note: insert '__syncthreads();' here
// CHECK: proxyfence: 1 finding in 1 file

// FIXED:      {{^    }}asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;"
// FIXED-NEXT: {{^ +}}:: "r"(smem(&bar)), "r"(blockDim.x) : "memory");
// FIXED-NEXT: {{^  [}]$}}
// FIXED-NEXT: {{^  }}__syncthreads();
// FIXED-NEXT: {{^  }}atomicAdd(&sum, in[threadIdx.x]);

// CLEAN: proxyfence: 0 findings in 1 file
