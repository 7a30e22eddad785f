// Role dispatch through `switch`, ping-pong consumers, ids computed from
// constants (constexpr arithmetic, enums, template arguments), a kernel
// parameter passed by both roles, and an mbarrier full/empty pipeline whose
// producer writes the stage with C++ stores for a consumer's TMA store.
// REQUIRES: nvcc
// RUN: cp %s %t.cu
// RUN: not %proxyfence --stats %t.cu -- -I%S/Inputs 2>&1 | FileCheck %s
// RUN: %proxyfence --fix --quiet --fence-style=ptx %t.cu -- -I%S/Inputs
// RUN: FileCheck --check-prefix=FIXED --input-file=%t.cu %s
// RUN: cp %t.cu %t.again.cu
// RUN: %proxyfence --fix --quiet --fence-style=ptx %t.again.cu -- -I%S/Inputs
// RUN: cmp %t.cu %t.again.cu
// RUN: %proxyfence %t.cu -- -I%S/Inputs 2>&1 | FileCheck --check-prefix=CLEAN %s
// RUN: %nvcc-sm90a -I%S/Inputs -cubin -o /dev/null %t.cu
#include "ws.h"

constexpr int TILE = 2048;
constexpr int kBase = 4;
enum Bars { kFirst = kBase + 1, kSecond };

__global__ void by_switch(float *out) {
  __shared__ alignas(128) float tile[TILE];
  switch (threadIdx.x / 128) {
  case 0:
    for (int i = threadIdx.x; i < TILE; i += 128)
      tile[i] = float(i);
    named_arrive(kBase + 1, 256);
    break;
  case 1:
    named_sync(kFirst, 256);
    if (threadIdx.x == 128)
      bulk_store(out, tile, sizeof(tile));
    break;
  default:
    break;
  }
}

// Ping-pong: the producer fills two tiles; consumer 1 stores the first
// after barrier kFirst, consumer 2 the second after barrier kSecond.
__global__ void ping_pong(float *out) {
  __shared__ alignas(128) float first[TILE], second[TILE];
  const int warp_group_idx = threadIdx.x / 128;
  if (warp_group_idx == 0) {
    for (int i = threadIdx.x; i < TILE; i += 128)
      first[i] = float(i);
    tk_arrive<kFirst, 256>();
    for (int i = threadIdx.x; i < TILE; i += 128)
      second[i] = float(-i);
    tk_arrive<kSecond, 256>();
  } else if (warp_group_idx == 1) {
    tk_sync<kFirst, 256>();
    if (threadIdx.x == 128)
      bulk_store(out, first, sizeof(first));
  } else if (warp_group_idx == 2) {
    tk_sync<kSecond, 256>();
    if (threadIdx.x == 256)
      bulk_store(out + TILE, second, sizeof(second));
  }
}

// The same variable in both roles is the same barrier.
__global__ void param_id(float *out, int bar) {
  __shared__ alignas(128) float tile[TILE];
  if (threadIdx.x < 128) {
    for (int i = threadIdx.x; i < TILE; i += 128)
      tile[i] = float(i);
    named_arrive(bar + 1, 256);
  } else {
    named_sync(bar + 1, 256);
    if (threadIdx.x == 128)
      bulk_store(out, tile, sizeof(tile));
  }
}

// Producer warp: waits for an empty stage, writes it, arrives on "full";
// consumer warp: waits on "full", stores the stage with TMA, arrives on
// "empty" once the store has read it.
constexpr int STAGES = 2;
__global__ void full_empty(const __grid_constant__ CUtensorMap tmap,
                           int ntiles) {
  __shared__ alignas(128) float stage[STAGES][64 * 32];
  __shared__ alignas(8) uint64_t full[STAGES], empty[STAGES];
  if (threadIdx.x == 0)
    for (int s = 0; s < STAGES; ++s) {
      mbar_init(&full[s], 32);
      mbar_init(&empty[s], 1);
    }
  __syncthreads();
  if (threadIdx.x < 32) {
    for (int t = 0; t < ntiles; ++t) {
      int s = t % STAGES;
      mbar_wait(&empty[s], ((t / STAGES) & 1) ^ 1);
      for (int i = threadIdx.x; i < 64 * 32; i += 32)
        stage[s][i] = float(t + i);
      mbar_arrive(&full[s]);
    }
  } else if (threadIdx.x == 32) {
    for (int t = 0; t < ntiles; ++t) {
      int s = t % STAGES;
      mbar_wait(&full[s], (t / STAGES) & 1);
      tma_store_2d(&tmap, stage[s], 0, t * 32);
      bulk_wait_read();
      mbar_arrive(&empty[s]);
    }
  }
}

// CHECK: :32:7: warning: bulk async store reads shared memory 'tile' written through the generic proxy with no fence.proxy.async on the path [proxyfence-tma-store]
// CHECK: :26:7: note: generic-proxy write to 'tile' here
// CHECK: :27:5: note: this barrier orders threads, not proxies; insert the fence before it
// CHECK: :54:7: warning: bulk async store reads shared memory 'first'
// CHECK: :46:7: note: generic-proxy write to 'first' here
// CHECK: :47:5: note: this barrier orders threads, not proxies; insert the fence before it
// CHECK: :58:7: warning: bulk async store reads shared memory 'second'
// CHECK: :49:7: note: generic-proxy write to 'second' here
// CHECK: :50:5: note: this barrier orders threads, not proxies; insert the fence before it
// CHECK: :72:7: warning: bulk async store reads shared memory 'tile'
// CHECK: :67:7: note: generic-proxy write to 'tile' here
// CHECK: :68:5: note: this barrier orders threads, not proxies; insert the fence before it
// CHECK: :102:7: warning: TMA store reads shared memory 'stage'
// CHECK: :95:9: note: generic-proxy write to 'stage' here
// CHECK: :96:7: note: this barrier orders threads, not proxies; insert the fence before it
// CHECK-NOT: warning:
// CHECK: proxyfence: 5 findings in 1 file
// CHECK-NEXT: proxyfence: stats: {{[0-9]+}} functions analysed
// CHECK-NEXT: proxyfence: stats: role synchronisations matched: 4 named barrier, 2 mbarrier; unmatched: 0

// FIXED:      tile[i] = float(i);
// FIXED-NEXT: {{^    }}asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
// FIXED-NEXT: {{^    }}named_arrive(kBase + 1, 256);
// FIXED:      first[i] = float(i);
// FIXED-NEXT: {{^    }}asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
// FIXED-NEXT: {{^    }}tk_arrive<kFirst, 256>();
// FIXED:      second[i] = float(-i);
// FIXED-NEXT: {{^    }}asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
// FIXED-NEXT: {{^    }}tk_arrive<kSecond, 256>();
// FIXED:      stage[s][i] = float(t + i);
// FIXED-NEXT: {{^      }}asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
// FIXED-NEXT: {{^      }}mbar_arrive(&full[s]);

// CLEAN: proxyfence: 0 findings in 1 file
