// A kernel whose block is one warp at most (`__launch_bounds__(32)`):
// `__syncwarp` meets every thread of the CTA, so it publishes an mbarrier
// init to them as `__syncthreads` would. A helper that initialises and uses
// the barrier is judged in its kernel's context, not on its own (where the
// block size is unknown). A kernel of two warps still needs a CTA barrier.
// RUN: not %proxyfence %s 2>&1 | FileCheck %s
// RUN: %nvcc-sm90a -cubin -o /dev/null %s
#include "Inputs/raw_mbarrier.h"

extern __shared__ __align__(16) uint8_t smem[];

template <int kStages>
__device__ void init_and_use_stages() {
  auto *bars = reinterpret_cast<uint64_t *>(smem);
  if (threadIdx.x == 0)
    for (int s = 0; s < kStages; ++s)
      init_bar(bars + s, 1);
  __syncwarp();
  arrive(bars);
}

template <int kStages>
__global__ void __launch_bounds__(32, 1) one_warp_helper() {
  init_and_use_stages<kStages>();
}
template __global__ void one_warp_helper<2>();

__global__ void __launch_bounds__(32, 1) one_warp() {
  auto *bars = reinterpret_cast<uint64_t *>(smem);
  if (threadIdx.x == 0)
    init_bar(bars, 1);
  __syncwarp();
  arrive(bars);
}

__global__ void __launch_bounds__(64, 1) two_warps() {
  auto *bars = reinterpret_cast<uint64_t *>(smem);
  if (threadIdx.x == 0)
    init_bar(bars, 1);
// CHECK: .cu:[[#@LINE-1]]:5: warning: mbarrier dynamic shared memory is used by other threads before a CTA-wide barrier {{.*}}[proxyfence-mbarrier-init]
  __syncwarp();
  arrive(bars);
}
// CHECK-NOT: warning:
// CHECK: proxyfence: 1 finding in 1 file
