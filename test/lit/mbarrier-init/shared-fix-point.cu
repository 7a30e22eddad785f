// Two inits in two `if`s, the second an unbraced body. Each needs an init
// fence in its own block and one relaxed cluster arrive + wait goes after
// the second `if`, at the very point where the braces added around its body
// close: the brace comes first. --export-fixes gives what --fix writes.
// REQUIRES: nvcc
// RUN: rm -rf %t && mkdir -p %t/fix %t/apply %t/yaml
// RUN: cp %s %t/fix/k.cu && cp %s %t/apply/k.cu
// RUN: not %proxyfence --export-fixes=%t/yaml/fixes.yaml %t/apply/k.cu 2>&1 | FileCheck %s
// RUN: clang-apply-replacements %t/yaml
// RUN: %proxyfence --fix --quiet %t/fix/k.cu
// RUN: cmp %t/fix/k.cu %t/apply/k.cu
// RUN: FileCheck --check-prefix=FIXED --input-file=%t/fix/k.cu %s
// RUN: %proxyfence %t/fix/k.cu 2>&1 | FileCheck --check-prefix=CLEAN %s
// RUN: %nvcc-sm90a -cubin -o /dev/null %t/fix/k.cu
#include <cstdint>

__device__ inline uint32_t smem(const void *p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ inline void arrive_on_peer(uint64_t *bar) {
  asm volatile("{\n\t.reg .b32 r;\n\tmapa.shared::cluster.u32 r, %0, 1;\n\t"
               "mbarrier.arrive.shared::cluster.b64 _, [r];\n\t}"
               :: "r"(smem(bar)) : "memory");
}

__global__ void __cluster_dims__(2, 1, 1) two_inits(int *out) {
  __shared__ alignas(8) uint64_t a, b;
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem(&b)) : "memory");
  }
  if (threadIdx.x == 0)
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem(&a)) : "memory");
  __syncthreads();
  if (threadIdx.x == 32) {
    arrive_on_peer(&a);
    arrive_on_peer(&b);
  }
  out[blockIdx.x] = 1;
}
// CHECK: k.cu:30:5: warning: mbarrier 'b' is used by another CTA of the cluster
// CHECK: k.cu:33:5: warning: mbarrier 'a' is used by another CTA of the cluster
// CHECK: proxyfence: 2 findings in 1 file

// FIXED:      {{^    }}asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem(&b)) : "memory");
// FIXED-NEXT: {{^    }}asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
// FIXED-NEXT: {{^  [}]$}}
// FIXED-NEXT: {{^  }}if (threadIdx.x == 0)
// FIXED-NEXT: {{^    }}{ asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem(&a)) : "memory"); asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory"); }
// FIXED-NEXT: {{^  }}asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
// FIXED-NEXT: {{^  }}asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
// FIXED-NEXT: {{^  }}__syncthreads();

// CLEAN: proxyfence: 0 findings in 1 file
