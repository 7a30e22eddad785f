// A group's own part of shared memory, placed by a helper that receives the
// group's index as an argument (`advance(smem, warp * kBytes)`,
// `part_of(base, warp)`, `int const &rank_idx`): the offset is a multiple of
// a parameter, so whose part it is depends on what each caller passes. The
// warp's `__syncwarp` publishes the init of a barrier in the warp's own
// part (PTX ISA, bar.warp.sync orders the memory accesses of the threads
// taking part). Kernels `offset_helper`, `two_helpers`, `const_ref_index`,
// `object_from_helper`, `layout_part_per_warp` and
// `template_layout_part_per_warp` are correct. The others
// pass an index that every warp shares (`0`, the lane) or write the
// parameter inside the helper, so several warps use the barrier and only a
// CTA-wide barrier publishes it.
// RUN: not %proxyfence %s 2>&1 | FileCheck %s
// RUN: %nvcc-sm90a -cubin -o /dev/null %s
#include "Inputs/raw_mbarrier.h"

extern __shared__ __align__(16) uint8_t smem[];

template <typename T>
__device__ __forceinline__ T *advance(void *p, int64_t off) {
  return reinterpret_cast<T *>(reinterpret_cast<uint8_t *>(p) + off);
}
__device__ uint8_t *part_of(uint8_t *base, int i) {
  return advance<uint8_t>(base, int64_t(i) * 1024);
}
__device__ uint64_t *bar_of(uint8_t *base, int const &rank_idx) {
  return reinterpret_cast<uint64_t *>(base + rank_idx * 512);
}
__device__ uint64_t *moved_bar(uint8_t *base, int i) {
  i = i / 2;
  return reinterpret_cast<uint64_t *>(base + i * 512);
}

__global__ void offset_helper() {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  uint64_t *bar = advance<uint64_t>(smem, warp * 1024);
  if (lane == 0)
    init_bar(bar, 1);
  __syncwarp();
  arrive(bar);
}

__global__ void two_helpers() {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  auto *bar = reinterpret_cast<uint64_t *>(part_of(smem, warp));
  if (lane == 0)
    init_bar(bar, 1);
  __syncwarp();
  arrive(bar);
}

__global__ void const_ref_index() {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int slot = warp - 2;
  if (warp < 2)
    return;
  if (lane == 0)
    init_bar(bar_of(smem, slot), 1);
  __syncwarp();
  arrive(bar_of(smem, slot));
}

struct Region {
  uint8_t *base;
  __device__ explicit Region(uint8_t *b) : base(b) {}
  __device__ uint64_t *barrier() const { return advance<uint64_t>(base, 128); }
};

__global__ void object_from_helper() {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const Region mine(advance<uint8_t>(smem, warp * 2048));
  if (lane == 0)
    init_bar(mine.barrier(), 1);
  __syncwarp();
  arrive(mine.barrier());
}

// A layout object whose part for a warp is another object of the class,
// built from its own fields (`Region(base + i * bytes, bytes)`): what the
// barrier's address is made of is the `base` field, not the `bytes` one.
struct Layout {
  uint8_t *base;
  int bytes;
  __device__ Layout(uint8_t *b, int n) : base(b), bytes(n) {}
  __device__ Layout part(int i) const {
    return Layout(advance<uint8_t>(base, int64_t(i) * bytes), bytes);
  }
  __device__ uint64_t *barrier() const { return advance<uint64_t>(base, 64); }
};

__global__ void layout_part_per_warp() {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const auto mine = Layout(smem, 1024).part(warp);
  if (lane == 0)
    init_bar(mine.barrier(), 1);
  __syncwarp();
  arrive(mine.barrier());
}

__global__ void layout_part_for_all() {
  const auto mine = Layout(smem, 1024).part(0);
  if (threadIdx.x % 32 == 0)
    init_bar(mine.barrier(), 1);
// CHECK-DAG: .cu:[[#@LINE-1]]:5: warning: mbarrier dynamic shared memory is used by other threads before a CTA-wide barrier {{.*}}[proxyfence-mbarrier-init]
  __syncwarp();
  arrive(mine.barrier());
}

// The same as a class template in a kernel template nothing instantiates:
// the stride is a member template of the class (`stride<>()`), and the
// product `stride<>() * i` an operator call of dependent type.
template <bool kPad>
struct PaddedLayout {
  uint8_t *base;
  int bytes;
  __device__ PaddedLayout(uint8_t *b, int n) : base(b), bytes(n) {}
  template <typename U = int64_t>
  __device__ U stride() const { return U(bytes + (kPad ? 16 : 0)); }
  __device__ PaddedLayout part(int const &i) const {
    return PaddedLayout(base + stride<>() * i, bytes);
  }
  __device__ uint64_t *barrier() const { return advance<uint64_t>(base, 64); }
};

template <int kBytes>
__global__ void template_layout_part_per_warp() {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const auto mine = PaddedLayout<true>(smem, kBytes).part(warp);
  if (lane == 0)
    init_bar(mine.barrier(), 1);
  __syncwarp();
  arrive(mine.barrier());
}

template <int kBytes>
__global__ void template_layout_part_for_all() {
  const auto mine = PaddedLayout<true>(smem, kBytes).part(1);
  if (threadIdx.x % 32 == 0)
    init_bar(mine.barrier(), 1);
// CHECK-DAG: .cu:[[#@LINE-1]]:5: warning: mbarrier dynamic shared memory is used by other threads before a CTA-wide barrier {{.*}}[proxyfence-mbarrier-init]
  __syncwarp();
  arrive(mine.barrier());
}

// A const accessor that computes from the lane is no stride every thread
// shares: lane 0 of each warp inits the same barrier.
struct LaneStrided {
  uint8_t *base;
  __device__ explicit LaneStrided(uint8_t *b) : base(b) {}
  __device__ int64_t stride() const { return (threadIdx.x % 32) * 64; }
  __device__ uint64_t *barrier(int const &i) const {
    return reinterpret_cast<uint64_t *>(base + stride() * i);
  }
};

__global__ void stride_from_the_lane() {
  const int warp = threadIdx.x / 32;
  const LaneStrided parts(smem);
  if (threadIdx.x % 32 == 0)
    init_bar(parts.barrier(warp), 1);
// CHECK-DAG: .cu:[[#@LINE-1]]:5: warning: mbarrier dynamic shared memory is used by other threads before a CTA-wide barrier {{.*}}[proxyfence-mbarrier-init]
  __syncwarp();
  arrive(parts.barrier(warp));
}

__global__ void same_part_for_all() {
  auto *bar = reinterpret_cast<uint64_t *>(part_of(smem, 0));
  if (threadIdx.x % 32 == 0)
    init_bar(bar, 1);
// CHECK-DAG: .cu:[[#@LINE-1]]:5: warning: mbarrier dynamic shared memory is used by other threads before a CTA-wide barrier {{.*}}[proxyfence-mbarrier-init]
  __syncwarp();
  arrive(bar);
}

__global__ void part_per_lane() {
  const int lane = threadIdx.x % 32;
  auto *bar = reinterpret_cast<uint64_t *>(part_of(smem, lane));
  if (threadIdx.x < 32)
    init_bar(bar, 1);
// CHECK-DAG: .cu:[[#@LINE-1]]:5: warning: mbarrier dynamic shared memory is used by other threads before a CTA-wide barrier {{.*}}[proxyfence-mbarrier-init]
  __syncwarp();
  arrive(bar);
}

__global__ void index_rewritten_in_helper() {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  uint64_t *bar = moved_bar(smem, warp);
  if (lane == 0)
    init_bar(bar, 1);
// CHECK-DAG: .cu:[[#@LINE-1]]:5: warning: mbarrier dynamic shared memory is used by other threads before a CTA-wide barrier {{.*}}[proxyfence-mbarrier-init]
  __syncwarp();
  arrive(bar);
}

// CHECK-NOT: warning:
// CHECK:     proxyfence: 6 findings in 1 file
