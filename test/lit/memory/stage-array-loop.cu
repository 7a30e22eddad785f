// A kernel fills arrays of stage pointers in a loop (`smem_a[i] = smem +
// i * SIZE_A`, DeepGEMM's and TensorRT-LLM's layout) and carves a slot for
// scales past all the stages. The index is a loop counter that starts at 0
// and counts up to kStages, so the stages of A cover [0, kStages * SIZE_A)
// and those of B the next kStages * SIZE_B bytes. The scales written with
// plain stores are then not the memory the TMA loads refill; a stage of A
// written with plain stores is, and so is any place inside the stages
// (`smem + SIZE_A`, an element a strided loop clears). A counter the loop
// body also changes places nothing.
// RUN: not %proxyfence %s -- -I%S/../async-overwrite/Inputs 2>&1 | FileCheck %s
// RUN: %nvcc-sm90a -I%S/../async-overwrite/Inputs -cubin -o /dev/null %s
// REQUIRES: nvcc
#include "mbar.h"

constexpr int kStages = 4, SIZE_A = 4096, SIZE_B = 2048;

__global__ void stage_arrays(const float *src, const float *scales,
                             float *out) {
  extern __shared__ __align__(1024) uint8_t smem[];
  uint8_t *smem_a[kStages];
  uint8_t *smem_b[kStages];
  for (int i = 0; i < kStages; ++i) {
    smem_a[i] = smem + i * SIZE_A;
    smem_b[i] = smem + kStages * SIZE_A + i * SIZE_B;
  }
  float *smem_scales = reinterpret_cast<float *>(smem + kStages * (SIZE_A + SIZE_B));
  uint64_t *full = reinterpret_cast<uint64_t *>(smem_scales + 128);
  if (threadIdx.x == 0)
    for (int s = 0; s < kStages; ++s)
      mbar_init(&full[s], 1);
  smem_scales[threadIdx.x] = scales[threadIdx.x];
  reinterpret_cast<float *>(smem_b[0])[threadIdx.x] = 0.f;
  __syncthreads();
  for (int s = 0; s < kStages; ++s) {
    if (threadIdx.x == 0) {
      mbar_expect_tx(&full[s], SIZE_A);
      bulk_load(smem_a[s], src + s * 1024, SIZE_A, &full[s]);
    }
  }
  float acc = 0.f;
  for (int s = 0; s < kStages; ++s) {
    mbar_wait(&full[s], 0);
    acc += smem_scales[threadIdx.x];
  }
  out[threadIdx.x] = acc;
}
// CHECK-NOT: stage-array-loop.cu:[[@LINE-10]]:{{[0-9]+}}: warning

__global__ void stage_written(const float *src, float *out) {
  extern __shared__ __align__(1024) uint8_t smem[];
  uint8_t *smem_a[kStages];
  for (int i = 0; i < kStages; ++i)
    smem_a[i] = smem + i * SIZE_A;
  uint64_t *full = reinterpret_cast<uint64_t *>(smem + kStages * SIZE_A);
  if (threadIdx.x == 0)
    mbar_init(full, 1);
  reinterpret_cast<float *>(smem + SIZE_A)[threadIdx.x] = 0.f;
  __syncthreads();
  if (threadIdx.x == 0) {
    mbar_expect_tx(full, SIZE_A);
    bulk_load(smem_a[1], src, SIZE_A, full);
    // CHECK: stage-array-loop.cu:[[@LINE-1]]:5: warning: bulk async load overwrites dynamic shared memory written through the generic proxy with no fence.proxy.async on the path [proxyfence-async-overwrite]
  }
  mbar_wait(full, 0);
  out[threadIdx.x] = reinterpret_cast<float *>(smem_a[1])[threadIdx.x];
}

__global__ void counter_changed(const float *src, const float *scales,
                                float *out) {
  extern __shared__ __align__(1024) uint8_t smem[];
  uint8_t *smem_a[kStages];
  for (int i = 0; i < kStages; ++i) {
    smem_a[i] = smem + i * SIZE_A;
    i += (scales[i] > 0.f);
  }
  float *smem_scales = reinterpret_cast<float *>(smem + kStages * SIZE_A);
  uint64_t *full = reinterpret_cast<uint64_t *>(smem_scales + 128);
  if (threadIdx.x == 0)
    mbar_init(full, 1);
  smem_scales[threadIdx.x] = scales[threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0) {
    mbar_expect_tx(full, SIZE_A);
    bulk_load(smem_a[0], src, SIZE_A, full);
    // CHECK: stage-array-loop.cu:[[@LINE-1]]:5: warning: bulk async load overwrites dynamic shared memory written through the generic proxy with no fence.proxy.async on the path [proxyfence-async-overwrite]
  }
  mbar_wait(full, 0);
  out[threadIdx.x] = smem_scales[threadIdx.x];
}

__global__ void strided_clear(const float *src, float *out) {
  extern __shared__ __align__(1024) uint8_t smem[];
  uint64_t *full = reinterpret_cast<uint64_t *>(smem + 8192);
  if (threadIdx.x == 0)
    mbar_init(full, 1);
  for (int k = 0; k < 8; ++k)
    reinterpret_cast<float *>(smem + k * 256)[threadIdx.x % 64] = 0.f;
  __syncthreads();
  if (threadIdx.x == 0) {
    mbar_expect_tx(full, 1024);
    bulk_load(smem + 1024, src, 1024, full);
    // CHECK: stage-array-loop.cu:[[@LINE-1]]:5: warning: bulk async load overwrites dynamic shared memory written through the generic proxy with no fence.proxy.async on the path [proxyfence-async-overwrite]
  }
  mbar_wait(full, 0);
  out[threadIdx.x] = reinterpret_cast<float *>(smem + 1024)[threadIdx.x];
}
// CHECK: proxyfence: 3 findings in 1 file
