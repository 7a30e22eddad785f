// DeepGEMM's grouped GEMM: the TMA thread retargets the tensor maps in
// global memory itself, releases, acquires them at once, and then runs its
// pipeline, waiting on the empty barriers before each load. Those waits
// hand it nothing about the maps it wrote: the one acquire after its last
// write covers every load (kernel `grouped`). Kernel `rewritten` writes the
// map again after acquiring: the loads after that write need a new acquire.
// Kernel `handed` receives the map from another thread through the CTA
// barrier and must acquire after it.
// RUN: not %proxyfence %s 2>&1 | FileCheck %s
// RUN: %nvcc-sm90a -cubin -o /dev/null %s
#include <cuda.h>
#include <cstdint>

__device__ inline uint32_t smem(const void *p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
__device__ inline void retarget(CUtensorMap *map, const float *src) {
  asm volatile("tensormap.replace.tile.global_address.global.b1024.b64 [%0], %1;"
               :: "l"(map), "l"(src) : "memory");
}
__device__ inline void release() {
  asm volatile("fence.proxy.tensormap::generic.release.gpu;" ::: "memory");
}
__device__ inline void acquire(const CUtensorMap *map) {
  asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;"
               :: "l"(map) : "memory");
}
__device__ inline void wait(uint64_t *bar, uint32_t phase) {
  asm volatile("{\n\t.reg .pred p;\n\tWAIT_%=:\n\t"
               "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n\t"
               "@!p bra WAIT_%=;\n\t}" :: "r"(smem(bar)), "r"(phase) : "memory");
}
__device__ inline void load(float *dst, const CUtensorMap *map, uint64_t *bar) {
  asm volatile("cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2}], [%3];"
               :: "r"(smem(dst)), "l"(map), "r"(0), "r"(smem(bar)) : "memory");
}

__global__ void grouped(CUtensorMap *map, const float *const *groups,
                        int num_groups, int num_k) {
  __shared__ alignas(128) float tile[2][1024];
  __shared__ alignas(8) uint64_t full[2], empty[2];
  if (threadIdx.x == 0) {
    int it = 0;
    for (int g = 0; g < num_groups; ++g) {
      retarget(map, groups[g]);
      release();
      acquire(map);
      for (int k = 0; k < num_k; ++k, ++it) {
        wait(&empty[it % 2], (it / 2) & 1);
        load(tile[it % 2], map, &full[it % 2]);
      }
    }
  }
}

__global__ void rewritten(CUtensorMap *map, const float *a, const float *b) {
  __shared__ alignas(128) float tile[1024];
  __shared__ alignas(8) uint64_t full, empty;
  if (threadIdx.x == 0) {
    retarget(map, a);
    release();
    acquire(map);
    wait(&empty, 0);
    load(tile, map, &full);
    retarget(map, b);
    release();
    wait(&empty, 1);
    load(tile, map, &full);
    // CHECK: .cu:[[#@LINE-1]]:5: warning: the TMA load uses a tensor map that device code modifies, with no fence.proxy.tensormap::generic.acquire on the map before it [proxyfence-tensormap]
  }
}

__global__ void handed(CUtensorMap *map, const float *a) {
  __shared__ alignas(128) float tile[1024];
  __shared__ alignas(8) uint64_t full;
  if (threadIdx.x == 0) {
    retarget(map, a);
    release();
  }
  __syncthreads();
  if (threadIdx.x == 32)
    load(tile, map, &full);
  // CHECK: .cu:[[#@LINE-1]]:5: warning: the TMA load uses a tensor map that device code modifies, with no fence.proxy.tensormap::generic.acquire on the map before it [proxyfence-tensormap]
}

// CHECK-NOT: warning:
// CHECK: proxyfence: 2 findings in 1 file
