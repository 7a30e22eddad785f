// `this_thread_block().sync()` is `barrier.sync 0` with no thread count
// (__barrier_sync): every thread of the CTA meets there, so it publishes an
// mbarrier's init to the CTA as __syncthreads does (PTX ISA, bar/barrier).
// With a thread count (__barrier_sync_count) only those threads meet.
// RUN: not %proxyfence %s 2>&1 | FileCheck %s
// RUN: %nvcc-sm90a -cubin -o /dev/null %s
#include <cooperative_groups.h>
#include "Inputs/raw_mbarrier.h"


__global__ void block_sync() {
  __shared__ uint64_t bar;
  auto block = cooperative_groups::this_thread_block();
  if (block.thread_rank() == 0)
    init_bar(&bar, block.size());
  block.sync();
  arrive(&bar);
}

__global__ void barrier_by_id() {
  __shared__ uint64_t bar;
  if (threadIdx.x == 0)
    init_bar(&bar, blockDim.x);
  __barrier_sync(3);
  arrive(&bar);
}

__global__ void counted() {
  __shared__ uint64_t bar;
  if (threadIdx.x == 0)
    init_bar(&bar, blockDim.x);
  __barrier_sync_count(3, 64);
  arrive(&bar);
}
// CHECK:     .cu:[[#@LINE-4]]:5: warning: mbarrier 'bar' is used by other threads before a CTA-wide barrier {{.*}}[proxyfence-mbarrier-init]
// CHECK-NOT: warning:
// CHECK:     proxyfence: 1 finding in 1 file
