// A tensor map retargeted with tensormap.replace and then used by a TMA
// load in the same thread, with neither fence: the writer needs
// fence.proxy.tensormap::generic.release after the write, the TMA issuer
// fence.proxy.tensormap::generic.acquire on the map before the load.
// REQUIRES: nvcc
// RUN: cp %s %t.cu
// RUN: %proxyfence --disable=proxyfence-tensormap %t.cu 2>&1 | FileCheck --check-prefix=CLEAN %s
// RUN: not %proxyfence %t.cu 2>&1 | FileCheck %s
// RUN: %proxyfence --fix --quiet %t.cu
// RUN: FileCheck --check-prefix=FIXED --input-file=%t.cu %s
// RUN: %proxyfence %t.cu 2>&1 | FileCheck --check-prefix=CLEAN %s
// RUN: %nvcc-sm90a -cubin -o /dev/null %t.cu
#include <cuda.h>
#include <cstdint>

__device__ inline uint32_t smem(const void *p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__global__ void retarget(CUtensorMap *maps, const float *const *sources, float *out) {
  __shared__ alignas(128) float tile[32][32];
  __shared__ alignas(8) uint64_t full;
  CUtensorMap *map = maps + blockIdx.x;
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem(&full)) : "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("tensormap.replace.tile.global_address.global.b1024.b64 [%0], %1;" :: "l"(map), "l"(sources[blockIdx.x]) : "memory");
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 4096;" :: "r"(smem(&full)) : "memory");
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                 :: "r"(smem(&tile[0][0])), "l"(map), "r"(0), "r"(0), "r"(smem(&full)) : "memory");
  }
  asm volatile("{\n\t.reg .pred p;\n\tWAIT_%=:\n\t"
               "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\n\t"
               "@!p bra WAIT_%=;\n\t}" :: "r"(smem(&full)) : "memory");
  out[blockIdx.x * 1024 + threadIdx.x] = tile[threadIdx.x / 32][threadIdx.x % 32];
}
// CHECK: raw-ptx.cu.tmp.cu:32:5: warning: the TMA load reads a tensor map this thread modified, with no fence.proxy.tensormap::generic.release after the write: the tensormap proxy may see the old map [proxyfence-tensormap]
// CHECK: :30:5: note: the tensor map is modified here; the release fence goes after it
// CHECK: :30:135: note: insert 'asm volatile("fence.proxy.tensormap::generic.release.gpu;" ::: "memory");' here
// CHECK: raw-ptx.cu.tmp.cu:32:5: warning: the TMA load uses a tensor map that device code modifies, with no fence.proxy.tensormap::generic.acquire on the map before it [proxyfence-tensormap]
// CHECK: :32:5: note: insert 'asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(map) : "memory");' here
// CHECK: proxyfence: 2 findings in 1 file

// FIXED:      {{^    }}asm volatile("tensormap.replace.tile.global_address.global.b1024.b64
// FIXED-NEXT: {{^    }}asm volatile("fence.proxy.tensormap::generic.release.gpu;" ::: "memory");
// FIXED-NEXT: {{^    }}asm volatile("mbarrier.arrive.expect_tx
// FIXED-NEXT: {{^    }}asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(map) : "memory");
// FIXED-NEXT: {{^    }}asm volatile("cp.async.bulk.tensor.2d

// CLEAN-NOT: warning:
// CLEAN: proxyfence: 0 findings in 1 file
