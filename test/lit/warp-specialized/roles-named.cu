// Roles as member functions that hand off through named barriers: the
// epilogue's store() writes the tile and arrives, the storing warp's
// issue() syncs and issues the bulk store; the kernel calls each from its
// own branch. Ids are constants, template values, or held in NamedBarrier
// objects built from them. The fix goes in the writing role, before its
// arrive, inside the function that arrives.
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
enum Barriers { kTileReady = 3, kOther = 4 };

struct SharedStorage {
  alignas(128) float tile[TILE];
  alignas(128) float other[TILE];
};

struct Epilogue {
  __device__ void store(SharedStorage &s) {
    for (int i = threadIdx.x; i < TILE; i += 128)
      s.tile[i] = float(i);
    cutlass::arch::NamedBarrier::arrive(256, kTileReady);
  }
  __device__ void issue(SharedStorage &s, float *out) {
    cutlass::arch::NamedBarrier::sync(256, kTileReady);
    if (threadIdx.x == 128)
      bulk_store(out, s.tile, sizeof(s.tile));
  }
};

__global__ void member_roles(float *out) {
  __shared__ SharedStorage storage;
  Epilogue epi;
  if (threadIdx.x < 128)
    epi.store(storage);
  else
    epi.issue(storage, out);
}

// The id lives in a barrier object; each role builds its own from the
// same template value.
template <int Id> struct Roles {
  __device__ static void write(float *tile) {
    for (int i = threadIdx.x; i < TILE; i += 128)
      tile[i] = float(-i);
    cutlass::arch::NamedBarrier ready(256, Id);
    ready.arrive();
  }
  __device__ static void read(float *tile, float *out) {
    cutlass::arch::NamedBarrier(256, Id).sync();
    if (threadIdx.x == 128)
      bulk_store(out, tile, TILE * sizeof(float));
  }
};

__global__ void id_in_object(float *out) {
  __shared__ alignas(128) float tile[TILE];
  if (threadIdx.x < 128)
    Roles<kOther>::write(tile);
  else
    Roles<kOther>::read(tile, out);
}

// Objects with different ids: different barriers, no pair, no finding.
__global__ void different_ids(float *out) {
  __shared__ alignas(128) float tile[TILE];
  if (threadIdx.x < 128)
    Roles<5>::write(tile);
  else
    Roles<6>::read(tile, out);
}

// The writing role fences before its arrive: nothing to report.
struct FencedEpilogue {
  __device__ void store(SharedStorage &s) {
    for (int i = threadIdx.x; i < TILE; i += 128)
      s.other[i] = float(i);
    cutlass::arch::fence_view_async_shared();
    cutlass::arch::NamedBarrier::arrive(256, kOther);
  }
  __device__ void issue(SharedStorage &s, float *out) {
    cutlass::arch::NamedBarrier::sync(256, kOther);
    if (threadIdx.x == 128)
      bulk_store(out, s.other, sizeof(s.other));
  }
};

__global__ void fenced_roles(float *out) {
  __shared__ SharedStorage storage;
  FencedEpilogue epi;
  if (threadIdx.x < 128)
    epi.store(storage);
  else
    epi.issue(storage, out);
}

// CHECK: :36:7: warning: bulk async store reads shared memory 'storage' written through the generic proxy with no fence.proxy.async on the path [proxyfence-tma-store]
// CHECK: :30:7: note: generic-proxy write to 'storage' here
// CHECK: :31:5: note: this barrier orders threads, not proxies; insert the fence before it
// CHECK: :61:7: warning: bulk async store reads shared memory 'tile'
// CHECK: :54:7: note: generic-proxy write to 'tile' here
// CHECK: :56:5: note: this barrier orders threads, not proxies; insert the fence before it
// CHECK-NOT: warning:
// CHECK: proxyfence: 2 findings in 1 file
// CHECK-NEXT: proxyfence: stats: {{[0-9]+}} functions analysed
// CHECK-NEXT: proxyfence: stats: role synchronisations matched: 2 named barrier, 0 mbarrier; unmatched: 0

// FIXED:      s.tile[i] = float(i);
// FIXED-NEXT: {{^    }}asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
// FIXED-NEXT: {{^    }}cutlass::arch::NamedBarrier::arrive(256, kTileReady);
// FIXED:      tile[i] = float(-i);
// FIXED-NEXT: {{^    }}cutlass::arch::NamedBarrier ready(256, Id);
// FIXED-NEXT: {{^    }}asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
// FIXED-NEXT: {{^    }}ready.arrive();

// CLEAN: proxyfence: 0 findings in 1 file
