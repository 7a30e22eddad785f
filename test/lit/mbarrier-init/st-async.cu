// Distributed shared memory: each CTA stores a value into its peer's smem
// with st.async, completing on the peer's mbarrier. The barrier's init is
// never published to the cluster (only __syncthreads() follows it).
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

__global__ void __cluster_dims__(2, 1, 1) swap(const int *in, int *out) {
  __shared__ alignas(8) uint64_t received;
  __shared__ int value;
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem(&received)) : "memory");
    asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], 4;"
                 :: "r"(smem(&received)) : "memory");
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    uint32_t rank;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
    asm volatile("{\n\t.reg .b32 dst, bar;\n\t"
                 "mapa.shared::cluster.u32 dst, %0, %2;\n\t"
                 "mapa.shared::cluster.u32 bar, %1, %2;\n\t"
                 "st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [dst], %3, [bar];\n\t}"
                 :: "r"(smem(&value)), "r"(smem(&received)), "r"(rank ^ 1),
                    "r"(in[blockIdx.x]) : "memory");
  }
  asm volatile("{\n\t.reg .pred p;\n\tWAIT:\n\t"
               "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%0], 0;\n\t"
               "@!p bra WAIT;\n\t}" :: "r"(smem(&received)) : "memory");
  out[blockIdx.x] = value;
}
// CHECK: st-async.cu.tmp.cu:20:5: warning: mbarrier 'received' is used by another CTA of the cluster before its initialisation is visible there: no fence.mbarrier_init.release.cluster and no cluster barrier between them [proxyfence-mbarrier-init]
// CHECK: :28:5: note: used by another CTA of the cluster here (st.async.shared::cluster)
// CHECK: :20:95: note: insert 'asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");' here
// CHECK: :23:4: note: insert 'asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory"); asm volatile("barrier.cluster.wait.aligned;" ::: "memory");' here
// CHECK: proxyfence: 1 finding in 1 file

// The fence follows the init itself, before the expect_tx.
// FIXED:      {{^    }}asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem(&received)) : "memory");
// FIXED-NEXT: {{^    }}asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
// FIXED-NEXT: {{^    }}asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], 4;"
// FIXED:      {{^  [}]$}}
// FIXED-NEXT: {{^  }}asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
// FIXED-NEXT: {{^  }}asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
// FIXED-NEXT: {{^  }}__syncthreads();

// CLEAN: proxyfence: 0 findings in 1 file
