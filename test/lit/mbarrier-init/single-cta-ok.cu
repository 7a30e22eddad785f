// Single CTA, no cluster: thread 0 initialises the mbarrier, __syncthreads()
// makes the init visible to the CTA, then every thread arrives and waits and
// thread 0 passes the barrier to a TMA load. Nothing to report: no init
// fence is needed without a cluster, nor a proxy fence (PTX: TMA reaches
// its mbarrier through the generic proxy).
// RUN: %proxyfence %s 2>&1 | FileCheck %s
// CHECK-NOT: warning:
// CHECK: proxyfence: 0 findings in 1 file
#include <cuda.h>
#include <cstdint>

__device__ inline uint32_t smem(const void *p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__global__ void load_tile(const __grid_constant__ CUtensorMap tmap, float *out) {
  __shared__ alignas(128) float tile[64];
  __shared__ alignas(8) uint64_t bar;
  if (threadIdx.x == 0)
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;"
                 :: "r"(smem(&bar)), "r"(blockDim.x) : "memory");
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], 256;"
                 :: "r"(smem(&bar)) : "memory");
    asm volatile("cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2}], [%3];"
                 :: "r"(smem(tile)), "l"(&tmap), "r"(0), "r"(smem(&bar)) : "memory");
  }
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(smem(&bar)) : "memory");
  asm volatile("{\n\t.reg .pred p;\n\tWAIT:\n\t"
               "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\n\t"
               "@!p bra WAIT;\n\t}" :: "r"(smem(&bar)) : "memory");
  out[threadIdx.x] = tile[threadIdx.x % 64];
}
