// Warp-specialised: warp 1 retargets the tensor map and hands it to warp 0
// through an mbarrier; warp 0 waits and issues the TMA load. The writer
// releases, but the TMA warp does not acquire after its wait: one finding,
// at the TMA load of the other role, fixed with an acquire on the map. A
// second kernel forgets the writer's release before the hand-off.
// REQUIRES: nvcc
// RUN: cp %s %t.cu
// RUN: not %proxyfence %t.cu 2>&1 | FileCheck %s
// RUN: %proxyfence --fix --quiet %t.cu
// RUN: %proxyfence %t.cu 2>&1 | FileCheck --check-prefix=CLEAN %s
// RUN: %nvcc-sm90a -cubin -o /dev/null %t.cu
#include <cuda.h>
#include <cstdint>

__device__ inline uint32_t smem(const void *p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
__device__ inline void wait_bar(uint64_t *bar) {
  asm volatile("{\n\t.reg .pred p;\n\tWAIT_%=:\n\t"
               "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\n\t"
               "@!p bra WAIT_%=;\n\t}" :: "r"(smem(bar)) : "memory");
}
__device__ inline void retarget_map(CUtensorMap *map, const float *src) {
  asm volatile("tensormap.replace.tile.global_address.global.b1024.b64 [%0], %1;" :: "l"(map), "l"(src) : "memory");
}
__device__ inline void load_tile(float *dst, const CUtensorMap *tensor_map, uint64_t *bar) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 4096;" :: "r"(smem(bar)) : "memory");
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
               :: "r"(smem(dst)), "l"(tensor_map), "r"(0), "r"(0), "r"(smem(bar)) : "memory");
}

__global__ void released_not_acquired(CUtensorMap *maps, const float *const *sources, float *out) {
  __shared__ alignas(128) float tile[1024];
  __shared__ alignas(8) uint64_t ready, full;
  CUtensorMap *map = maps + blockIdx.x;
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem(&ready)) : "memory");
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem(&full)) : "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  }
  __syncthreads();
  if (threadIdx.x == 32) {
    retarget_map(map, sources[blockIdx.x]);
    asm volatile("fence.proxy.tensormap::generic.release.gpu;" ::: "memory");
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(smem(&ready)) : "memory");
  } else if (threadIdx.x == 0) {
    wait_bar(&ready);
    load_tile(tile, map, &full);
  }
  wait_bar(&full);
  out[blockIdx.x * 1024 + threadIdx.x] = tile[threadIdx.x];
}

__global__ void not_released(CUtensorMap *maps, const float *const *sources, float *out) {
  __shared__ alignas(128) float tile[1024];
  __shared__ alignas(8) uint64_t ready, full;
  CUtensorMap *map = maps + blockIdx.x;
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem(&ready)) : "memory");
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem(&full)) : "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  }
  __syncthreads();
  if (threadIdx.x == 32) {
    retarget_map(map, sources[blockIdx.x]);
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(smem(&ready)) : "memory");
  } else if (threadIdx.x == 0) {
    wait_bar(&ready);
    asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(map) : "memory");
    load_tile(tile, map, &full);
  }
  wait_bar(&full);
  out[blockIdx.x * 1024 + threadIdx.x] = tile[threadIdx.x];
}
// CHECK: roles.cu.tmp.cu:48:5: warning: the TMA load uses a tensor map that device code modifies, with no fence.proxy.tensormap::generic.acquire on the map before it [proxyfence-tensormap]
// CHECK: note: TMA load here, inside 'load_tile'
// CHECK: :48:5: note: insert 'asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(map) : "memory");' here
// CHECK: roles.cu.tmp.cu:66:5: warning: a tensor map modified by this thread is handed to other threads here with no fence.proxy.tensormap::generic.release after the write [proxyfence-tensormap]
// CHECK: note: the tensor map is modified here, inside 'retarget_map'
// CHECK: :65:5: note: inside 'retarget_map', called here
// CHECK: :65:44: note: insert 'asm volatile("fence.proxy.tensormap::generic.release.gpu;" ::: "memory");' here
// CHECK: proxyfence: 2 findings in 1 file

// CLEAN-NOT: warning:
// CLEAN: proxyfence: 0 findings in 1 file
