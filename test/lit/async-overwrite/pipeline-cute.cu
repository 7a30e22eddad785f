// CuTe/CUTLASS-style pipeline: cutlass::arch::ClusterBarrier for the full
// and empty barriers, SM90_BULK_COPY_G2S for the refill, and consumers that
// read the stage with ldmatrix (SM75_U32x4_LDSM_N). The barriers are found
// through `this` of the member calls; the fix is spelled as CUTLASS does.
// REQUIRES: nvcc
// RUN: cp %s %t.cu
// RUN: not %proxyfence %t.cu -- -I%S/../mma-operand/Inputs 2>&1 | FileCheck %s
// RUN: %proxyfence --fix --quiet %t.cu -- -I%S/../mma-operand/Inputs
// RUN: FileCheck --check-prefix=FIXED --input-file=%t.cu %s
// RUN: cp %t.cu %t.again.cu
// RUN: %proxyfence --fix --quiet %t.again.cu -- -I%S/../mma-operand/Inputs
// RUN: cmp %t.cu %t.again.cu
// RUN: %proxyfence %t.cu -- -I%S/../mma-operand/Inputs 2>&1 | FileCheck --check-prefix=CLEAN %s
// RUN: %nvcc-sm90a -I%S/../mma-operand/Inputs -cubin -o /dev/null %t.cu
#include "mini_cute.h"

constexpr int STAGES = 2;
constexpr int TILE_BYTES = 64 * 64 * 2; // one 64x64 bf16 tile

__global__ void consume_tiles(const uint8_t *in, uint32_t *out, int ntiles) {
  __shared__ alignas(128) uint8_t stage[STAGES][TILE_BYTES];
  __shared__ cutlass::arch::ClusterBarrier full[STAGES], empty[STAGES];
  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; ++s) {
      full[s].init(1);
      empty[s].init(blockDim.x);
    }
  }
  __syncthreads();
  uint32_t acc = 0;
  for (int t = 0; t < ntiles; ++t) {
    int s = t % STAGES;
    uint32_t phase = (t / STAGES) & 1;
    if (threadIdx.x == 0) {
      empty[s].wait(phase ^ 1);
      full[s].arrive_and_expect_tx(TILE_BYTES);
      cute::SM90_BULK_COPY_G2S::copy(in + size_t(t) * TILE_BYTES,
                                     &full[s].barrier_, stage[s], TILE_BYTES);
    }
    full[s].wait(phase);
    uint32_t r0, r1, r2, r3;
    cute::SM75_U32x4_LDSM_N::copy(
        cute::cast_smem_ptr_to_uint(&stage[s][(threadIdx.x % 64) * 128]), r0,
        r1, r2, r3);
    acc ^= r0 ^ r1 ^ r2 ^ r3;
    empty[s].arrive();
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// The same pipeline consumed by a GMMA atom only (async-proxy reads through
// const& descriptor parameters): no finding.
__global__ void gmma_consumer(const uint8_t *in, float *out, int ntiles) {
  __shared__ alignas(128) uint8_t stage[STAGES][TILE_BYTES];
  __shared__ cutlass::arch::ClusterBarrier full[STAGES], empty[STAGES];
  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; ++s) {
      full[s].init(1);
      empty[s].init(blockDim.x);
    }
  }
  __syncthreads();
  float d[32];
  for (int i = 0; i < 32; ++i)
    d[i] = 0.f;
  for (int t = 0; t < ntiles; ++t) {
    int s = t % STAGES;
    uint32_t phase = (t / STAGES) & 1;
    if (threadIdx.x == 0) {
      empty[s].wait(phase ^ 1);
      full[s].arrive_and_expect_tx(TILE_BYTES);
      cute::SM90_BULK_COPY_G2S::copy(in + size_t(t) * TILE_BYTES,
                                     &full[s].barrier_, stage[s], TILE_BYTES);
    }
    full[s].wait(phase);
    cute::GmmaDescriptor desc_a = cute::make_gmma_desc(&stage[s][0], 128, 256);
    cute::GmmaDescriptor desc_b =
        cute::make_gmma_desc(&stage[s][TILE_BYTES / 2], 128, 256);
    cute::warpgroup_arrive();
    cute::SM90_64x64x16_F32BF16BF16_SS::fma(desc_a, desc_b, d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7], d[8], d[9], d[10], d[11], d[12], d[13], d[14], d[15], d[16], d[17], d[18], d[19], d[20], d[21], d[22], d[23], d[24], d[25], d[26], d[27], d[28], d[29], d[30], d[31]);
    cute::warpgroup_commit_batch();
    cute::warpgroup_wait<0>();
    empty[s].arrive();
  }
  for (int i = 0; i < 32; ++i)
    out[(blockIdx.x * blockDim.x + threadIdx.x) * 32 + i] = d[i];
}

// CHECK: pipeline-cute.cu.tmp.cu:37:7: warning: bulk async load overwrites shared memory 'stage' read through the generic proxy with no fence.proxy.async on the path [proxyfence-async-overwrite]
// CHECK: mini_cute.h:163:5: note: bulk async load issued here, inside 'copy'
// CHECK: mini_cute.h:150:5: note: generic-proxy read of 'stage' here (ldmatrix.shared)
// CHECK: :42:5: note: inside 'copy', called here
// CHECK-NOT: generic-proxy
// CHECK: :46:5: note: this barrier orders threads, not proxies; insert the fence before it
// CHECK: :46:5: note: insert 'cutlass::arch::fence_view_async_shared();' here
// CHECK-NOT: warning:
// CHECK: proxyfence: 1 finding in 1 file

// FIXED:      acc ^= r0 ^ r1 ^ r2 ^ r3;
// FIXED-NEXT: {{^    }}cutlass::arch::fence_view_async_shared();
// FIXED-NEXT: {{^    }}empty[s].arrive();
// FIXED:      cute::warpgroup_wait<0>();
// FIXED-NEXT: {{^    }}empty[s].arrive();

// CLEAN: proxyfence: 0 findings in 1 file
