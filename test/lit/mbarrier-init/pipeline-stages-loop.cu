// A warp-specialised pipeline over a cluster of two CTAs: thread 0
// initialises a `full` and an `empty` barrier per stage in one loop; the
// producer multicasts each stage into both CTAs (completing on `full`) and
// the consumers release a stage to both producers by arriving on `empty`
// through `mapa`. Only __syncthreads() follows the inits. One init fence goes
// after the loop (not inside it) and one relaxed cluster arrive + wait after
// thread 0's block, for both arrays.
// RUN: cp %s %t.cu
// RUN: not %proxyfence %t.cu 2>&1 | FileCheck %s
// RUN: %proxyfence --fix --quiet %t.cu
// RUN: FileCheck --check-prefix=FIXED --input-file=%t.cu %s
// RUN: %proxyfence %t.cu 2>&1 | FileCheck --check-prefix=CLEAN %s
// RUN: %nvcc-sm90a -cubin -o /dev/null %t.cu
#include <cuda.h>
#include <cstdint>

constexpr int Stages = 4;

__device__ inline uint32_t smem(const void *p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ inline void wait(uint64_t *bar, uint32_t phase) {
  asm volatile("{\n\t.reg .pred p;\n\tWAIT:\n\t"
               "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n\t"
               "@!p bra WAIT;\n\t}" :: "r"(smem(bar)), "r"(phase) : "memory");
}

__global__ void __cluster_dims__(2, 1, 1)
pipeline(const __grid_constant__ CUtensorMap tmap, float *out, int tiles) {
  __shared__ alignas(128) float buf[Stages][64];
  __shared__ alignas(8) uint64_t full[Stages], empty[Stages];
  uint32_t rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  if (threadIdx.x == 0) {
    for (int s = 0; s < Stages; ++s) {
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem(&full[s])) : "memory");
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 256;" :: "r"(smem(&empty[s])) : "memory");
    }
  }
  __syncthreads();
  if (threadIdx.x == 0) { // producer
    for (int t = 0; t < tiles; ++t) {
      int s = t % Stages;
      if (t >= Stages)
        wait(&empty[s], (t / Stages + 1) & 1);
      asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 256;"
                   :: "r"(smem(&full[s])) : "memory");
      asm volatile("cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes"
                   ".multicast::cluster [%0], [%1, {%2}], [%3], %4;"
                   :: "r"(smem(&buf[s][32 * rank])), "l"(&tmap), "r"(t * 64 + 32 * rank),
                      "r"(smem(&full[s])), "h"((uint16_t)0x3) : "memory");
    }
  } else if (threadIdx.x >= 128) { // consumers
    float acc = 0;
    for (int t = 0; t < tiles; ++t) {
      int s = t % Stages;
      wait(&full[s], (t / Stages) & 1);
      acc += buf[s][threadIdx.x % 64];
      // Free the stage in both CTAs (each producer writes into both), after
      // ordering the read before the next TMA write.
      asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
      for (uint32_t cta = 0; cta < 2; ++cta)
        asm volatile("{\n\t.reg .b32 remote;\n\t"
                     "mapa.shared::cluster.u32 remote, %0, %1;\n\t"
                     "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [remote];\n\t}"
                     :: "r"(smem(&empty[s])), "r"(cta) : "memory");
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
  }
}
// CHECK: pipeline-stages-loop.cu.tmp.cu:37:7: warning: mbarrier 'full' is used by another CTA of the cluster before its initialisation is visible there: no fence.mbarrier_init.release.cluster and no cluster barrier between them [proxyfence-mbarrier-init]
// CHECK: :49:7: note: used by another CTA of the cluster here (multicast TMA load)
// CHECK: :39:6: note: insert 'asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");' here
// CHECK: :40:4: note: insert 'asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory"); asm volatile("barrier.cluster.wait.aligned;" ::: "memory");' here
// CHECK: pipeline-stages-loop.cu.tmp.cu:38:7: warning: mbarrier 'empty' is used by another CTA of the cluster before its initialisation is visible there: no fence.mbarrier_init.release.cluster and no cluster barrier between them [proxyfence-mbarrier-init]
// CHECK: :64:9: note: used by another CTA of the cluster here (mbarrier.arrive.shared::cluster)
// CHECK: :39:6: note: insert 'asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");' here
// CHECK: :40:4: note: insert 'asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory"); asm volatile("barrier.cluster.wait.aligned;" ::: "memory");' here
// CHECK-NOT: warning:
// CHECK: proxyfence: 2 findings in 1 file

// One fence after the loop, one cluster barrier after thread 0's block.
// FIXED:      {{^      }}asm volatile("mbarrier.init.shared::cta.b64 [%0], 256;" :: "r"(smem(&empty[s])) : "memory");
// FIXED-NEXT: {{^    [}]$}}
// FIXED-NEXT: {{^    }}asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
// FIXED-NEXT: {{^  [}]$}}
// FIXED-NEXT: {{^  }}asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
// FIXED-NEXT: {{^  }}asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
// FIXED-NEXT: {{^  }}__syncthreads();
// FIXED-NOT:  {{^ +}}asm volatile("fence.mbarrier_init

// CLEAN: proxyfence: 0 findings in 1 file
