// --mbarrier-init-proxy-fence=require: a fence.proxy.async.shared::cta must
// lie between an mbarrier's init and its first async-proxy use, as older
// CUDA Programming Guide TMA examples do. Off by default: PTX says TMA
// reaches its mbarrier through the generic proxy.
// RUN: cp %s %t.cu
// RUN: %proxyfence %t.cu 2>&1 | FileCheck --check-prefix=DEFAULT %s
// RUN: not %proxyfence --mbarrier-init-proxy-fence=require %t.cu 2>&1 | FileCheck %s
// RUN: %proxyfence --mbarrier-init-proxy-fence=require --fix --quiet %t.cu
// RUN: FileCheck --check-prefix=FIXED --input-file=%t.cu %s
// RUN: %proxyfence --mbarrier-init-proxy-fence=require %t.cu 2>&1 | FileCheck --check-prefix=DEFAULT %s
// RUN: %nvcc-sm90a -cubin -o /dev/null %t.cu
// RUN: not %proxyfence --mbarrier-init-proxy-fence=maybe %t.cu 2>&1 | FileCheck --check-prefix=BAD %s
#include <cuda.h>
#include <cstdint>

__device__ inline uint32_t smem(const void *p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__global__ void load_tile(const __grid_constant__ CUtensorMap tmap, float *out) {
  __shared__ alignas(128) float tile[64];
  __shared__ alignas(8) uint64_t bar;
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem(&bar)) : "memory");
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 256;"
                 :: "r"(smem(&bar)) : "memory");
    asm volatile("cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2}], [%3];"
                 :: "r"(smem(tile)), "l"(&tmap), "r"(0), "r"(smem(&bar)) : "memory");
  }
  asm volatile("{\n\t.reg .pred p;\n\tWAIT:\n\t"
               "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\n\t"
               "@!p bra WAIT;\n\t}" :: "r"(smem(&bar)) : "memory");
  out[threadIdx.x] = tile[threadIdx.x % 64];
}
// DEFAULT-NOT: warning:
// DEFAULT: proxyfence: 0 findings in 1 file

// CHECK: strict-proxy-fence.cu.tmp.cu:24:5: warning: mbarrier 'bar' is used by the async proxy with no fence.proxy.async.shared::cta after its initialisation (required by --mbarrier-init-proxy-fence=require) [proxyfence-mbarrier-init]
// CHECK: :30:5: note: used by the async proxy here (TMA load)
// CHECK: :24:90: note: insert 'asm volatile("fence.proxy.async.shared::cta;" ::: "memory");' here
// CHECK: proxyfence: 1 finding in 1 file

// FIXED:      {{^    }}asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem(&bar)) : "memory");
// FIXED-NEXT: {{^    }}asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
// FIXED-NEXT: {{^  [}]$}}

// BAD: proxyfence: error: unknown --mbarrier-init-proxy-fence 'maybe' (expected off or require)
