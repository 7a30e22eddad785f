// An mbarrier placed by the index of a warp (or of a group of warps) is
// that group's own: no other thread computes its address. The group's
// barrier makes the init visible to every thread that uses it: `__syncwarp`
// for a warp (PTX ISA, bar.warp.sync: it orders the memory accesses of the
// threads taking part), or the named barrier whose id is the group's index.
// Kernels `per_warp`, `per_warp_array`, `per_warp_helper` and `per_group`
// are correct (DeepEP's per-warp TMA pipelines). The others are not: a
// barrier every warp shares, an index that several warps share
// (`warp % 2`), a named barrier that is not the group's, and one that
// counts fewer threads than the group has, the next warp's barrier, a
// barrier only one warp initialises, and one placed by the lane.
// RUN: not %proxyfence %s 2>&1 | FileCheck %s
// RUN: %nvcc-sm90a -cubin -o /dev/null %s
#include "Inputs/raw_mbarrier.h"

__device__ static inline void group_sync(int id, int threads) {
  asm volatile("bar.sync %0, %1;" :: "r"(id), "r"(threads));
}
__device__ static inline int warp_idx() {
  return __shfl_sync(0xffffffff, threadIdx.x / 32, 0);
}
extern __shared__ __align__(16) uint8_t smem[];

__global__ void per_warp() {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  auto *bars = reinterpret_cast<uint64_t *>(smem + warp * 64);
  if (lane < 2)
    init_bar(bars + lane, 1);
  __syncwarp();
  arrive(bars + 1);
}

__global__ void per_warp_array() {
  __shared__ uint64_t bars[8];
  int warp = threadIdx.x >> 5;
  if (threadIdx.x % 32 == 0)
    init_bar(&bars[warp], 32);
  __syncwarp();
  arrive(&bars[warp]);
}

__global__ void per_warp_helper() {
  uint64_t *bar = reinterpret_cast<uint64_t *>(smem) + warp_idx();
  if (threadIdx.x % 32 == 0)
    init_bar(bar, 32);
  __syncwarp();
  arrive(bar);
}

template <int kWarps>
__global__ void per_group() {
  const auto warp = static_cast<int>(threadIdx.x) / 32;
  const int group = __shfl_sync(0xffffffff, warp / kWarps, 0);
  const auto mine = smem + 1024 * group;
  auto bars = [=](int i) { return reinterpret_cast<uint64_t *>(mine + i * 16); };
  if (warp % kWarps == 0 && threadIdx.x % 32 < 2)
    init_bar(bars(threadIdx.x % 32), 1);
  group_sync(group + 1, kWarps * 32);
  arrive(bars(1));
}
template __global__ void per_group<4>();

__global__ void shared_by_all() {
  auto *bar = reinterpret_cast<uint64_t *>(smem);
  if (threadIdx.x % 32 == 0)
    init_bar(bar, 32);
  __syncwarp();
  arrive(bar);
}
// CHECK-DAG: .cu:[[#@LINE-4]]:5: warning: mbarrier dynamic shared memory is used by other threads before a CTA-wide barrier {{.*}}[proxyfence-mbarrier-init]

__global__ void two_warps_share() {
  const int warp = threadIdx.x / 32;
  auto *bar = reinterpret_cast<uint64_t *>(smem + (warp % 2) * 64);
  if (threadIdx.x % 32 == 0)
    init_bar(bar, 32);
  __syncwarp();
  arrive(bar);
}
// CHECK-DAG: .cu:[[#@LINE-4]]:5: warning: mbarrier dynamic shared memory is used by other threads before a CTA-wide barrier {{.*}}[proxyfence-mbarrier-init]

__global__ void not_the_groups_barrier() {
  const int group = threadIdx.x / 128;
  auto *bar = reinterpret_cast<uint64_t *>(smem + group * 64);
  if (threadIdx.x % 128 == 0)
    init_bar(bar, 128);
  group_sync(1, 128);
  arrive(bar);
}
// CHECK-DAG: .cu:[[#@LINE-4]]:5: warning: mbarrier dynamic shared memory is used by other threads before a CTA-wide barrier {{.*}}[proxyfence-mbarrier-init]

__global__ void counts_part_of_the_group() {
  const int group = threadIdx.x / 128;
  auto *bar = reinterpret_cast<uint64_t *>(smem + group * 64);
  if (threadIdx.x % 128 == 0)
    init_bar(bar, 128);
  asm volatile("bar.sync %0, 64;" :: "r"(group + 1));
  arrive(bar);
}
// CHECK-DAG: .cu:[[#@LINE-4]]:5: warning: mbarrier dynamic shared memory is used by other threads before a CTA-wide barrier {{.*}}[proxyfence-mbarrier-init]

// The next warp's barrier is another group's part.
__global__ void next_warps_barrier() {
  __shared__ uint64_t bars[9];
  const int warp = threadIdx.x / 32;
  if (threadIdx.x % 32 == 0)
    init_bar(&bars[warp], 32);
  __syncwarp();
  arrive(&bars[warp + 1]);
}
// CHECK-DAG: .cu:[[#@LINE-4]]:5: warning: mbarrier 'bars' is used by other threads before a CTA-wide barrier {{.*}}[proxyfence-mbarrier-init]

// Only warp 0 sets up its barrier: the other warps' are never initialised
// before they use them.
__global__ void one_warp_inits() {
  __shared__ uint64_t bars[8];
  const int warp = threadIdx.x / 32;
  if (threadIdx.x == 0)
    init_bar(&bars[warp], 32);
  __syncwarp();
  arrive(&bars[warp]);
}
// CHECK-DAG: .cu:[[#@LINE-4]]:5: warning: mbarrier 'bars' is used by other threads before a CTA-wide barrier {{.*}}[proxyfence-mbarrier-init]

// `threadIdx.x - warp * 32` is a lane, the same in every warp: not a part
// of one thread's own.
__global__ void lane_indexed() {
  __shared__ uint64_t bars[32];
  const int warp = threadIdx.x / 32, lane = threadIdx.x - warp * 32;
  if (warp % 2 == 0)
    init_bar(&bars[lane], 1);
  __syncwarp();
  arrive(&bars[lane]);
}
// CHECK-DAG: .cu:[[#@LINE-4]]:5: warning: mbarrier 'bars' is used by other threads before a CTA-wide barrier {{.*}}[proxyfence-mbarrier-init]

// CHECK-NOT: warning:
// CHECK:     proxyfence: 7 findings in 1 file
