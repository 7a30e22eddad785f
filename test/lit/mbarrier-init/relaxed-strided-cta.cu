// Barriers initialised block-strided (each thread a share), then a relaxed
// cluster barrier with no fence.mbarrier_init, then warps that use barriers
// another thread initialised. barrier.cluster.arrive.relaxed orders no memory
// (PTX ISA, barrier.cluster), so the inits are not visible to the other
// threads of the CTA, even in a cluster of one CTA. The fix is the init fence
// after the init loop, in the initialising threads, before the arrive.
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

constexpr int kStages = 4;

__global__ void strided_init(int *out) {
  __shared__ alignas(8) uint64_t full[kStages];
  for (int i = threadIdx.x; i < kStages; i += blockDim.x)
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem(&full[i])) : "memory");
  asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
  asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
  if (threadIdx.x == 32)
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(smem(&full[0])) : "memory");
  asm volatile("{\n\t.reg .pred p;\n\tWAIT:\n\t"
               "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\n\t"
               "@!p bra WAIT;\n\t}" :: "r"(smem(&full[0])) : "memory");
  out[threadIdx.x] = 1;
}
// CHECK: relaxed-strided-cta.cu.tmp.cu:24:5: warning: mbarrier 'full' is initialised by the threads of the loop at line 23 (each its share) and used by the thread(s) where 'threadIdx.x == 32' after only a relaxed cluster barrier: barrier.cluster.arrive.relaxed orders no memory, so the initialising thread must execute fence.mbarrier_init.release.cluster before it arrives [proxyfence-mbarrier-init]
// CHECK: :25:3: note: this cluster barrier is relaxed: it publishes the initialisation only after fence.mbarrier_init.release.cluster
// CHECK: :28:5: note: used by other threads here (mbarrier.arrive.shared::cta)
// CHECK: :29:3: note: used by other threads here (mbarrier.try_wait.shared::cta)
// CHECK: :24:94: note: insert 'asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");' here
// CHECK: proxyfence: 1 finding in 1 file

// FIXED:      {{^    }}asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem(&full[i])) : "memory");
// FIXED-NEXT: {{^  }}asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
// FIXED-NEXT: {{^  }}asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");

// CLEAN-NOT: warning:
// CLEAN: proxyfence: 0 findings in 1 file
