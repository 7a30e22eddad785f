// CUTLASS style: one thread initialises a ClusterBarrier per pipeline stage
// in a loop, the cluster passes cute::cluster_arrive_relaxed() +
// cute::cluster_wait(), and each CTA then arrives on its peer's barriers.
// cutlass::arch::fence_barrier_init() is missing: it goes after the loop of
// inits, in the initialising thread's block, spelled the CUTLASS way.
// RUN: cp %s %t.cu
// RUN: not %proxyfence --disable=proxyfence-fence-clobber %t.cu -- -I%S/Inputs 2>&1 | FileCheck %s
// RUN: %proxyfence --disable=proxyfence-fence-clobber --fix --quiet %t.cu -- -I%S/Inputs
// RUN: FileCheck --check-prefix=FIXED --input-file=%t.cu %s
// RUN: %proxyfence --disable=proxyfence-fence-clobber %t.cu -- -I%S/Inputs 2>&1 | FileCheck --check-prefix=CLEAN %s
// RUN: %nvcc-sm90a -I%S/Inputs -cubin -o /dev/null %t.cu
#include "mini_cutlass_barrier.h"

constexpr int Stages = 4;

__global__ void __cluster_dims__(2, 1, 1) exchange(int *out) {
  __shared__ cutlass::arch::ClusterBarrier ready[Stages];
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (warp == 0 && lane == 0) {
    for (int s = 0; s < Stages; ++s)
      ready[s].init(1);
  }
  cute::cluster_arrive_relaxed();
  cute::cluster_wait();
  uint32_t peer = cute::block_rank_in_cluster() ^ 1;
  if (threadIdx.x == 0)
    for (int s = 0; s < Stages; ++s)
      ready[s].arrive(peer);
  for (int s = 0; s < Stages; ++s)
    ready[s].wait(0);
  out[blockIdx.x] = 1;
}
// CHECK: cutlass-cluster-barrier.cu.tmp.cu:21:7: warning: mbarrier 'ready' is used by another CTA of the cluster before its initialisation is visible there: no fence.mbarrier_init.release.cluster before the relaxed cluster barrier [proxyfence-mbarrier-init]
// CHECK: mini_cutlass_barrier.h:74:5: note: mbarrier initialised here, inside 'init'
// CHECK: mini_cutlass_barrier.h:15:3: note: this cluster barrier is relaxed: it publishes the initialisation only after fence.mbarrier_init.release.cluster, inside 'cluster_arrive_relaxed'
// CHECK: cutlass-cluster-barrier.cu.tmp.cu:23:3: note: inside 'cluster_arrive_relaxed', called here
// CHECK: mini_cutlass_barrier.h:104:5: note: used by another CTA of the cluster here (mbarrier.arrive.shared::cluster), inside 'arrive'
// CHECK: cutlass-cluster-barrier.cu.tmp.cu:28:7: note: inside 'arrive', called here
// CHECK: cutlass-cluster-barrier.cu.tmp.cu:21:24: note: insert 'cutlass::arch::fence_barrier_init();' here
// CHECK: proxyfence: 1 finding in 1 file

// The header declares the fence: no include is added.
// FIXED:      {{^}}#include "mini_cutlass_barrier.h"
// FIXED-EMPTY:
// FIXED-NEXT: {{^}}constexpr int Stages = 4;
// The fence follows the loop, not its body: it runs once.
// FIXED:      {{^    }}for (int s = 0; s < Stages; ++s)
// FIXED-NEXT: {{^      }}ready[s].init(1);
// FIXED-NEXT: {{^    }}cutlass::arch::fence_barrier_init();
// FIXED-NEXT: {{^  [}]$}}

// CLEAN: proxyfence: 0 findings in 1 file

// The header's fence_barrier_init is CUTLASS's, without a "memory" clobber
// (proxyfence-fence-clobber, tested in fence-clobber/): off here, so that
// --fix leaves the header in the source tree alone.
