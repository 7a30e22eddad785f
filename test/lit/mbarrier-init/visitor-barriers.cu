// A kernel template that nothing instantiates keeps its mbarriers behind a
// visitor: a small class template whose operator[] returns what a lambda it
// stores returns (`auto bars = Visitor([=](uint32_t i) { return base + i;
// });`). In the pattern `bars[s]->init(1)` has no callee; its object's type
// is the lambda's return type, so the member is ClusterBarrier::init and the
// barrier is the dynamic shared memory the lambda points into. The peer
// arrives remotely after a relaxed cluster barrier only: the init fence is
// missing. Beside it the fenced kernel, a single-CTA kernel whose CTA
// barrier suffices, and a kernel that picks the cluster barrier by a
// template parameter (`kPeers > 1 ? cluster sync : __syncthreads()`): the
// instantiations taking __syncthreads() run without a cluster.
// RUN: not %proxyfence --disable=proxyfence-fence-clobber %s -- -I%S/Inputs 2>&1 | FileCheck %s
// RUN: %nvcc-sm90a -I%S/Inputs -cubin -o /dev/null %s
#include "mini_cutlass_barrier.h"
#include <utility>

template <typename Fn>
struct Visitor {
  Fn fn;
  __device__ explicit Visitor(Fn &&f) : fn(std::forward<Fn>(f)) {}
  __device__ auto operator[](const uint32_t &i) const { return fn(i); }
};

using Barrier = cutlass::arch::ClusterBarrier;

template <uint32_t kStages>
__global__ void __cluster_dims__(2, 1, 1) unfenced(int *out) {
  extern __shared__ __align__(16) uint8_t smem[];
  auto base = reinterpret_cast<Barrier *>(smem);
  auto bars = Visitor([=](const uint32_t &i) { return base + i; });
  if (threadIdx.x == 0) {
    for (uint32_t s = 0; s < kStages; ++s)
      bars[s]->init(1);
  }
  cute::cluster_arrive_relaxed();
  cute::cluster_wait();
  uint32_t peer = cute::block_rank_in_cluster() ^ 1;
  if (threadIdx.x == 0)
    for (uint32_t s = 0; s < kStages; ++s)
      bars[s]->arrive(peer);
  for (uint32_t s = 0; s < kStages; ++s)
    (*bars[s]).wait(0);
  out[blockIdx.x] = 1;
}
// CHECK: visitor-barriers.cu:33:7: warning: mbarrier {{.*}} is used by another CTA of the cluster before its initialisation is visible there: no fence.mbarrier_init.release.cluster before the relaxed cluster barrier [proxyfence-mbarrier-init]
// CHECK: mini_cutlass_barrier.h:74:5: note: mbarrier initialised here, inside 'init'
// CHECK: visitor-barriers.cu:35:3: note: inside 'cluster_arrive_relaxed', called here
// CHECK: note: used by another CTA of the cluster here (mbarrier.arrive.shared::cluster), inside 'arrive'
// CHECK: visitor-barriers.cu:40:7: note: inside 'arrive', called here
// CHECK: visitor-barriers.cu:33:24: note: insert 'cutlass::arch::fence_barrier_init();' here

// The same with the init fence: published.
template <uint32_t kStages>
__global__ void __cluster_dims__(2, 1, 1) fenced(int *out) {
  extern __shared__ __align__(16) uint8_t smem[];
  auto base = reinterpret_cast<Barrier *>(smem);
  auto bars = Visitor([=](const uint32_t &i) { return base + i; });
  if (threadIdx.x == 0) {
    for (uint32_t s = 0; s < kStages; ++s)
      bars[s]->init(1);
    cutlass::arch::fence_barrier_init();
  }
  cute::cluster_arrive_relaxed();
  cute::cluster_wait();
  uint32_t peer = cute::block_rank_in_cluster() ^ 1;
  if (threadIdx.x == 0)
    for (uint32_t s = 0; s < kStages; ++s)
      bars[s]->arrive(peer);
  for (uint32_t s = 0; s < kStages; ++s)
    bars[s]->wait(0);
  out[blockIdx.x] = 1;
}

// One CTA: the init needs only the CTA barrier before the other threads
// wait on it.
template <uint32_t kStages>
__global__ void single_cta(int *out) {
  extern __shared__ __align__(16) uint8_t smem[];
  auto base = reinterpret_cast<Barrier *>(smem);
  auto bars = Visitor([=](const uint32_t &i) { return base + i; });
  if (threadIdx.x == 0)
    for (uint32_t s = 0; s < kStages; ++s)
      bars[s]->init(1);
  __syncthreads();
  if (threadIdx.x == 32)
    bars[0]->arrive();
  bars[0]->wait(0);
  out[blockIdx.x] = 1;
}

// ... and without it the other threads may wait on an uninitialised
// barrier.
template <uint32_t kStages>
__global__ void single_cta_unsynced(int *out) {
  extern __shared__ __align__(16) uint8_t smem[];
  auto base = reinterpret_cast<Barrier *>(smem);
  auto bars = Visitor([=](const uint32_t &i) { return base + i; });
  if (threadIdx.x == 0)
    for (uint32_t s = 0; s < kStages; ++s)
      bars[s]->init(1);
  bars[0]->wait(0);
  out[blockIdx.x] = 1;
}
// CHECK: visitor-barriers.cu:100:7: warning: mbarrier {{.*}} is used by other threads before a CTA-wide barrier (__syncthreads) makes its initialisation visible to them [proxyfence-mbarrier-init]
// CHECK: visitor-barriers.cu:101:3: note: inside 'wait', called here

// The cluster barrier chosen per instantiation: with one CTA a CTA barrier
// publishes the init, with two the fenced relaxed cluster barrier does.
template <uint32_t kStages, uint32_t kPeers>
__global__ void chosen_sync(int *out) {
  extern __shared__ __align__(16) uint8_t smem[];
  auto base = reinterpret_cast<Barrier *>(smem);
  auto bars = Visitor([=](const uint32_t &i) { return base + i; });
  if (threadIdx.x == 0) {
    for (uint32_t s = 0; s < kStages; ++s)
      bars[s]->init(1);
    cutlass::arch::fence_barrier_init();
  }
  kPeers > 1 ? (cute::cluster_arrive_relaxed(), cute::cluster_wait())
             : __syncthreads();
  uint32_t peer = cute::block_rank_in_cluster() ^ 1;
  if (threadIdx.x == 0)
    bars[0]->arrive(peer);
  bars[0]->wait(0);
  out[blockIdx.x] = 1;
}

// The same choice with the init fence missing: the cluster arm is wrong.
template <uint32_t kStages, uint32_t kPeers>
__global__ void chosen_sync_unfenced(int *out) {
  extern __shared__ __align__(16) uint8_t smem[];
  auto base = reinterpret_cast<Barrier *>(smem);
  auto bars = Visitor([=](const uint32_t &i) { return base + i; });
  if (threadIdx.x == 0)
    for (uint32_t s = 0; s < kStages; ++s)
      bars[s]->init(1);
  if constexpr (kPeers > 1) {
    cute::cluster_arrive_relaxed();
    cute::cluster_wait();
  } else {
    __syncthreads();
  }
  uint32_t peer = cute::block_rank_in_cluster() ^ 1;
  if (threadIdx.x == 0)
    bars[0]->arrive(peer);
  bars[0]->wait(0);
  out[blockIdx.x] = 1;
}
// CHECK: visitor-barriers.cu:136:7: warning: mbarrier {{.*}} is used by another CTA of the cluster before its initialisation is visible there: no fence.mbarrier_init.release.cluster before the relaxed cluster barrier [proxyfence-mbarrier-init]
// CHECK: visitor-barriers.cu:145:5: note: inside 'arrive', called here

// A choice made at run time is no per-instantiation choice: the CTA barrier
// arm publishes nothing to the peer that then arrives.
template <uint32_t kStages>
__global__ void runtime_choice(int *out, bool clustered) {
  extern __shared__ __align__(16) uint8_t smem[];
  auto base = reinterpret_cast<Barrier *>(smem);
  auto bars = Visitor([=](const uint32_t &i) { return base + i; });
  if (threadIdx.x == 0) {
    for (uint32_t s = 0; s < kStages; ++s)
      bars[s]->init(1);
    cutlass::arch::fence_barrier_init();
  }
  clustered ? (cute::cluster_arrive_relaxed(), cute::cluster_wait())
            : __syncthreads();
  uint32_t peer = cute::block_rank_in_cluster() ^ 1;
  if (threadIdx.x == 0)
    bars[0]->arrive(peer);
  bars[0]->wait(0);
  out[blockIdx.x] = 1;
}
// CHECK: visitor-barriers.cu:161:7: warning: mbarrier {{.*}} is used by another CTA of the cluster before its initialisation is visible there: no cluster barrier after the init fence [proxyfence-mbarrier-init]

// A helper that arrives on the peer only when asked to multicast, called
// from the pattern with its default (`kWidth` makes the call dependent):
// the default argument keeps the remote arrive out, so the CTA barrier
// suffices.
template <uint32_t kWidth>
__device__ void arrive_stage(const Barrier *bar, uint32_t multicast = 1) {
  if (multicast == 1)
    bar->arrive();
  else
    bar->arrive(cute::block_rank_in_cluster() ^ 1);
}

template <uint32_t kStages>
__global__ void default_argument(int *out) {
  extern __shared__ __align__(16) uint8_t smem[];
  auto base = reinterpret_cast<Barrier *>(smem);
  auto bars = Visitor([=](const uint32_t &i) { return base + i; });
  if (threadIdx.x == 0)
    for (uint32_t s = 0; s < kStages; ++s)
      bars[s]->init(1);
  __syncthreads();
  if (threadIdx.x == 32)
    arrive_stage<kStages>(bars[0]);
  bars[0]->wait(0);
  out[blockIdx.x] = 1;
}
// CHECK-NOT: warning:
// CHECK: proxyfence: 4 findings in 1 file

// The stage and phase of a type only the instantiation knows (`auto` from a
// dependent scheduler), and `arrive(0u)`, which the static
// `arrive(const uint64_t *)` could also take: still ClusterBarrier's wait
// and remote arrive, so the missing init fence is seen.
// RUN: not %proxyfence --disable=proxyfence-fence-clobber %s -- -I%S/Inputs -DDEPENDENT_INDEX 2>&1 | FileCheck --check-prefix=INDEX %s
#ifdef DEPENDENT_INDEX
template <class Iter> struct Schedule { Iter iter; };

template <uint32_t kStages, class Iter>
__global__ void __cluster_dims__(2, 1, 1) dependent_index(int *out, Iter it) {
  extern __shared__ __align__(16) uint8_t smem[];
  auto base = reinterpret_cast<Barrier *>(smem);
  auto bars = Visitor([=](const uint32_t &i) { return base + i; });
  if (threadIdx.x == 0)
    for (uint32_t s = 0; s < kStages; ++s)
      bars[s]->init(1);
  cute::cluster_arrive_relaxed();
  cute::cluster_wait();
  auto sched = Schedule<Iter>{it};
  auto stage = sched.iter % kStages;
  auto phase = (sched.iter / kStages) & 1;
  if (threadIdx.x == 0)
    bars[stage]->arrive(0u);
  bars[stage]->wait(phase ^ 1);
  out[blockIdx.x] = 1;
}
#endif
// INDEX: visitor-barriers.cu:218:7: warning: mbarrier {{.*}} is used by another CTA of the cluster before its initialisation is visible there: no fence.mbarrier_init.release.cluster before the relaxed cluster barrier [proxyfence-mbarrier-init]
// INDEX: visitor-barriers.cu:225:5: note: inside 'arrive', called here
// INDEX: proxyfence: 5 findings in 1 file
