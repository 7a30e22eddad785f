// --fix --verify for proxyfence-mbarrier-init: the barrier is initialised by
// thread 0 and arrived on by the other CTA of the cluster after a *relaxed*
// cluster barrier. The fix adds fence.mbarrier_init.release.cluster after the
// init; in the PTX, every path from the init to the remote arrive must then
// pass that fence and a cluster arrive + wait.
// REQUIRES: nvcc
// RUN: cp %s %t.cu
// RUN: %proxyfence --fix --verify %t.cu > %t.out 2>&1
// RUN: FileCheck --input-file=%t.out %s
// RUN: not %proxyfence verify %s 2>&1 | FileCheck --check-prefix=ORIG %s
#include <cstdint>

__global__ void __cluster_dims__(2, 1, 1) remote_arrive(float *out) {
  __shared__ alignas(8) uint64_t bar;
  const uint32_t b = static_cast<uint32_t>(__cvta_generic_to_shared(&bar));
  if (threadIdx.x == 0)
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 2;" :: "r"(b) : "memory");
  asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
  asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
  if (threadIdx.x == 0) {
    uint32_t peer;
    asm volatile("mapa.shared::cluster.u32 %0, %1, 1;" : "=r"(peer) : "r"(b));
    asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];"
                 :: "r"(peer) : "memory");
  }
  out[threadIdx.x] = 1.0f;
}
// CHECK: fix-verify-mbarrier.cu.tmp.cu:17:5: warning: mbarrier 'bar' is used by another CTA of the cluster before its initialisation is visible there
// CHECK: verified: {{.*}}fix-verify-mbarrier.cu.tmp.cu: 1 finding, fence present on every path in PTX
// CHECK: proxyfence: 1 finding in 1 file, 1 fixed, 0 left

// ORIG: .ptx:[[#]]:2: warning: mbarrier used by another CTA of the cluster before its initialisation is visible there: no fence.mbarrier_init.release.cluster and cluster barrier on the path [proxyfence-mbarrier-init]
// ORIG-NEXT: fix-verify-mbarrier.cu:24:25: note: used here (mbarrier.arrive.release.cluster.shared::cluster.b64)
// ORIG-NEXT: .ptx:[[#]]:2: note: initialised here (mbarrier.init.shared::cta.b64)
// ORIG-NEXT: fix-verify-mbarrier.cu:17:5: note: initialised here (mbarrier.init.shared::cta.b64)
// ORIG: FAILED: 1 cross-CTA mbarrier use reached before the init is published in the PTX
