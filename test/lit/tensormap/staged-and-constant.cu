// DeepGEMM's grouped GEMMs stage a tensor map in shared memory, retarget it
// there with tensormap.replace.shared::cta, copy it to a global map with a
// plain struct copy, release, acquire, and load with it; the other loads use
// `const __grid_constant__` maps. TMA reads tensor maps only from the param,
// const and global state spaces (PTX ISA, cp.async.bulk.tensor), so the
// writes to the staged map are not what TMA sees: the copy to global is, and
// it is released (on the path that skips the retarget, only the staged map
// was written). A __grid_constant__ map is never modified, so its loads
// need no acquire even in a kernel that modifies another map. Without the
// release after the copy (`unreleased`) the global map's load is reported,
// and the constant map's load still is not.
// REQUIRES: nvcc
// RUN: cp %s %t.cu
// RUN: not %proxyfence %t.cu 2>&1 | FileCheck %s
// RUN: %nvcc-sm90a -cubin -o /dev/null %t.cu
#include <cuda.h>
#include <cstdint>

__device__ inline uint32_t smem(const void *p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
__device__ inline void load(float *dst, const CUtensorMap *map, uint64_t *bar) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
               :: "r"(smem(dst)), "l"(map), "r"(0), "r"(0), "r"(smem(bar)) : "memory");
}
__device__ inline void retarget_staged(CUtensorMap *staged, const float *src) {
  asm volatile("tensormap.replace.tile.global_address.shared::cta.b1024.b64 [%0], %1;"
               :: "r"(smem(staged)), "l"(src) : "memory");
}

__global__ void staged(CUtensorMap *maps, const __grid_constant__ CUtensorMap proto,
                       const __grid_constant__ CUtensorMap fixed, const float *src) {
  __shared__ alignas(128) float tile[2][32 * 32];
  __shared__ alignas(128) CUtensorMap stage;
  __shared__ alignas(8) uint64_t full;
  CUtensorMap *map = maps + blockIdx.x;
  if (threadIdx.x == 0) {
    stage = proto;
    if (src) {
      retarget_staged(&stage, src);
      *map = stage;
      asm volatile("fence.proxy.tensormap::generic.release.gpu;" ::: "memory");
    }
    asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(map) : "memory");
    load(tile[0], map, &full);
    load(tile[1], &fixed, &full);
  }
}

__global__ void unreleased(CUtensorMap *maps, const __grid_constant__ CUtensorMap proto,
                           const __grid_constant__ CUtensorMap fixed, const float *src) {
  __shared__ alignas(128) float tile[2][32 * 32];
  __shared__ alignas(128) CUtensorMap stage;
  __shared__ alignas(8) uint64_t full;
  CUtensorMap *map = maps + blockIdx.x;
  if (threadIdx.x == 0) {
    stage = proto;
    retarget_staged(&stage, src);
    *map = stage;
    asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(map) : "memory");
    load(tile[0], map, &full);
    load(tile[1], &fixed, &full);
  }
}
// CHECK: staged-and-constant.cu.tmp.cu:[[@LINE-4]]:5: warning: the TMA load reads a tensor map this thread modified, with no fence.proxy.tensormap::generic.release after the write
// CHECK: :[[@LINE-7]]:5: note: the tensor map is modified here; the release fence goes after it
// CHECK-NOT: warning:
// CHECK: proxyfence: 1 finding in 1 file
