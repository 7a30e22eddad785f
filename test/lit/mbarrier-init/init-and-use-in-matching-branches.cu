// Each consumer warp inits its own barrier under `warp >= kProducers &&
// lane == 0`, publishes it with `__syncwarp`, and uses it in a branch that
// picks the same warps: the else-branch of `warp < kProducers`, or the
// then-branch of `warp >= kProducers` (PTX ISA, bar.warp.sync orders the
// memory accesses of the threads taking part). Kernels `roles_by_else` and
// `roles_by_same_test` and `roles_by_early_return` are correct. In the others the branch of the use
// admits warps that did not init, so their use is not ordered after the
// init by any barrier they take part in.
// RUN: not %proxyfence %s 2>&1 | FileCheck %s
// RUN: %nvcc-sm90a -cubin -o /dev/null %s
#include "Inputs/raw_mbarrier.h"

extern __shared__ __align__(16) uint8_t smem[];

__device__ uint64_t *bar_of(int const &slot) {
  return reinterpret_cast<uint64_t *>(smem + slot * 64);
}

template <int kProducers>
__global__ void roles_by_else() {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (warp >= kProducers && lane == 0)
    init_bar(bar_of(warp - kProducers), 1);
  __syncwarp();
  if (warp < kProducers) {
    return;
  } else {
    arrive(bar_of(warp - kProducers));
  }
}

__global__ void roles_by_same_test() {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (warp >= 4 && lane == 0)
    init_bar(bar_of(warp), 1);
  __syncwarp();
  if (warp >= 4)
    arrive(bar_of(warp));
}

__global__ void roles_by_early_return() {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (warp >= 4 && lane == 0)
    init_bar(bar_of(warp), 1);
  __syncwarp();
  if (warp < 4)
    return;
  arrive(bar_of(warp));
}

__global__ void early_return_of_fewer_warps() {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (warp >= 4 && lane == 0)
    init_bar(bar_of(warp), 1);
// CHECK-DAG: .cu:[[#@LINE-1]]:5: warning: mbarrier {{.*}} is used by other threads before a CTA-wide barrier {{.*}}[proxyfence-mbarrier-init]
  __syncwarp();
  if (warp < 2) {
    arrive(bar_of(0));
    return;
  }
  arrive(bar_of(warp));
}

__global__ void used_by_other_warps() {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (warp >= 4 && lane == 0)
    init_bar(bar_of(warp), 1);
// CHECK-DAG: .cu:[[#@LINE-1]]:5: warning: mbarrier {{.*}} is used by other threads before a CTA-wide barrier {{.*}}[proxyfence-mbarrier-init]
  __syncwarp();
  if (warp >= 2)
    arrive(bar_of(warp));
}

template <int kProducers>
__global__ void used_by_producers() {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (warp >= kProducers && lane == 0)
    init_bar(bar_of(warp), 1);
// CHECK-DAG: .cu:[[#@LINE-1]]:5: warning: mbarrier {{.*}} is used by other threads before a CTA-wide barrier {{.*}}[proxyfence-mbarrier-init]
  __syncwarp();
  if (warp < kProducers)
    arrive(bar_of(warp));
}

// The use's branch states only part of what picked the initialising warps
// (`warp % 2 == 0` is left), or the same words mean another value there.
__global__ void init_by_even_warps_only() {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (warp >= 4 && warp % 2 == 0 && lane == 0)
    init_bar(bar_of(warp), 1);
// CHECK-DAG: .cu:[[#@LINE-1]]:5: warning: mbarrier {{.*}} is used by other threads before a CTA-wide barrier {{.*}}[proxyfence-mbarrier-init]
  __syncwarp();
  if (warp >= 4)
    arrive(bar_of(warp));
}

__global__ void bound_changed_between(int first) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  int k = first;
  if (warp >= k && lane == 0)
    init_bar(bar_of(warp), 1);
// CHECK-DAG: .cu:[[#@LINE-1]]:5: warning: mbarrier {{.*}} is used by other threads before a CTA-wide barrier {{.*}}[proxyfence-mbarrier-init]
  __syncwarp();
  k = first / 2;
  if (warp >= k)
    arrive(bar_of(warp));
}

// CHECK-NOT: warning:
// CHECK:     proxyfence: 5 findings in 1 file
