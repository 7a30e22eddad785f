// Plain C++ modifies tensor maps too: the block copies a prototype map into
// its own slot of a global array (a struct copy) and patches the global
// address in its bytes, then loads a tile through it. Those are generic-proxy
// writes of the map like tensormap.replace: patched has no release after them
// and no acquire before the TMA load (two findings; the fixed file is clean).
// staged edits a shared-memory copy with C++ stores and publishes it with
// tensormap.cp_fenceproxy (which releases), then acquires: no finding.
// REQUIRES: nvcc
// RUN: cp %s %t.cu
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

__device__ inline void load_tile(float *tile, const CUtensorMap *map, uint64_t *bar) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 4096;" :: "r"(smem(bar)) : "memory");
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
               :: "r"(smem(tile)), "l"(map), "r"(0), "r"(0), "r"(smem(bar)) : "memory");
}

__global__ void patched(CUtensorMap *maps, const __grid_constant__ CUtensorMap proto, const float *const *sources) {
  __shared__ alignas(128) float tile[32 * 32];
  __shared__ alignas(8) uint64_t full;
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem(&full)) : "memory");
    maps[blockIdx.x] = proto;
    reinterpret_cast<uint64_t *>(&maps[blockIdx.x])[1] = reinterpret_cast<uint64_t>(sources[blockIdx.x]);
    load_tile(tile, &maps[blockIdx.x], &full);
  }
}

__global__ void staged(CUtensorMap *maps, const __grid_constant__ CUtensorMap proto, const float *const *sources) {
  __shared__ alignas(128) float tile[32 * 32];
  __shared__ alignas(128) CUtensorMap edit;
  __shared__ alignas(8) uint64_t full;
  if (threadIdx.x < 32) {
    if (threadIdx.x == 0) {
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem(&full)) : "memory");
      edit = proto;
      edit.opaque[1] = reinterpret_cast<uint64_t>(sources[blockIdx.x]);
    }
    __syncwarp();
    asm volatile("tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%0], [%1], 128;"
                 :: "l"(&maps[blockIdx.x]), "r"(smem(&edit)) : "memory");
    if (threadIdx.x == 0) {
      asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(&maps[blockIdx.x]) : "memory");
      load_tile(tile, &maps[blockIdx.x], &full);
    }
  }
}
// CHECK: cxx-stores.cu.tmp.cu:35:5: warning: the TMA load reads a tensor map this thread modified, with no fence.proxy.tensormap::generic.release after the write: the tensormap proxy may see the old map [proxyfence-tensormap]
// CHECK: cxx-stores.cu.tmp.cu:34:5: note: the tensor map is modified here; the release fence goes after it
// CHECK: cxx-stores.cu.tmp.cu:34:106: note: insert 'asm volatile("fence.proxy.tensormap::generic.release.gpu;" ::: "memory");' here
// CHECK: cxx-stores.cu.tmp.cu:35:5: warning: the TMA load uses a tensor map that device code modifies, with no fence.proxy.tensormap::generic.acquire on the map before it [proxyfence-tensormap]
// CHECK: cxx-stores.cu.tmp.cu:35:5: note: insert 'asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(&maps[blockIdx.x]) : "memory");' here
// CHECK-NOT: warning:
// CHECK: proxyfence: 2 findings in 1 file

// FIXED:      reinterpret_cast<uint64_t *>(&maps[blockIdx.x])[1] = reinterpret_cast<uint64_t>(sources[blockIdx.x]);
// FIXED-NEXT: {{^    }}asm volatile("fence.proxy.tensormap::generic.release.gpu;" ::: "memory");
// FIXED-NEXT: {{^    }}asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(&maps[blockIdx.x]) : "memory");
// FIXED-NEXT: {{^    }}load_tile(tile, &maps[blockIdx.x], &full);

// CLEAN-NOT: warning:
// CLEAN: proxyfence: 0 findings in 1 file
