// A two-stage TMA-load pipeline where every thread consumes in the same loop
// as thread 0 produces: consumers read a stage with plain loads and arrive on
// its "empty" mbarrier; thread 0 waits on "empty" and refills the stage with
// a bulk copy. The barrier orders the threads, not the proxies: the fence
// belongs in the consumer, after its last read and before its arrive.
// REQUIRES: nvcc
// RUN: cp %s %t.cu
// RUN: not %proxyfence %t.cu 2>&1 | FileCheck %s
// RUN: %proxyfence --fix --quiet %t.cu
// RUN: FileCheck --check-prefix=FIXED --input-file=%t.cu %s
// RUN: cp %t.cu %t.again.cu
// RUN: %proxyfence --fix --quiet %t.again.cu
// RUN: cmp %t.cu %t.again.cu
// RUN: %proxyfence %t.cu 2>&1 | FileCheck --check-prefix=CLEAN %s
// RUN: %nvcc-sm90a -cubin -o /dev/null %t.cu
#include <cstdint>

constexpr int STAGES = 2;
constexpr int TILE = 1024; // floats per stage

__device__ __forceinline__ uint32_t smem_u32(const void *p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void mbar_init(uint64_t *bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;"
               :: "r"(smem_u32(bar)), "r"(count) : "memory");
}
__device__ __forceinline__ void mbar_wait(uint64_t *bar, uint32_t parity) {
  asm volatile("{\n"
               ".reg .pred done;\n"
               "WAIT_%=:\n"
               "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
               "@!done bra WAIT_%=;\n"
               "}\n"
               :: "r"(smem_u32(bar)), "r"(parity) : "memory");
}
__device__ __forceinline__ void mbar_arrive(uint64_t *bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];"
               :: "r"(smem_u32(bar)) : "memory");
}
__device__ __forceinline__ void mbar_expect_tx(uint64_t *bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"
               :: "r"(smem_u32(bar)), "r"(bytes) : "memory");
}

__global__ void sum_tiles(const float *in, float *out, int ntiles) {
  __shared__ alignas(128) float stage[STAGES][TILE];
  __shared__ alignas(8) uint64_t full[STAGES], empty[STAGES];
  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; ++s) {
      mbar_init(&full[s], 1);
      mbar_init(&empty[s], blockDim.x);
    }
  }
  __syncthreads();
  float acc = 0.f;
  for (int t = 0; t < ntiles; ++t) {
    int s = t % STAGES;
    uint32_t phase = (t / STAGES) & 1;
    if (threadIdx.x == 0) {
      mbar_wait(&empty[s], phase ^ 1);
      mbar_expect_tx(&full[s], TILE * sizeof(float));
      asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                   :: "r"(smem_u32(&stage[s][0])), "l"(in + size_t(t) * TILE),
                      "r"(uint32_t(TILE * sizeof(float))), "r"(smem_u32(&full[s]))
                   : "memory");
    }
    mbar_wait(&full[s], phase);
    for (int i = threadIdx.x; i < TILE; i += blockDim.x)
      acc += stage[s][i];
    mbar_arrive(&empty[s]);
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
// CHECK: pipeline-raw-ptx.cu.tmp.cu:63:7: warning: bulk async load overwrites shared memory 'stage' read through the generic proxy with no fence.proxy.async on the path [proxyfence-async-overwrite]
// CHECK: :70:14: note: generic-proxy read of 'stage' here
// CHECK: :71:5: note: this barrier orders threads, not proxies; insert the fence before it
// CHECK: :71:5: note: insert 'asm volatile("fence.proxy.async.shared::cta;" ::: "memory");' here
// CHECK-NOT: warning:
// CHECK: proxyfence: 1 finding in 1 file

// Only in the consumer, after its reads and before its arrive; the producer
// (after its wait on "empty") is left alone.
// FIXED:      mbar_wait(&empty[s], phase ^ 1);
// FIXED-NEXT: mbar_expect_tx(&full[s], TILE * sizeof(float));
// FIXED:      acc += stage[s][i];
// FIXED-NEXT: {{^    }}asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
// FIXED-NEXT: {{^    }}mbar_arrive(&empty[s]);

// CLEAN: proxyfence: 0 findings in 1 file
