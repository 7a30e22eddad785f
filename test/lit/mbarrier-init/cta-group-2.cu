// Blackwell CTA pair (sm_100a): the leader CTA's MMA completion is signalled
// to both CTAs' barriers by a cta_group::2 tcgen05.commit with
// .multicast::cluster. The peer's barrier must have been initialised and
// fenced: here the cluster barrier is relaxed and the init fence is missing.
// RUN: cp %s %t.cu
// RUN: not %proxyfence --arch=sm_100a %t.cu 2>&1 | FileCheck %s
// RUN: %proxyfence --arch=sm_100a --fix --quiet %t.cu
// RUN: FileCheck --check-prefix=FIXED --input-file=%t.cu %s
// RUN: %proxyfence --arch=sm_100a %t.cu 2>&1 | FileCheck --check-prefix=CLEAN %s
// RUN: %nvcc-sm100a -cubin -o /dev/null %t.cu
#include <cstdint>

__device__ inline uint32_t smem(const void *p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__global__ void __cluster_dims__(2, 1, 1) pair_commit(int *out) {
  __shared__ alignas(8) uint64_t mma_done;
  uint32_t rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  if (threadIdx.x == 0)
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem(&mma_done)) : "memory");
  asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
  asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
  // The leader issues the pair's MMAs (not shown) and signals both CTAs.
  if (rank == 0 && threadIdx.x == 0)
    asm volatile("tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster"
                 ".multicast::cluster.b64 [%0], %1;"
                 :: "r"(smem(&mma_done)), "h"((uint16_t)0x3) : "memory");
  asm volatile("{\n\t.reg .pred p;\n\tWAIT:\n\t"
               "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\n\t"
               "@!p bra WAIT;\n\t}" :: "r"(smem(&mma_done)) : "memory");
  out[blockIdx.x] = 1;
}
// CHECK: cta-group-2.cu.tmp.cu:22:5: warning: mbarrier 'mma_done' is used by another CTA of the cluster before its initialisation is visible there: no fence.mbarrier_init.release.cluster before the relaxed cluster barrier [proxyfence-mbarrier-init]
// CHECK: :23:3: note: this cluster barrier is relaxed: it publishes the initialisation only after fence.mbarrier_init.release.cluster
// CHECK: :27:5: note: used by another CTA of the cluster here (tcgen05.commit.cta_group::2)
// CHECK: :22:95: note: insert 'asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");' here
// CHECK: proxyfence: 1 finding in 1 file

// FIXED:      {{^  }}if (threadIdx.x == 0)
// FIXED-NEXT: {{^    }}{ asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem(&mma_done)) : "memory"); asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory"); }
// FIXED-NEXT: {{^  }}asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");

// CLEAN: proxyfence: 0 findings in 1 file
