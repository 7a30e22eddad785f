// Two CTAs multicast one TMA load into both (each loads half and signals
// both CTAs' `full` barrier). The init is published to the CTA by
// __syncthreads() but never to the cluster: no init fence, no cluster
// barrier. The fix: the init fence in thread 0's block, and a relaxed
// cluster arrive + wait after that block, where every thread passes.
// RUN: cp %s %t.cu
// RUN: not %proxyfence %t.cu 2>&1 | FileCheck %s
// RUN: %proxyfence --fix --quiet %t.cu
// RUN: FileCheck --check-prefix=FIXED --input-file=%t.cu %s
// RUN: %proxyfence %t.cu 2>&1 | FileCheck --check-prefix=CLEAN %s
// RUN: %nvcc-sm90a -cubin -o /dev/null %t.cu
#include <cuda.h>
#include <cstdint>

__device__ inline uint32_t smem(const void *p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__global__ void __cluster_dims__(2, 1, 1)
broadcast(const __grid_constant__ CUtensorMap tmap, float *out) {
  __shared__ alignas(128) float tile[64];
  __shared__ alignas(8) uint64_t full;
  uint32_t rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  if (threadIdx.x == 0)
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem(&full)) : "memory");
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 256;"
                 :: "r"(smem(&full)) : "memory");
    // This CTA's half of the tile, written into both CTAs.
    asm volatile("cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes"
                 ".multicast::cluster [%0], [%1, {%2}], [%3], %4;"
                 :: "r"(smem(tile + 32 * rank)), "l"(&tmap), "r"(32 * rank),
                    "r"(smem(&full)), "h"((uint16_t)0x3) : "memory");
  }
  asm volatile("{\n\t.reg .pred p;\n\tWAIT:\n\t"
               "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\n\t"
               "@!p bra WAIT;\n\t}" :: "r"(smem(&full)) : "memory");
  out[blockIdx.x * 64 + threadIdx.x % 64] = tile[threadIdx.x % 64];
}
// CHECK: multicast-tma.cu.tmp.cu:26:5: warning: mbarrier 'full' is used by another CTA of the cluster before its initialisation is visible there: no fence.mbarrier_init.release.cluster and no cluster barrier between them [proxyfence-mbarrier-init]
// CHECK: :32:5: note: used by another CTA of the cluster here (multicast TMA load)
// CHECK: :26:91: note: insert 'asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");' here
// CHECK: :26:91: note: insert 'asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory"); asm volatile("barrier.cluster.wait.aligned;" ::: "memory");' here
// CHECK: proxyfence: 1 finding in 1 file

// FIXED:      {{^  }}if (threadIdx.x == 0)
// FIXED-NEXT: {{^    }}{ asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem(&full)) : "memory"); asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory"); }
// FIXED-NEXT: {{^  }}asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
// FIXED-NEXT: {{^  }}asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
// FIXED-NEXT: {{^  }}__syncthreads();

// CLEAN: proxyfence: 0 findings in 1 file
