// Ids that cannot be compared: a runtime value against a constant, a PTX
// register, a barrier through an unknown pointer. The analysis does not
// guess: no finding, and --stats counts and lists each pair.
// RUN: %proxyfence --stats %s -- -I%S/Inputs 2>&1 | FileCheck %s
#include "ws.h"

constexpr int TILE = 1024;

__global__ void runtime_id(float *out, const int *ids) {
  __shared__ alignas(128) float tile[TILE];
  int id = ids[blockIdx.x]; // not const: may change
  if (threadIdx.x < 128) {
    for (int i = threadIdx.x; i < TILE; i += 128)
      tile[i] = float(i);
    named_arrive(id, 256);
  } else {
    named_sync(1, 256);
    if (threadIdx.x == 128)
      bulk_store(out, tile, sizeof(tile));
  }
}

__global__ void register_id(float *out) {
  __shared__ alignas(128) float tile[TILE];
  if (threadIdx.x < 128) {
    for (int i = threadIdx.x; i < TILE; i += 128)
      tile[i] = float(i);
    asm volatile("{\n.reg .u32 b;\nmov.u32 b, %%warpid;\nbar.arrive b, 256;\n}"
                 ::: "memory");
  } else {
    asm volatile("bar.sync 2, 256;" ::: "memory");
    if (threadIdx.x == 128)
      bulk_store(out, tile, sizeof(tile));
  }
}

__global__ void unknown_mbarrier(float *out, uint64_t **bars) {
  __shared__ alignas(128) float tile[TILE];
  if (threadIdx.x < 32) {
    for (int i = threadIdx.x; i < TILE; i += 32)
      tile[i] = float(i);
    mbar_arrive(bars[0]);
  } else if (threadIdx.x == 32) {
    mbar_wait(bars[1], 0);
    bulk_store(out, tile, sizeof(tile));
  }
}

// CHECK-NOT: warning:
// CHECK: proxyfence: 0 findings in 1 file
// CHECK-NEXT: proxyfence: stats: {{[0-9]+}} functions analysed, {{[0-9]+}} asm statements ({{[0-9]+}} PTX instructions)
// CHECK-NEXT: proxyfence: stats: role synchronisations matched: 0 named barrier, 0 mbarrier; unmatched: 3
// CHECK-NEXT: proxyfence: stats: unmatched: {{.*}}unmatched.cu:15:5: bar.arrive (an id that is not a constant) and {{.*}}unmatched.cu:17:5: bar.sync (id 1); no finding reported for this pair
// CHECK-NEXT: proxyfence: stats: unmatched: {{.*}}unmatched.cu:28:5: bar.arrive (an id that is not a constant) and {{.*}}unmatched.cu:31:5: bar.sync (id 2); no finding reported for this pair
// CHECK-NEXT: proxyfence: stats: unmatched: {{.*}}unmatched.cu:42:5: mbarrier.arrive.shared::cta (barrier object not known) and {{.*}}unmatched.cu:44:5: mbarrier.try_wait.shared::cta (barrier object not known); no finding reported for this pair
