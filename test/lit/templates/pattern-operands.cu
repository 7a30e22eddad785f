// A kernel template that nothing instantiates reads its pipeline stage
// through a local pointer of known type, `Half *row = tiles[s] + off;`, and
// copies elements into a register array whose size depends on template
// values, `v[0] = row[1];` (the DeepGEMM sm90 TF32 GEMM's shape). Two things
// a pattern leaves unresolved: the assignment (its left side is dependent, so
// `row[1]` is never converted to a value: it is still a read), and `+` on the
// dependent `tiles[s]` where lookup found operator overloads (as cuda_bf16.h
// declares them): still an address into the stage. The refilling bulk load
// then overwrites what was read without a proxy fence. Fenced, or when only
// the element's address is taken, nothing is reported.
// RUN: not %proxyfence %s -- -I%S/../async-overwrite/Inputs 2>&1 | FileCheck %s
#include "mbar.h"
#include <utility>

struct Half {
  unsigned short bits;
};
// Operators in scope make `tiles[s] + off` an unresolved operator call.
__device__ Half operator+(const Half &a, const Half &b);
__device__ Half operator*(const Half &a, const Half &b);

template <typename Fn>
struct Visitor {
  Fn fn;
  __device__ explicit Visitor(Fn &&f) : fn(std::forward<Fn>(f)) {}
  __device__ auto operator[](const uint32_t &i) const { return fn(i); }
};

__device__ inline void fence_async() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

template <uint32_t kStages, uint32_t kBytes>
__global__ void stage_reader(const Half *in, float *out, int n) {
  extern __shared__ __align__(1024) uint8_t smem[];
  auto tiles = Visitor([&](const uint32_t &i) {
    return reinterpret_cast<Half *>(smem + i * kBytes);
  });
  auto bars = reinterpret_cast<uint64_t *>(smem + kStages * kBytes);
  if (threadIdx.x >= 128) {
    if (threadIdx.x == 128)
      for (int s = 0; s < n; ++s) {
        const auto stage = s % kStages;
        mbar_wait(bars + kStages + stage, ((s / kStages) & 1) ^ 1);
        bulk_load(tiles[stage], in + s * kBytes / 2, kBytes, bars + stage);
      }
  } else {
    float acc = 0;
    for (int s = 0; s < n; ++s) {
      const auto &stage = s % kStages;
      mbar_wait(bars + stage, (s / kStages) & 1);
      Half *row = tiles[stage] + threadIdx.x * 8;
      Half v[kBytes / 1024];
      v[0] = row[1];
      acc += float(v[0].bits);
      mbar_arrive(bars + kStages + stage);
    }
    out[threadIdx.x] = acc;
  }
}
// CHECK: pattern-operands.cu:45:9: warning: bulk async load overwrites dynamic shared memory read through the generic proxy with no fence.proxy.async on the path [proxyfence-async-overwrite]
// CHECK: mbar.h:{{[0-9]+}}:3: note: bulk async load issued here, inside 'bulk_load'
// CHECK: pattern-operands.cu:54:14: note: generic-proxy read of dynamic shared memory here
// CHECK: pattern-operands.cu:56:7: note: this barrier orders threads, not proxies; insert the fence before it
// CHECK-NOT: pattern-operands.cu:{{[0-9]+}}:{{[0-9]+}}: warning

// The reader fences before it releases the stage.
template <uint32_t kStages, uint32_t kBytes>
__global__ void stage_reader_fenced(const Half *in, float *out, int n) {
  extern __shared__ __align__(1024) uint8_t smem[];
  auto tiles = Visitor([&](const uint32_t &i) {
    return reinterpret_cast<Half *>(smem + i * kBytes);
  });
  auto bars = reinterpret_cast<uint64_t *>(smem + kStages * kBytes);
  if (threadIdx.x >= 128) {
    if (threadIdx.x == 128)
      for (int s = 0; s < n; ++s) {
        const auto stage = s % kStages;
        mbar_wait(bars + kStages + stage, ((s / kStages) & 1) ^ 1);
        bulk_load(tiles[stage], in + s * kBytes / 2, kBytes, bars + stage);
      }
  } else {
    float acc = 0;
    for (int s = 0; s < n; ++s) {
      const auto &stage = s % kStages;
      mbar_wait(bars + stage, (s / kStages) & 1);
      Half *row = tiles[stage] + threadIdx.x * 8;
      Half v[kBytes / 1024];
      v[0] = row[1];
      acc += float(v[0].bits);
      fence_async();
      mbar_arrive(bars + kStages + stage);
    }
    out[threadIdx.x] = acc;
  }
}

// Only the element's address is stored: no read.
template <uint32_t kStages, uint32_t kBytes>
__global__ void address_only(const Half *in, Half **out, int n) {
  extern __shared__ __align__(1024) uint8_t smem[];
  auto tiles = Visitor([&](const uint32_t &i) {
    return reinterpret_cast<Half *>(smem + i * kBytes);
  });
  auto bars = reinterpret_cast<uint64_t *>(smem + kStages * kBytes);
  if (threadIdx.x >= 128) {
    if (threadIdx.x == 128)
      for (int s = 0; s < n; ++s) {
        const auto stage = s % kStages;
        mbar_wait(bars + kStages + stage, ((s / kStages) & 1) ^ 1);
        bulk_load(tiles[stage], in + s * kBytes / 2, kBytes, bars + stage);
      }
  } else {
    for (int s = 0; s < n; ++s) {
      const auto &stage = s % kStages;
      mbar_wait(bars + stage, (s / kStages) & 1);
      Half *row = tiles[stage] + threadIdx.x * 8;
      Half *p[kBytes / 1024];
      p[0] = &row[1];
      out[threadIdx.x] = p[0];
      mbar_arrive(bars + kStages + stage);
    }
  }
}
// CHECK: proxyfence: 1 finding in 1 file
