// libcu++'s <cuda/ptx> spelling throughout: cuda::ptx::mbarrier_init, a
// relaxed cuda::ptx::barrier_cluster_arrive, and a remote arrive through
// cooperative groups' map_shared_rank. The missing init fence is inserted as
// cuda::ptx::fence_mbarrier_init, the file's own spelling.
// RUN: cp %s %t.cu
// RUN: not %proxyfence %t.cu 2>&1 | FileCheck %s
// RUN: %proxyfence --fix --quiet %t.cu
// RUN: FileCheck --check-prefix=FIXED --input-file=%t.cu %s
// RUN: %proxyfence %t.cu 2>&1 | FileCheck --check-prefix=CLEAN %s
// RUN: %nvcc-sm90a -cubin -o /dev/null %t.cu
#include <cooperative_groups.h>
#include <cuda/ptx>
#include <cstdint>

namespace ptx = cuda::ptx;

__global__ void __cluster_dims__(2, 1, 1) handshake(int *out) {
  __shared__ uint64_t bar;
  auto cluster = cooperative_groups::this_cluster();
  if (threadIdx.x == 0)
    ptx::mbarrier_init(&bar, 1);
  ptx::barrier_cluster_arrive(ptx::sem_relaxed);
  ptx::barrier_cluster_wait();
  if (threadIdx.x == 0) {
    uint64_t *remote = cluster.map_shared_rank(&bar, cluster.block_rank() ^ 1);
    ptx::mbarrier_arrive(ptx::sem_release, ptx::scope_cluster, ptx::space_cluster, remote);
  }
  while (!ptx::mbarrier_try_wait_parity(&bar, 0)) {
  }
  out[blockIdx.x] = 1;
}
// CHECK: cuda-ptx.cu.tmp.cu:21:5: warning: mbarrier 'bar' is used by another CTA of the cluster before its initialisation is visible there: no fence.mbarrier_init.release.cluster before the relaxed cluster barrier [proxyfence-mbarrier-init]
// CHECK: mbarrier_init.h:{{[0-9]+}}:{{[0-9]+}}: note: mbarrier initialised here, inside 'mbarrier_init'
// CHECK: barrier_cluster.h:{{[0-9]+}}:{{[0-9]+}}: note: this cluster barrier is relaxed: it publishes the initialisation only after fence.mbarrier_init.release.cluster, inside 'barrier_cluster_arrive'
// CHECK: cuda-ptx.cu.tmp.cu:22:3: note: inside 'barrier_cluster_arrive', called here
// CHECK: mbarrier_arrive.h:{{[0-9]+}}:{{[0-9]+}}: note: used by another CTA of the cluster here (mbarrier.arrive.shared::cluster), inside 'mbarrier_arrive'
// CHECK: cuda-ptx.cu.tmp.cu:26:5: note: inside 'mbarrier_arrive', called here
// CHECK: cuda-ptx.cu.tmp.cu:21:33: note: insert 'cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);' here
// CHECK: proxyfence: 1 finding in 1 file

// <cuda/ptx> is already included.
// FIXED:      {{^}}#include <cuda/ptx>
// FIXED-NEXT: {{^}}#include <cstdint>
// FIXED-EMPTY:
// FIXED:      {{^  }}if (threadIdx.x == 0)
// FIXED-NEXT: {{^    }}{ ptx::mbarrier_init(&bar, 1); cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster); }
// FIXED-NEXT: {{^  }}ptx::barrier_cluster_arrive(ptx::sem_relaxed);

// CLEAN: proxyfence: 0 findings in 1 file
