// Warp-specialised pipeline: warp 0 produces (waits on "empty", refills the
// stage with a bulk copy), the other warps consume (wait on "full", read the
// stage with plain loads, arrive on "empty"). No path runs through both
// roles; the reads and the refill meet at the "empty" mbarrier, and the
// fence goes in the consumer before its arrive.
// REQUIRES: nvcc
// RUN: cp %s %t.cu
// RUN: not %proxyfence %t.cu -- -I%S/Inputs 2>&1 | FileCheck %s
// RUN: %proxyfence --fix --quiet %t.cu -- -I%S/Inputs
// RUN: FileCheck --check-prefix=FIXED --input-file=%t.cu %s
// RUN: cp %t.cu %t.again.cu
// RUN: %proxyfence --fix --quiet %t.again.cu -- -I%S/Inputs
// RUN: cmp %t.cu %t.again.cu
// RUN: %proxyfence %t.cu -- -I%S/Inputs 2>&1 | FileCheck --check-prefix=CLEAN %s
// RUN: %nvcc-sm90a -I%S/Inputs -cubin -o /dev/null %t.cu
#include "mbar.h"

constexpr int STAGES = 4;
constexpr int TILE = 2048;

__global__ void ws_reduce(const float *in, float *out, int ntiles) {
  __shared__ alignas(128) float stage[STAGES][TILE];
  __shared__ alignas(8) uint64_t full[STAGES], empty[STAGES];
  const int consumers = blockDim.x - 32;
  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; ++s) {
      mbar_init(&full[s], 1);
      mbar_init(&empty[s], consumers);
    }
  }
  __syncthreads();
  if (threadIdx.x < 32) {
    if (threadIdx.x == 0) {
      for (int t = 0; t < ntiles; ++t) {
        int s = t % STAGES;
        mbar_wait(&empty[s], ((t / STAGES) & 1) ^ 1);
        mbar_expect_tx(&full[s], sizeof(stage[s]));
        bulk_load(stage[s], in + size_t(t) * TILE, sizeof(stage[s]), &full[s]);
      }
    }
  } else {
    float acc = 0.f;
    for (int t = 0; t < ntiles; ++t) {
      int s = t % STAGES;
      mbar_wait(&full[s], (t / STAGES) & 1);
      for (int i = threadIdx.x - 32; i < TILE; i += consumers)
        acc += stage[s][i];
      mbar_arrive(&empty[s]);
    }
    out[blockIdx.x * consumers + threadIdx.x - 32] = acc;
  }
}

// CHECK: warp-specialized.cu.tmp.cu:38:9: warning: bulk async load overwrites shared memory 'stage' read through the generic proxy with no fence.proxy.async on the path [proxyfence-async-overwrite]
// CHECK: mbar.h:31:3: note: bulk async load issued here, inside 'bulk_load'
// CHECK: :47:16: note: generic-proxy read of 'stage' here
// CHECK: :48:7: note: this barrier orders threads, not proxies; insert the fence before it
// CHECK: :48:7: note: insert 'asm volatile("fence.proxy.async.shared::cta;" ::: "memory");' here
// CHECK: proxyfence: 1 finding in 1 file

// FIXED:      acc += stage[s][i];
// FIXED-NEXT: {{^      }}asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
// FIXED-NEXT: {{^      }}mbar_arrive(&empty[s]);

// CLEAN: proxyfence: 0 findings in 1 file
