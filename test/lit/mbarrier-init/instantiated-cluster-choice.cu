// Instantiated kernels that pick their synchronisation by a template value,
// as FlashAttention-3 does (`if constexpr (size(ClusterShape{}) > 1) {
// cluster_arrive_relaxed(); cluster_wait(); } else { __syncthreads(); }`).
// The instantiation that keeps __syncthreads() has discarded the cluster
// barrier its pattern writes in the other arm: it runs without a cluster,
// so its `arrive(peer)` reaches its own CTA's barrier and the CTA barrier
// publishes the init. The instantiation with the cluster arm needs the init
// fence before the relaxed cluster barrier: `unfenced<2>` lacks it (one
// finding per init).
// RUN: not %proxyfence --disable=proxyfence-fence-clobber %s -- -I%S/Inputs 2>&1 | FileCheck %s
// RUN: %nvcc-sm90a -I%S/Inputs -cubin -o /dev/null %s
#include "mini_cutlass_barrier.h"

using Barrier = cutlass::arch::ClusterBarrier;


template <int kPeers>
__global__ void fenced(int *out) {
  __shared__ Barrier bars[2];
  if (threadIdx.x == 0) {
    bars[0].init(1);
    bars[1].init(1);
    cutlass::arch::fence_barrier_init();
  }
  if constexpr (kPeers > 1) {
    cute::cluster_arrive_relaxed();
    cute::cluster_wait();
  } else {
    __syncthreads();
  }
  uint32_t peer = (cute::block_rank_in_cluster() + 1) % kPeers;
  if (threadIdx.x == 0)
    bars[0].arrive(peer);
  bars[0].wait(0);
  out[blockIdx.x] = 1;
}

template <int kPeers>
__global__ void unfenced(int *out) {
  __shared__ Barrier bars[2];
  if (threadIdx.x == 0) {
    bars[0].init(1);
    bars[1].init(1);
  }
  if constexpr (kPeers > 1) {
    cute::cluster_arrive_relaxed();
    cute::cluster_wait();
  } else {
    __syncthreads();
  }
  uint32_t peer = (cute::block_rank_in_cluster() + 1) % kPeers;
  if (threadIdx.x == 0)
    bars[0].arrive(peer);
  bars[0].wait(0);
  out[blockIdx.x] = 1;
}

void launch(int *out, cudaStream_t s) {
  fenced<1><<<1, 128, 0, s>>>(out);
  unfenced<1><<<1, 128, 0, s>>>(out);
  cudaLaunchConfig_t cfg = {};
  cudaLaunchAttribute attr;
  attr.id = cudaLaunchAttributeClusterDimension;
  attr.val.clusterDim.x = 2;
  attr.val.clusterDim.y = attr.val.clusterDim.z = 1;
  cfg.gridDim = 2;
  cfg.blockDim = 128;
  cfg.stream = s;
  cfg.attrs = &attr;
  cfg.numAttrs = 1;
  cudaLaunchKernelEx(&cfg, fenced<2>, out);
  cudaLaunchKernelEx(&cfg, unfenced<2>, out);
}

// CHECK: .cu:[[#@LINE-33]]:5: warning: mbarrier 'bars' is used by another CTA of the cluster before its initialisation is visible there: no fence.mbarrier_init.release.cluster before the relaxed cluster barrier [proxyfence-mbarrier-init]
// CHECK: .cu:[[#@LINE-33]]:5: warning: mbarrier 'bars' is used by another CTA
// CHECK-NOT: warning:
// CHECK: proxyfence: 2 findings in 1 file
