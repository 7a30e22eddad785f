// --fix --verify for proxyfence-mbarrier-init within one CTA: every thread
// arrives on a barrier that thread 0 initialises, with no CTA barrier
// between. The fix adds one; in the PTX, every path from the init to the
// arrive must then pass a CTA-wide barrier.
// REQUIRES: nvcc
// RUN: cp %s %t.cu
// RUN: %proxyfence --fix --verify %t.cu > %t.out 2>&1
// RUN: FileCheck --input-file=%t.out %s
// Without known findings, uses by other threads of the CTA cannot be told
// from the init thread's own in PTX: `verify` says what it could check.
// RUN: %proxyfence verify %s 2>&1 | FileCheck --check-prefix=WHOLE %s
#include <cstdint>

__global__ void arrive_all(float *out) {
  __shared__ alignas(8) uint64_t bar;
  const uint32_t b = static_cast<uint32_t>(__cvta_generic_to_shared(&bar));
  if (threadIdx.x == 0)
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(b), "r"(blockDim.x) : "memory");
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(b) : "memory");
  out[threadIdx.x] = 1.0f;
}
// CHECK: fix-verify-mbarrier-cta.cu.tmp.cu:18:5: warning: mbarrier 'bar' is used by other threads before a CTA-wide barrier (__syncthreads) makes its initialisation visible to them [proxyfence-mbarrier-init]
// CHECK: verified: {{.*}}fix-verify-mbarrier-cta.cu.tmp.cu: 1 finding, fence present on every path in PTX
// CHECK: proxyfence: 1 finding in 1 file, 1 fixed, 0 left

// WHOLE: proxyfence: verify: {{.*}}fix-verify-mbarrier-cta.cu: no async-proxy operation or cross-CTA mbarrier use in the PTX for sm_90a; nothing to check
