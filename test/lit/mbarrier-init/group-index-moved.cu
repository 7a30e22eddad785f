// A group's index moved by a value every thread shares is still a group's
// index: `warp - kNumProducerWarps` (a template's value, read in the pattern
// nothing instantiates) and `warp + shift` (a kernel's parameter, the same
// in every thread of the launch). Each warp then inits the barrier of its
// own part and publishes it with `__syncwarp` (PTX ISA, bar.warp.sync
// orders the memory accesses of the threads taking part). Kernels
// `skip_template_warps`, `skip_through_helper`, `rotate_by_kernel_argument`
// and `layout_part_beside_operator_template` are correct (and the rotations
// below). The others index
// the barrier by the shared value alone, by a helper's parameter (which each
// thread may pass differently) or by the lane, so warps share the barrier
// and only a CTA-wide barrier publishes its init.
// RUN: not %proxyfence %s 2>&1 | FileCheck %s
// RUN: %nvcc-sm90a -cubin -o /dev/null %s
#include "Inputs/raw_mbarrier.h"

__shared__ uint64_t bars[64];

template <int kNumProducerWarps>
__global__ void skip_template_warps() {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (warp < kNumProducerWarps)
    return;
  const int consumer = warp - kNumProducerWarps;
  if (lane == 0)
    init_bar(&bars[consumer], 1);
  __syncwarp();
  arrive(&bars[consumer]);
}

__device__ uint64_t *bar_of(int const &slot) { return &bars[slot * 2]; }

template <int kNumProducerWarps>
__global__ void skip_through_helper() {
  const int warp = threadIdx.x / 32;
  if (warp < kNumProducerWarps)
    return;
  if (threadIdx.x % 32 == 0)
    init_bar(bar_of(warp - kNumProducerWarps), 1);
  __syncwarp();
  arrive(bar_of(warp - kNumProducerWarps));
}

__global__ void rotate_by_kernel_argument(int shift) {
  const int warp = threadIdx.x / 32 + shift, lane = threadIdx.x % 32;
  if (lane == 0)
    init_bar(&bars[warp], 1);
  __syncwarp();
  arrive(&bars[warp]);
}

template <int kNumProducerWarps>
__global__ void template_value_alone() {
  if (threadIdx.x % 32 == 0)
    init_bar(&bars[kNumProducerWarps], 1);
// CHECK-DAG: .cu:[[#@LINE-1]]:5: warning: mbarrier {{.*}} is used by other threads before a CTA-wide barrier {{.*}}[proxyfence-mbarrier-init]
  __syncwarp();
  arrive(&bars[kNumProducerWarps]);
}

__global__ void kernel_argument_alone(int shift) {
  if (threadIdx.x % 32 == 0)
    init_bar(&bars[shift], 1);
// CHECK-DAG: .cu:[[#@LINE-1]]:5: warning: mbarrier {{.*}} is used by other threads before a CTA-wide barrier {{.*}}[proxyfence-mbarrier-init]
  __syncwarp();
  arrive(&bars[shift]);
}

__device__ void moved_by_helper_argument(int shift) {
  const int slot = threadIdx.x / 32 + shift;
  if (threadIdx.x % 32 == 0)
    init_bar(&bars[slot], 1);
// CHECK-DAG: .cu:[[#@LINE-1]]:5: warning: mbarrier {{.*}} is used by other threads before a CTA-wide barrier {{.*}}[proxyfence-mbarrier-init]
  __syncwarp();
  arrive(&bars[slot]);
}

__global__ void helper_given_the_lane() {
  moved_by_helper_argument(threadIdx.x % 32);
}

// A rotation modulo the number of warps (`(warp + rank) % kNumWarps`) gives
// each warp its own part where the launch bound allows no more warps than
// that: `rotate_in_bounded_block` and `rotate_constant_bound` are correct.
// Without a bound, or with one that allows more warps, two warps may share
// a part.
template <int kNumWarps, int kNumThreads = kNumWarps * 32>
__global__ void __launch_bounds__(kNumThreads, 1)
    rotate_in_bounded_block(int rank) {
  const int warp = (int(threadIdx.x / 32) + rank) % kNumWarps;
  if (threadIdx.x % 32 == 0)
    init_bar(bar_of(warp), 1);
  __syncwarp();
  arrive(bar_of(warp));
}

__global__ void __launch_bounds__(128) rotate_constant_bound(int rank) {
  const int warp = (int(threadIdx.x / 32) + rank) % 4;
  if (threadIdx.x % 32 == 0)
    init_bar(bar_of(warp), 1);
  __syncwarp();
  arrive(bar_of(warp));
}

template <int kNumWarps>
__global__ void rotate_without_bound(int rank) {
  const int warp = (threadIdx.x / 32 + rank) % kNumWarps;
  if (threadIdx.x % 32 == 0)
    init_bar(bar_of(warp), 1);
// CHECK-DAG: .cu:[[#@LINE-1]]:5: warning: mbarrier {{.*}} is used by other threads before a CTA-wide barrier {{.*}}[proxyfence-mbarrier-init]
  __syncwarp();
  arrive(bar_of(warp));
}

template <int kNumWarps>
__global__ void __launch_bounds__(kNumWarps * 64, 1)
    rotate_in_larger_block(int rank) {
  const int warp = (threadIdx.x / 32 + rank) % kNumWarps;
  if (threadIdx.x % 32 == 0)
    init_bar(bar_of(warp), 1);
// CHECK-DAG: .cu:[[#@LINE-1]]:5: warning: mbarrier {{.*}} is used by other threads before a CTA-wide barrier {{.*}}[proxyfence-mbarrier-init]
  __syncwarp();
  arrive(bar_of(warp));
}

// In unsigned arithmetic a negative rank wraps modulo 2^32, which 6 does not
// divide: warps 0 and 4 then share a part.
__global__ void __launch_bounds__(192) rotate_unsigned(int rank) {
  const int warp = (threadIdx.x / 32 + rank) % 6;
  if (threadIdx.x % 32 == 0)
    init_bar(bar_of(warp), 1);
// CHECK-DAG: .cu:[[#@LINE-1]]:5: warning: mbarrier {{.*}} is used by other threads before a CTA-wide barrier {{.*}}[proxyfence-mbarrier-init]
  __syncwarp();
  arrive(bar_of(warp));
}

// Not a group's index: a half-warp shift before `>> 5` straddles two warps,
// and an argument that an asm overwrites with the lane.
__global__ void shift_then_shr(int shift) {
  const int slot = (threadIdx.x + shift) >> 5;
  if (threadIdx.x % 32 == 0)
    init_bar(bar_of(slot), 1);
// CHECK-DAG: .cu:[[#@LINE-1]]:5: warning: mbarrier {{.*}} is used by other threads before a CTA-wide barrier {{.*}}[proxyfence-mbarrier-init]
  __syncwarp();
  arrive(bar_of(slot));
}

__global__ void argument_set_by_asm(int shift) {
  asm("mov.u32 %0, %%laneid;" : "=r"(shift));
  const int slot = threadIdx.x / 32 + shift;
  if (threadIdx.x % 32 == 0)
    init_bar(bar_of(slot), 1);
// CHECK-DAG: .cu:[[#@LINE-1]]:5: warning: mbarrier {{.*}} is used by other threads before a CTA-wide barrier {{.*}}[proxyfence-mbarrier-init]
  __syncwarp();
  arrive(bar_of(slot));
}

// Any operator template in scope makes a pattern's `bytes_per_rank() *
// rank_idx` an operator call that names no callee; it still only reads
// `int const &rank_idx`, so the index stays the caller's warp.
template <typename T> struct Vec { T x; };
template <typename T> __device__ Vec<T> operator*(Vec<T> v, T k) {
  return {v.x * k};
}

template <bool kPad> struct RankLayout {
  uint8_t *base;
  int bytes;
  __device__ RankLayout(uint8_t *b, int n) : base(b), bytes(n) {}
  __device__ int64_t bytes_per_rank() const { return bytes + (kPad ? 16 : 0); }
  __device__ RankLayout rank(int const &rank_idx) const {
    return RankLayout(base + bytes_per_rank() * rank_idx, bytes);
  }
  __device__ uint64_t *barrier() const {
    return reinterpret_cast<uint64_t *>(base);
  }
};

extern __shared__ __align__(16) uint8_t smem[];

template <int kBytes> __global__ void layout_part_beside_operator_template() {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const auto mine = RankLayout<true>(smem, kBytes).rank(warp);
  if (lane == 0)
    init_bar(mine.barrier(), 1);
  __syncwarp();
  arrive(mine.barrier());
}

template <int kBytes> __global__ void layout_part_per_lane() {
  const int lane = threadIdx.x % 32;
  const auto mine = RankLayout<true>(smem, kBytes).rank(lane);
  if (threadIdx.x < 32)
    init_bar(mine.barrier(), 1);
// CHECK-DAG: .cu:[[#@LINE-1]]:5: warning: mbarrier {{.*}} is used by other threads before a CTA-wide barrier {{.*}}[proxyfence-mbarrier-init]
  __syncwarp();
  arrive(mine.barrier());
}

// CHECK-NOT: warning:
// CHECK:     proxyfence: 9 findings in 1 file
