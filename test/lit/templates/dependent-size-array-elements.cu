// In a kernel template that nothing instantiates, an array whose bound is a
// template parameter (`Barrier *bars[kStages]`, as pipelined kernels hold
// their stages' barriers and tiles) is dependent only through its size: its
// elements' class is known, so `bars[i]->init(1)` and `bars[0]->arrive(..)`
// resolve to the class's members. The init is then seen, and so is the peer
// CTA's remote arrive that needs it published to the cluster: __syncthreads
// alone is a finding; a cluster barrier after the init (-DPUBLISHED) is not.
// RUN: cp %s %t.cu
// RUN: not %proxyfence --stats %t.cu -- 2>&1 | FileCheck %s
// CHECK: dependent-size-array-elements.cu.tmp.cu:[[@LINE+34]]:{{[0-9]+}}: warning: an mbarrier is used by another CTA of the cluster before its initialisation is visible there{{.*}}[proxyfence-mbarrier-init]
// CHECK: proxyfence: 1 finding in 1 file
// CHECK: proxyfence: stats: template calls left unresolved: 0
// RUN: %proxyfence %t.cu -- -DPUBLISHED 2>&1 | FileCheck --check-prefix=CLEAN %s
// CLEAN: proxyfence: 0 findings in 1 file
// RUN: %proxyfence --fix --quiet %t.cu --
// RUN: FileCheck --check-prefix=FIXED --input-file=%t.cu %s
// FIXED: bars[i]->init(1); asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory"); }
// FIXED-NEXT: asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
// FIXED-NEXT: asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
// RUN: %proxyfence %t.cu -- 2>&1 | FileCheck --check-prefix=CLEAN %s
#include <cuda.h>

struct Barrier {
  unsigned long long state;
  __device__ void init(int count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;"
                 :: "r"((unsigned)__cvta_generic_to_shared(&state)), "r"(count) : "memory");
  }
  __device__ void arrive(unsigned cta) {
    asm volatile("{ .reg .b32 r; mapa.shared::cluster.u32 r, %0, %1; "
                 "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [r]; }"
                 :: "r"((unsigned)__cvta_generic_to_shared(&state)), "r"(cta) : "memory");
  }
};

template <int kStages>
__global__ void __cluster_dims__(2, 1, 1) staged() {
  extern __shared__ __align__(1024) unsigned char smem[];
  Barrier *bars[kStages];
  for (int i = 0; i < kStages; ++i)
    bars[i] = reinterpret_cast<Barrier *>(smem) + i;
  if (threadIdx.x == 0)
    for (int i = 0; i < kStages; ++i)
      bars[i]->init(1);
#ifdef PUBLISHED
  asm volatile("barrier.cluster.arrive;\nbarrier.cluster.wait;" ::: "memory");
#else
  __syncthreads();
#endif
  bars[0]->arrive(1);
}
