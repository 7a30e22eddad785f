// A kernel template keeps its pipeline in a shared-storage struct template
// (DeepGEMM's layout::*SharedStorage<...>), reached through
// `auto &smem = *reinterpret_cast<Storage<...> *>(smem_buffer)`. Nothing
// instantiates it, so `smem.w[s]` has no type and the struct no layout, yet
// the class template's definition says what `w` is: an array member, a
// different one from `a`, and `smem.full[s]` an array of barriers whose
// member functions are known. The consumers read `w` and release the stage:
// only the TMA load that refills `w` is reported, named; `a` is read by no
// one. The stage index comes from a call the pattern cannot type, which must
// not be taken for the array. A fenced reader reports nothing.
// RUN: not %proxyfence %s -- -I%S/../async-overwrite/Inputs 2>&1 | FileCheck %s
#include "mbar.h"

struct Bar {
  uint64_t state;
  __device__ void wait(uint32_t phase) { mbar_wait(&state, phase); }
  __device__ void arrive() { mbar_arrive(&state); }
};

template <uint32_t kStages, uint32_t kN>
struct Storage {
  float a[kStages][kN];
  float w[kStages][kN];
  Bar full[kStages], empty[kStages];
};

template <uint32_t kStages>
struct Pipeline {
  __device__ uint32_t next(int s) const { return s % kStages; }
};

__device__ inline void fence_async() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

template <uint32_t kStages, uint32_t kN>
__global__ void consume(const float *in, float *out, int n) {
  extern __shared__ __align__(1024) uint8_t smem_buffer[];
  auto &smem = *reinterpret_cast<Storage<kStages, kN> *>(smem_buffer);
  auto pipe = Pipeline<kStages>();
  if (threadIdx.x >= 128) {
    if (threadIdx.x == 128)
      for (int s = 0; s < n; ++s) {
        auto stage = pipe.next(s);
        smem.empty[stage].wait(((s / kStages) & 1) ^ 1);
        bulk_load(smem.a[stage], in, kN * 4, &smem.full[stage].state);
        bulk_load(smem.w[stage], in, kN * 4, &smem.full[stage].state);
      }
  } else {
    float acc = 0;
    for (int s = 0; s < n; ++s) {
      auto stage = pipe.next(s);
      smem.full[stage].wait((s / kStages) & 1);
      acc += smem.w[stage][threadIdx.x];
      smem.empty[stage].arrive();
    }
    out[threadIdx.x] = acc;
  }
}
// CHECK: dependent-storage.cu:[[@LINE-13]]:9: warning: bulk async load overwrites shared memory 'Storage::w' read through the generic proxy with no fence.proxy.async on the path [proxyfence-async-overwrite]
// CHECK: dependent-storage.cu:[[@LINE-7]]:14: note: generic-proxy read of 'Storage::w' here
// CHECK-NOT: warning:

template <uint32_t kStages, uint32_t kN>
__global__ void consume_fenced(const float *in, float *out, int n) {
  extern __shared__ __align__(1024) uint8_t smem_buffer[];
  auto &smem = *reinterpret_cast<Storage<kStages, kN> *>(smem_buffer);
  auto pipe = Pipeline<kStages>();
  if (threadIdx.x >= 128) {
    if (threadIdx.x == 128)
      for (int s = 0; s < n; ++s) {
        auto stage = pipe.next(s);
        smem.empty[stage].wait(((s / kStages) & 1) ^ 1);
        bulk_load(smem.a[stage], in, kN * 4, &smem.full[stage].state);
        bulk_load(smem.w[stage], in, kN * 4, &smem.full[stage].state);
      }
  } else {
    float acc = 0;
    for (int s = 0; s < n; ++s) {
      auto stage = pipe.next(s);
      smem.full[stage].wait((s / kStages) & 1);
      acc += smem.w[stage][threadIdx.x];
      fence_async();
      smem.empty[stage].arrive();
    }
    out[threadIdx.x] = acc;
  }
}
// CHECK: proxyfence: 1 finding in 1 file
