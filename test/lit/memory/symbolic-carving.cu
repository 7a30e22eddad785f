// A kernel template that nothing instantiates carves its dynamic shared
// memory with offsets template values decide (DeepGEMM's layout): the A
// stages, then the B stages, then the barriers and a slot for the tensor
// memory address, each `base + count * size` past the previous. No constant
// places them, yet a stage of A is not a stage of B, and the slot past all
// the stages is neither: a region runs to the next place carved from the
// same memory, and a stage array's own stages (`i * SIZE_A`) do not end it.
// Only the TMA load that refills the A stage the consumers read is
// reported; the B load and the slot read are not. Where the order of two
// places depends on the template values, they may overlap.
// RUN: not %proxyfence %s -- -I%S/../async-overwrite/Inputs 2>&1 | FileCheck %s
#include "mbar.h"
#include <utility>

template <typename Fn>
struct Visitor {
  Fn fn;
  __device__ explicit Visitor(Fn &&f) : fn(std::forward<Fn>(f)) {}
  __device__ auto operator[](const uint32_t &i) const { return fn(i); }
};

template <uint32_t kStages, uint32_t BLOCK_M, uint32_t BLOCK_N, uint32_t BLOCK_K>
__global__ void carved(const float *a, const float *b, float *out, int n) {
  extern __shared__ __align__(1024) uint8_t smem[];
  constexpr uint32_t SIZE_A = BLOCK_M * BLOCK_K * sizeof(float);
  constexpr uint32_t SIZE_B = BLOCK_N * BLOCK_K * sizeof(float);
  auto smem_a = Visitor([&](const uint32_t &i) {
    return reinterpret_cast<float *>(smem + i * SIZE_A);
  });
  auto smem_b = Visitor([&](const uint32_t &i) {
    return reinterpret_cast<float *>(smem + kStages * SIZE_A + i * SIZE_B);
  });
  auto bars = reinterpret_cast<uint64_t *>(smem_b[kStages]);
  auto full = Visitor([=](const uint32_t &i) { return bars + i; });
  auto empty = Visitor([=](const uint32_t &i) { return bars + kStages + i; });
  auto slot = reinterpret_cast<uint32_t *>(bars + kStages * 2);
  if (threadIdx.x >= 128) {
    if (threadIdx.x == 128)
      for (int s = 0; s < n; ++s) {
        const uint32_t stage = s % kStages;
        mbar_wait(empty[stage], ((s / kStages) & 1) ^ 1);
        bulk_load(smem_a[stage], a + s * SIZE_A / 4, SIZE_A, full[stage]);
        bulk_load(smem_b[stage], b + s * SIZE_B / 4, SIZE_B, full[stage]);
      }
  } else {
    float acc = float(*slot);
    for (int s = 0; s < n; ++s) {
      const uint32_t stage = s % kStages;
      mbar_wait(full[stage], (s / kStages) & 1);
      acc += smem_a[stage][threadIdx.x];
      mbar_arrive(empty[stage]);
    }
    out[threadIdx.x] = acc;
  }
}
// CHECK: symbolic-carving.cu:[[@LINE-14]]:9: warning: bulk async load overwrites dynamic shared memory read through the generic proxy with no fence.proxy.async on the path [proxyfence-async-overwrite]
// CHECK: symbolic-carving.cu:[[@LINE-7]]:14: note: generic-proxy read of dynamic shared memory here
// CHECK-NOT: symbolic-carving.cu:[[@LINE-15]]:{{[0-9]+}}: warning
// CHECK-NOT: note: generic-proxy read of dynamic shared memory here

// The B stages start at a place whose order against A's is not known: they
// may overlap, so the B load is reported too.
template <uint32_t kStages, uint32_t OFFSET_A, uint32_t OFFSET_B, uint32_t SIZE>
__global__ void unordered(const float *a, float *out, int n) {
  extern __shared__ __align__(1024) uint8_t smem[];
  auto smem_a = Visitor([&](const uint32_t &i) {
    return reinterpret_cast<float *>(smem + OFFSET_A + i * SIZE);
  });
  auto smem_b = Visitor([&](const uint32_t &i) {
    return reinterpret_cast<float *>(smem + OFFSET_B + i * SIZE);
  });
  auto bars = reinterpret_cast<uint64_t *>(smem);
  if (threadIdx.x >= 128) {
    if (threadIdx.x == 128)
      for (int s = 0; s < n; ++s) {
        const uint32_t stage = s % kStages;
        mbar_wait(bars + kStages + stage, ((s / kStages) & 1) ^ 1);
        bulk_load(smem_b[stage], a + s * SIZE / 4, SIZE, bars + stage);
      }
  } else {
    float acc = 0;
    for (int s = 0; s < n; ++s) {
      const uint32_t stage = s % kStages;
      mbar_wait(bars + stage, (s / kStages) & 1);
      acc += smem_a[stage][threadIdx.x];
      mbar_arrive(bars + kStages + stage);
    }
    out[threadIdx.x] = acc;
  }
}
// CHECK: symbolic-carving.cu:[[@LINE-13]]:9: warning: bulk async load overwrites dynamic shared memory read through the generic proxy

// `smem_a[1]` is one of the stages `smem_a[stage]` refills.
template <uint32_t kStages, uint32_t SIZE>
__global__ void one_stage(const float *a, float *out, int n) {
  extern __shared__ __align__(1024) uint8_t smem[];
  auto smem_a = Visitor([&](const uint32_t &i) {
    return reinterpret_cast<float *>(smem + i * SIZE);
  });
  auto bars = reinterpret_cast<uint64_t *>(smem + kStages * SIZE);
  if (threadIdx.x >= 128) {
    if (threadIdx.x == 128)
      for (int s = 0; s < n; ++s) {
        const uint32_t stage = s % kStages;
        mbar_wait(bars + kStages + stage, ((s / kStages) & 1) ^ 1);
        bulk_load(smem_a[stage], a + s * SIZE / 4, SIZE, bars + stage);
      }
  } else {
    float acc = 0;
    for (int s = 0; s < n; ++s) {
      const uint32_t stage = s % kStages;
      mbar_wait(bars + stage, (s / kStages) & 1);
      acc += smem_a[1][threadIdx.x];
      mbar_arrive(bars + kStages + stage);
    }
    out[threadIdx.x] = acc;
  }
}
// CHECK: symbolic-carving.cu:[[@LINE-13]]:9: warning: bulk async load overwrites dynamic shared memory read through the generic proxy
// CHECK: proxyfence: 3 findings in 1 file
