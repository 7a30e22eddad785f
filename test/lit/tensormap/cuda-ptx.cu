// Tensor-map modification in libcu++'s <cuda/ptx> spelling: thread 0
// retargets its block's map with tensormap_replace_global_address and loads
// a tile with cp_async_bulk_tensor. retarget has neither fence: the release
// (fence_proxy_tensormap_generic(sem_release, ...)) goes after the write, the
// acquire (its sem_acquire form, on the map, 128 bytes) before the load, both
// spelled cuda::ptx as the file spells its PTX (the fixed file is clean);
// copy_fenced copies a map edited in shared memory to global memory with
// tensormap_cp_fenceproxy (which releases) and acquires: no finding.
// REQUIRES: nvcc
// RUN: cp %s %t.cu
// RUN: not %proxyfence %t.cu 2>&1 | FileCheck %s
// RUN: %proxyfence --fix --quiet %t.cu
// RUN: FileCheck --check-prefix=FIXED --input-file=%t.cu %s
// RUN: %proxyfence %t.cu 2>&1 | FileCheck --check-prefix=CLEAN %s
// RUN: %nvcc-sm90a -cubin -o /dev/null %t.cu
#include <cuda.h>
#include <cuda/ptx>
#include <cstdint>

namespace ptx = cuda::ptx;

__global__ void retarget(CUtensorMap *maps, const float *const *sources) {
  __shared__ alignas(128) float tile[32 * 32];
  __shared__ alignas(8) uint64_t full;
  CUtensorMap *map = &maps[blockIdx.x];
  if (threadIdx.x == 0) {
    ptx::mbarrier_init(&full, 1);
    ptx::tensormap_replace_global_address(ptx::space_global, map, reinterpret_cast<uint64_t>(sources[blockIdx.x]));
    int32_t coords[2] = {0, 0};
    ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, tile, map, coords, &full);
  }
}

__global__ void copy_fenced(CUtensorMap *maps, const __grid_constant__ CUtensorMap proto, const float *const *sources) {
  __shared__ alignas(128) float tile[32 * 32];
  __shared__ alignas(128) CUtensorMap staged;
  __shared__ alignas(8) uint64_t full;
  CUtensorMap *map = &maps[blockIdx.x];
  if (threadIdx.x < 32) {
    if (threadIdx.x == 0) {
      ptx::mbarrier_init(&full, 1);
      staged = proto;
    }
    __syncwarp();
    ptx::tensormap_cp_fenceproxy(ptx::sem_release, ptx::scope_gpu, map, &staged, ptx::n32_t<128>{});
    if (threadIdx.x == 0) {
      ptx::fence_proxy_tensormap_generic(ptx::sem_acquire, ptx::scope_gpu, map, ptx::n32_t<128>{});
      int32_t coords[2] = {0, 0};
      ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, tile, map, coords, &full);
    }
  }
}
// CHECK: cuda-ptx.cu.tmp.cu:30:5: warning: the TMA load reads a tensor map this thread modified, with no fence.proxy.tensormap::generic.release after the write: the tensormap proxy may see the old map [proxyfence-tensormap]
// CHECK: cuda-ptx.cu.tmp.cu:28:5: note: inside 'tensormap_replace_global_address', called here
// CHECK: cuda-ptx.cu.tmp.cu:28:116: note: insert 'cuda::ptx::fence_proxy_tensormap_generic(cuda::ptx::sem_release, cuda::ptx::scope_gpu);' here
// CHECK: cuda-ptx.cu.tmp.cu:30:5: warning: the TMA load uses a tensor map that device code modifies, with no fence.proxy.tensormap::generic.acquire on the map before it [proxyfence-tensormap]
// CHECK: cuda-ptx.cu.tmp.cu:30:5: note: insert 'cuda::ptx::fence_proxy_tensormap_generic(cuda::ptx::sem_acquire, cuda::ptx::scope_gpu, map, cuda::ptx::n32_t<128>{});' here
// CHECK-NOT: warning:
// CHECK: proxyfence: 2 findings in 1 file

// FIXED:      ptx::tensormap_replace_global_address(
// FIXED-NEXT: {{^    }}cuda::ptx::fence_proxy_tensormap_generic(cuda::ptx::sem_release, cuda::ptx::scope_gpu);
// FIXED-NEXT: {{^    }}int32_t coords[2] = {0, 0};
// FIXED-NEXT: {{^    }}cuda::ptx::fence_proxy_tensormap_generic(cuda::ptx::sem_acquire, cuda::ptx::scope_gpu, map, cuda::ptx::n32_t<128>{});
// FIXED-NEXT: {{^    }}ptx::cp_async_bulk_tensor(

// CLEAN-NOT: warning:
// CLEAN: proxyfence: 0 findings in 1 file
