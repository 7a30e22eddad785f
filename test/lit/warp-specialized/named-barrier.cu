// Warp-specialised epilogue: warp group 0 writes the tile with C++ stores and
// arrives on a named barrier; warp group 1 syncs on it and one thread issues
// the bulk store. The roles are the two branches of one `if`, so no path runs
// from the write to the store: they meet at the barrier. The fence goes in
// the writing role, before its arrive.
// REQUIRES: nvcc
// RUN: cp %s %t.cu
// RUN: not %proxyfence --stats %t.cu -- -I%S/Inputs 2>&1 | FileCheck %s
// RUN: %proxyfence --fix --quiet %t.cu -- -I%S/Inputs
// RUN: FileCheck --check-prefix=FIXED --input-file=%t.cu %s
// RUN: cp %t.cu %t.again.cu
// RUN: %proxyfence --fix --quiet %t.again.cu -- -I%S/Inputs
// RUN: cmp %t.cu %t.again.cu
// RUN: %proxyfence %t.cu -- -I%S/Inputs 2>&1 | FileCheck --check-prefix=CLEAN %s
// RUN: %nvcc-sm90a -I%S/Inputs -cubin -o /dev/null %t.cu
#include "ws.h"

constexpr int TILE = 4096;

// Raw PTX, immediate ids.
__global__ void raw_ids(float *out) {
  __shared__ alignas(128) float tile[TILE];
  const int warp_group_idx = threadIdx.x / 128;
  if (warp_group_idx == 0) {
    for (int i = threadIdx.x; i < TILE; i += 128)
      tile[i] = float(i) * 0.5f;
    asm volatile("bar.arrive 1, 256;" ::: "memory");
  } else if (warp_group_idx == 1) {
    asm volatile("bar.sync 1, 256;" ::: "memory");
    if (threadIdx.x == 128)
      bulk_store(out + blockIdx.x * TILE, tile, sizeof(tile));
  }
}

// CUTLASS's NamedBarrier: the id goes through two wrappers and an offset.
__global__ void cutlass_ids(float *out) {
  __shared__ alignas(128) float tile[TILE];
  const int warp_group_idx = threadIdx.x / 128;
  if (warp_group_idx == 0) {
    for (int i = threadIdx.x; i < TILE; i += 128)
      tile[i] = float(i);
    cutlass::arch::NamedBarrier::arrive(256, 0);
  } else {
    cutlass::arch::NamedBarrier::sync(256, 0);
    if (threadIdx.x == 128) {
      bulk_store(out + blockIdx.x * TILE, tile, sizeof(tile));
      bulk_wait_read();
    }
  }
}

// Both roles execute the same `bar.sync`: it is the arrive of one and the
// wait of the other.
__global__ void both_sync(float *out) {
  __shared__ alignas(128) float tile[TILE];
  if (threadIdx.x < 128) {
    for (int i = threadIdx.x; i < TILE; i += 128)
      tile[i] = 1.0f + i;
    named_sync(3, 160);
  } else if (threadIdx.x < 160) {
    named_sync(3, 160);
    if (threadIdx.x == 128)
      bulk_store(out + blockIdx.x * TILE, tile, sizeof(tile));
  }
}

// Fenced before the arrive: nothing to report.
__global__ void fenced(float *out) {
  __shared__ alignas(128) float tile[TILE];
  const int warp_group_idx = threadIdx.x / 128;
  if (warp_group_idx == 0) {
    for (int i = threadIdx.x; i < TILE; i += 128)
      tile[i] = float(i);
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    cutlass::arch::NamedBarrier::arrive(256, 0);
  } else {
    cutlass::arch::NamedBarrier::sync(256, 0);
    if (threadIdx.x == 128)
      bulk_store(out + blockIdx.x * TILE, tile, sizeof(tile));
  }
}

// Different constant ids are different barriers: no pairing, not a blind
// spot either.
__global__ void other_barrier(float *out) {
  __shared__ alignas(128) float tile[TILE];
  if (threadIdx.x < 128) {
    for (int i = threadIdx.x; i < TILE; i += 128)
      tile[i] = float(i);
    named_arrive(4, 256);
    named_arrive(5, 256);
  } else {
    named_sync(6, 256);
    if (threadIdx.x == 128)
      bulk_store(out + blockIdx.x * TILE, tile, sizeof(tile));
  }
}

// CHECK: :31:7: warning: bulk async store reads shared memory 'tile' written through the generic proxy with no fence.proxy.async on the path [proxyfence-tma-store]
// CHECK: ws.h:{{[0-9]+}}:3: note: bulk async store issued here, inside 'bulk_store'
// CHECK: :26:7: note: generic-proxy write to 'tile' here
// CHECK: :27:5: note: this barrier orders threads, not proxies; insert the fence before it
// CHECK: :27:5: note: insert 'cutlass::arch::fence_view_async_shared();' here
// CHECK: :46:7: warning: bulk async store reads shared memory 'tile'
// CHECK: :41:7: note: generic-proxy write to 'tile' here
// CHECK: :42:5: note: this barrier orders threads, not proxies; insert the fence before it
// CHECK: :63:7: warning: bulk async store reads shared memory 'tile'
// CHECK: :58:7: note: generic-proxy write to 'tile' here
// CHECK: :59:5: note: this barrier orders threads, not proxies; insert the fence before it
// CHECK-NOT: warning:
// CHECK: proxyfence: 3 findings in 1 file
// CHECK-NEXT: proxyfence: stats: {{[0-9]+}} functions analysed, {{[0-9]+}} asm statements ({{[0-9]+}} PTX instructions)
// CHECK-NEXT: proxyfence: stats: role synchronisations matched: 5 named barrier, 0 mbarrier; unmatched: 0
// CHECK-NOT: unmatched:

// FIXED:      tile[i] = float(i) * 0.5f;
// FIXED-NEXT: {{^    }}cutlass::arch::fence_view_async_shared();
// FIXED-NEXT: {{^    }}asm volatile("bar.arrive 1, 256;" ::: "memory");
// FIXED:      tile[i] = float(i);
// FIXED-NEXT: {{^    }}cutlass::arch::fence_view_async_shared();
// FIXED-NEXT: {{^    }}cutlass::arch::NamedBarrier::arrive(256, 0);
// FIXED:      tile[i] = 1.0f + i;
// FIXED-NEXT: {{^    }}cutlass::arch::fence_view_async_shared();
// FIXED-NEXT: {{^    }}named_sync(3, 160);

// CLEAN: proxyfence: 0 findings in 1 file
