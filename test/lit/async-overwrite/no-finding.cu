// No async-overwrite finding: the consumer fences before its arrive
// (convention 1); the producer fences after its wait, right before the
// refill (convention 2); a consumer that reads the stage only as a wgmma
// operand (async proxy); a refill of a buffer nobody read.
// REQUIRES: nvcc
// RUN: %proxyfence %s -- -I%S/Inputs 2>&1 | FileCheck %s
// RUN: %nvcc-sm90a -I%S/Inputs -cubin -o /dev/null %s
#include "mbar.h"

constexpr int STAGES = 2;
constexpr int TILE = 1024;

#define PIPELINE_PROLOGUE()                                                    \
  __shared__ alignas(128) float stage[STAGES][TILE];                           \
  __shared__ alignas(8) uint64_t full[STAGES], empty[STAGES];                  \
  if (threadIdx.x == 0) {                                                      \
    for (int s = 0; s < STAGES; ++s) {                                         \
      mbar_init(&full[s], 1);                                                  \
      mbar_init(&empty[s], blockDim.x);                                        \
    }                                                                          \
  }                                                                            \
  __syncthreads()

__global__ void consumer_fences(const float *in, float *out, int ntiles) {
  PIPELINE_PROLOGUE();
  float acc = 0.f;
  for (int t = 0; t < ntiles; ++t) {
    int s = t % STAGES;
    uint32_t phase = (t / STAGES) & 1;
    if (threadIdx.x == 0) {
      mbar_wait(&empty[s], phase ^ 1);
      mbar_expect_tx(&full[s], sizeof(stage[s]));
      bulk_load(stage[s], in + size_t(t) * TILE, sizeof(stage[s]), &full[s]);
    }
    mbar_wait(&full[s], phase);
    for (int i = threadIdx.x; i < TILE; i += blockDim.x)
      acc += stage[s][i];
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    mbar_arrive(&empty[s]);
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// The producer fences after its wait on "empty" (as ThunderKittens does for
// its own accesses); the PTX model leaves open whether that covers the other
// consumers' reads, and proxyfence accepts both conventions.
__global__ void producer_fences(const float *in, float *out, int ntiles) {
  PIPELINE_PROLOGUE();
  float acc = 0.f;
  for (int t = 0; t < ntiles; ++t) {
    int s = t % STAGES;
    uint32_t phase = (t / STAGES) & 1;
    if (threadIdx.x == 0) {
      mbar_wait(&empty[s], phase ^ 1);
      asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
      mbar_expect_tx(&full[s], sizeof(stage[s]));
      bulk_load(stage[s], in + size_t(t) * TILE, sizeof(stage[s]), &full[s]);
    }
    mbar_wait(&full[s], phase);
    for (int i = threadIdx.x; i < TILE; i += blockDim.x)
      acc += stage[s][i];
    mbar_arrive(&empty[s]);
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

__device__ __forceinline__ uint64_t make_desc(const void *smem) {
  return (uint64_t(smem_u32(smem)) & 0x3FFFF) >> 4 |
         (uint64_t(128 >> 4) << 16) | (uint64_t(256 >> 4) << 32);
}

// The consumer reads the stage only through wgmma (async proxy reads):
// nothing to order against the refill but the wgmma's completion.
__global__ void wgmma_consumer(const float *in, float *out, int ntiles) {
  PIPELINE_PROLOGUE();
  float d0 = 0.f, d1 = 0.f, d2 = 0.f, d3 = 0.f;
  for (int t = 0; t < ntiles; ++t) {
    int s = t % STAGES;
    uint32_t phase = (t / STAGES) & 1;
    if (threadIdx.x == 0) {
      mbar_wait(&empty[s], phase ^ 1);
      mbar_expect_tx(&full[s], sizeof(stage[s]));
      bulk_load(stage[s], in + size_t(t) * TILE, sizeof(stage[s]), &full[s]);
    }
    mbar_wait(&full[s], phase);
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
    asm volatile("wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32 "
                 "{%0, %1, %2, %3}, %4, %5, 1, 1, 1;"
                 : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
                 : "l"(make_desc(&stage[s][0])), "l"(make_desc(&stage[s][512])));
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    mbar_arrive(&empty[s]);
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = d0 + d1 + d2 + d3;
}

// Disjoint buffers: the threads read 'table', the bulk copy refills 'tile'.
__global__ void disjoint(const float *in, const float *lut, float *out) {
  __shared__ alignas(128) float tile[TILE];
  __shared__ float table[256];
  __shared__ alignas(8) uint64_t full;
  if (threadIdx.x == 0)
    mbar_init(&full, 1);
  table[threadIdx.x % 256] = lut[threadIdx.x % 256];
  __syncthreads();
  float bias = table[(threadIdx.x * 7) % 256];
  __syncthreads();
  if (threadIdx.x == 0) {
    mbar_expect_tx(&full, sizeof(tile));
    bulk_load(tile, in, sizeof(tile), &full);
  }
  mbar_wait(&full, 0);
  out[threadIdx.x] = tile[threadIdx.x] + bias;
}

// CHECK-NOT: warning:
// CHECK: proxyfence: 0 findings in 1 file
