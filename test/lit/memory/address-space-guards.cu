// Library code tests a pointer's state space and writes through it with
// plain C++ only where it is not shared memory: libcu++'s cuda::barrier
// arrives with mbarrier.arrive when `__isShared(&word)` and with an atomic
// otherwise, and its atomics on local memory run after
// `if (!__isLocal(p)) return false;`. Such an arm never touches shared
// memory, so its store is no generic-proxy write before a TMA load that
// overwrites the same buffer. An arm that runs only on shared memory, one
// that tests another pointer, or one that tests a local pointer that may
// hold either memory (the test says nothing of the buffer then), still is.
// RUN: not %proxyfence %s -- -I%S/../async-overwrite/Inputs 2>&1 | FileCheck %s
// RUN: %nvcc-sm90a -I%S/../async-overwrite/Inputs -cubin -o /dev/null %s
// REQUIRES: nvcc
#include "mbar.h"

constexpr int N = 256;

// The then-arm runs off shared memory only.
__device__ void store_unless_shared(float *p, float v) {
  if (!__isShared(p)) {
    *p = v;
  }
}

// The else-arm does; the then-arm is an asm that touches nothing of *p.
__device__ void add_fallback(float *p, float v) {
  if (__isShared(p)) {
    asm volatile("" ::: "memory");
  } else {
    *p += v;
  }
}

// A wrapper of the test, and an early return that guards the rest.
__device__ bool is_local(const volatile void *p) { return __isLocal(const_cast<const void *>(p)); }
__device__ bool store_if_local(float *p, float v) {
  if (!is_local(p))
    return false;
  *p = v;
  return true;
}

// Runs on shared memory: a real generic write.
__device__ void store_if_shared(float *p, float v) {
  if (__isShared(p))
    *p = v;
}

// Tests one pointer, writes through another.
__device__ void store_other(float *tested, float *p, float v) {
  if (!__isShared(tested))
    *p = v;
}

__global__ void guarded_arms(const float *src, float *out, float *scratch) {
  __shared__ alignas(128) float tile[N];
  __shared__ uint64_t full;
  if (threadIdx.x == 0)
    mbar_init(&full, 1);
  store_unless_shared(&tile[threadIdx.x], 1.f);
  add_fallback(&tile[threadIdx.x], 1.f);
  store_if_local(&tile[threadIdx.x], 1.f);
  __syncthreads();
  if (threadIdx.x == 0) {
    mbar_expect_tx(&full, sizeof(tile));
    bulk_load(tile, src, sizeof(tile), &full);
  }
  mbar_wait(&full, 0);
  out[threadIdx.x] = tile[threadIdx.x];
}
// CHECK-NOT: address-space-guards.cu:[[@LINE-5]]:{{[0-9]+}}: warning

__global__ void shared_arm(const float *src, float *out) {
  __shared__ alignas(128) float tile[N];
  __shared__ uint64_t full;
  if (threadIdx.x == 0)
    mbar_init(&full, 1);
  store_if_shared(&tile[threadIdx.x], 1.f);
  __syncthreads();
  if (threadIdx.x == 0) {
    mbar_expect_tx(&full, sizeof(tile));
    bulk_load(tile, src, sizeof(tile), &full);
    // CHECK: address-space-guards.cu:[[@LINE-1]]:5: warning: bulk async load overwrites shared memory 'tile' written through the generic proxy with no fence.proxy.async on the path [proxyfence-async-overwrite]
    // CHECK: address-space-guards.cu:[[@LINE-38]]:5: note: generic-proxy write to 'tile' here
  }
  mbar_wait(&full, 0);
  out[threadIdx.x] = tile[threadIdx.x];
}

__global__ void other_pointer(const float *src, float *out, float *global) {
  __shared__ alignas(128) float tile[N];
  __shared__ uint64_t full;
  if (threadIdx.x == 0)
    mbar_init(&full, 1);
  store_other(global, &tile[threadIdx.x], 1.f);
  __syncthreads();
  if (threadIdx.x == 0) {
    mbar_expect_tx(&full, sizeof(tile));
    bulk_load(tile, src, sizeof(tile), &full);
    // CHECK: address-space-guards.cu:[[@LINE-1]]:5: warning: bulk async load overwrites shared memory 'tile' written through the generic proxy with no fence.proxy.async on the path [proxyfence-async-overwrite]
    // CHECK: address-space-guards.cu:[[@LINE-49]]:5: note: generic-proxy write to 'tile' here
  }
  mbar_wait(&full, 0);
  out[threadIdx.x] = tile[threadIdx.x];
}

__global__ void local_pointer(const float *src, float *out, float *global, int which) {
  __shared__ alignas(128) float tile[N];
  __shared__ uint64_t full;
  if (threadIdx.x == 0)
    mbar_init(&full, 1);
  float *p = which ? global : tile;
  if (!__isShared(p))
    tile[threadIdx.x] = 1.f;
  __syncthreads();
  if (threadIdx.x == 0) {
    mbar_expect_tx(&full, sizeof(tile));
    bulk_load(tile, src, sizeof(tile), &full);
    // CHECK: address-space-guards.cu:[[@LINE-1]]:5: warning: bulk async load overwrites shared memory 'tile' written through the generic proxy with no fence.proxy.async on the path [proxyfence-async-overwrite]
    // CHECK: address-space-guards.cu:[[@LINE-6]]:5: note: generic-proxy write to 'tile' here
  }
  mbar_wait(&full, 0);
  out[threadIdx.x] = tile[threadIdx.x] + p[0];
}
// CHECK: proxyfence: 3 findings in 1 file
