// Roles in different functions whose barriers cannot be compared: an id
// read from memory against a constant, an mbarrier reached through a
// kernel pointer against a shared one. The analysis does not guess: no
// finding, and --stats counts each pair with both locations.
// RUN: %proxyfence --stats %s -- -I%S/Inputs 2>&1 | FileCheck %s
#include "ws.h"

constexpr int TILE = 1024;

__device__ void write_and_arrive(float *tile, int id) {
  for (int i = threadIdx.x; i < TILE; i += 128)
    tile[i] = float(i);
  named_arrive(id, 256);
}
__device__ void sync_and_store(float *tile, float *out) {
  named_sync(1, 256);
  if (threadIdx.x == 128)
    bulk_store(out, tile, TILE * sizeof(float));
}

__global__ void runtime_id(float *out, const int *ids) {
  __shared__ alignas(128) float tile[TILE];
  if (threadIdx.x < 128)
    write_and_arrive(tile, ids[blockIdx.x]);
  else
    sync_and_store(tile, out);
}

__device__ void write_and_signal(float *tile, uint64_t *bar) {
  for (int i = threadIdx.x; i < TILE; i += 32)
    tile[i] = float(i);
  mbar_arrive(bar);
}
__device__ void wait_and_store(float *tile, uint64_t *bar, float *out) {
  mbar_wait(bar, 0);
  bulk_store(out, tile, TILE * sizeof(float));
}

__global__ void unknown_mbarrier(float *out, uint64_t *bars) {
  __shared__ alignas(128) float tile[TILE];
  __shared__ uint64_t full;
  if (threadIdx.x < 32)
    write_and_signal(tile, bars);
  else if (threadIdx.x == 32)
    wait_and_store(tile, &full, out);
}

// CHECK-NOT: warning:
// CHECK: proxyfence: 0 findings in 1 file
// CHECK-NEXT: proxyfence: stats: {{[0-9]+}} functions analysed, {{[0-9]+}} asm statements ({{[0-9]+}} PTX instructions)
// CHECK-NEXT: proxyfence: stats: role synchronisations matched: 0 named barrier, 0 mbarrier; unmatched: 2
// CHECK-NEXT: proxyfence: stats: unmatched: {{.*}}roles-unmatched.cu:24:5: bar.arrive (an id that is not a constant) and {{.*}}roles-unmatched.cu:26:5: bar.sync (id 1); no finding reported for this pair
// CHECK-NEXT: proxyfence: stats: unmatched: {{.*}}roles-unmatched.cu:43:5: mbarrier.arrive.shared::cta (barrier object not known) and {{.*}}roles-unmatched.cu:45:5: mbarrier.try_wait.shared::cta; no finding reported for this pair
