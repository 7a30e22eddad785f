// Cluster of two CTAs with a relaxed cluster barrier but no
// fence.mbarrier_init.release.cluster: the relaxed arrive orders nothing, so
// the peer may arrive (through `mapa`) on a barrier whose init it cannot see
// yet. The fix is the init fence right after the init, in the initialising
// thread's block, before the relaxed arrive.
// RUN: cp %s %t.cu
// RUN: not %proxyfence %t.cu 2>&1 | FileCheck %s
// RUN: %proxyfence --disable=proxyfence-mbarrier-init %t.cu 2>&1 | FileCheck --check-prefix=CLEAN %s
// RUN: %proxyfence --fix --quiet %t.cu
// RUN: FileCheck --check-prefix=FIXED --input-file=%t.cu %s
// RUN: %proxyfence %t.cu 2>&1 | FileCheck --check-prefix=CLEAN %s
// RUN: %nvcc-sm90a -cubin -o /dev/null %t.cu
#include <cstdint>

__device__ inline uint32_t smem(const void *p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__global__ void __cluster_dims__(2, 1, 1) handshake(int *out) {
  __shared__ alignas(8) uint64_t bar;
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem(&bar)) : "memory");
  }
  asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
  asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
  if (threadIdx.x == 0) {
    uint32_t rank;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
    asm volatile("{\n\t.reg .b32 remote;\n\t"
                 "mapa.shared::cluster.u32 remote, %0, %1;\n\t"
                 "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [remote];\n\t}"
                 :: "r"(smem(&bar)), "r"(rank ^ 1) : "memory");
  }
  asm volatile("{\n\t.reg .pred p;\n\tWAIT:\n\t"
               "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%0], 0;\n\t"
               "@!p bra WAIT;\n\t}" :: "r"(smem(&bar)) : "memory");
  out[blockIdx.x] = 1;
}
// CHECK: cluster-relaxed-only.cu.tmp.cu:22:5: warning: mbarrier 'bar' is used by another CTA of the cluster before its initialisation is visible there: no fence.mbarrier_init.release.cluster before the relaxed cluster barrier [proxyfence-mbarrier-init]
// CHECK: :24:3: note: this cluster barrier is relaxed: it publishes the initialisation only after fence.mbarrier_init.release.cluster
// CHECK: :29:5: note: used by another CTA of the cluster here (mbarrier.arrive.shared::cluster)
// CHECK: :22:90: note: insert 'asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");' here
// CHECK: proxyfence: 1 finding in 1 file

// FIXED:      {{^    }}asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem(&bar)) : "memory");
// FIXED-NEXT: {{^    }}asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
// FIXED-NEXT: {{^  [}]$}}
// FIXED-NEXT: {{^  }}asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");

// CLEAN-NOT: warning:
// CLEAN: proxyfence: 0 findings in 1 file
