// Tensor-map modification in CuTe/CUTLASS spellings. grouped: the producer
// warp edits its group's map in shared memory, publishes it with the
// mainloop's tensormaps_cp_fence_release (tensormap.cp_fenceproxy, which
// releases), waits for the copy, and loads; it never acquires the map
// (tensormaps_fence_acquire): one finding, fixed with
// cute::tma_descriptor_fence_acquire on the map, as the file spells CuTe.
// in_place: retargets the global map directly and loads with neither
// fence: the release (cute::tma_descriptor_fence_release()) and the acquire.
// grouped_fenced acquires through the mainloop's member: no finding.
// REQUIRES: nvcc
// RUN: cp %s %t.cu
// RUN: not %proxyfence %t.cu -- -I%S/Inputs 2>&1 | FileCheck %s
// RUN: %proxyfence --fix --quiet %t.cu -- -I%S/Inputs
// RUN: FileCheck --check-prefix=FIXED --input-file=%t.cu %s
// RUN: %proxyfence %t.cu -- -I%S/Inputs 2>&1 | FileCheck --check-prefix=CLEAN %s
// RUN: %nvcc-sm90a -I%S/Inputs -cubin -o /dev/null %t.cu
#include "mini_cute_tensormap.h"

__device__ inline void init_bar(uint64_t *bar) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(cute::cast_smem_ptr_to_uint(bar)) : "memory");
}

__global__ void grouped(cute::TmaDescriptor *workspace, const __grid_constant__ CUtensorMap proto, const float *const *groups, int num_groups) {
  __shared__ alignas(128) float tile[32 * 32];
  __shared__ alignas(128) cute::TmaDescriptor smem_tensormap;
  __shared__ alignas(8) uint64_t full;
  GroupedMainloop mainloop;
  cute::TmaDescriptor *gmem_tensormap = &workspace[blockIdx.x];
  if (threadIdx.x / 32 == 0) {
    if (threadIdx.x == 0) {
      init_bar(&full);
      smem_tensormap = proto;
    }
    __syncwarp();
    for (int g = 0; g < num_groups; ++g) {
      if (threadIdx.x == 0)
        mainloop.tensormaps_replace_global_address(smem_tensormap, groups[g]);
      __syncwarp();
      mainloop.tensormaps_cp_fence_release(smem_tensormap, gmem_tensormap);
      if (threadIdx.x == 0)
        cute::SM90_TMA_LOAD_2D::copy(gmem_tensormap, &full, tile, 0, 0);
    }
  }
}

__global__ void grouped_fenced(cute::TmaDescriptor *workspace, const __grid_constant__ CUtensorMap proto, const float *const *groups, int num_groups) {
  __shared__ alignas(128) float tile[32 * 32];
  __shared__ alignas(128) cute::TmaDescriptor smem_tensormap;
  __shared__ alignas(8) uint64_t full;
  GroupedMainloop mainloop;
  cute::TmaDescriptor *gmem_tensormap = &workspace[blockIdx.x];
  if (threadIdx.x / 32 == 0) {
    if (threadIdx.x == 0) {
      init_bar(&full);
      smem_tensormap = proto;
    }
    __syncwarp();
    for (int g = 0; g < num_groups; ++g) {
      if (threadIdx.x == 0)
        mainloop.tensormaps_replace_global_address(smem_tensormap, groups[g]);
      __syncwarp();
      mainloop.tensormaps_cp_fence_release(smem_tensormap, gmem_tensormap);
      mainloop.tensormaps_fence_acquire(gmem_tensormap);
      if (threadIdx.x == 0)
        cute::SM90_TMA_LOAD_2D::copy(gmem_tensormap, &full, tile, 0, 0);
    }
  }
}

__global__ void in_place(cute::TmaDescriptor *maps, const float *const *sources) {
  __shared__ alignas(128) float tile[32 * 32];
  __shared__ alignas(8) uint64_t full;
  cute::TmaDescriptor *map = &maps[blockIdx.x];
  if (threadIdx.x == 0) {
    init_bar(&full);
    cute::tma_descriptor_replace_addr_in_global_mem(map, sources[blockIdx.x]);
    cute::SM90_TMA_LOAD_2D::copy(map, &full, tile, 0, 0);
  }
}
// CHECK: cutlass.cu.tmp.cu:41:9: warning: the TMA load uses a tensor map that device code modifies, with no fence.proxy.tensormap::generic.acquire on the map before it [proxyfence-tensormap]
// CHECK: cutlass.cu.tmp.cu:41:9: note: insert 'cute::tma_descriptor_fence_acquire(gmem_tensormap);' here
// CHECK: cutlass.cu.tmp.cu:77:5: warning: the TMA load reads a tensor map this thread modified, with no fence.proxy.tensormap::generic.release after the write: the tensormap proxy may see the old map [proxyfence-tensormap]
// CHECK: cutlass.cu.tmp.cu:76:5: note: inside 'tma_descriptor_replace_addr_in_global_mem', called here
// CHECK: cutlass.cu.tmp.cu:76:79: note: insert 'cute::tma_descriptor_fence_release();' here
// CHECK: cutlass.cu.tmp.cu:77:5: warning: the TMA load uses a tensor map that device code modifies, with no fence.proxy.tensormap::generic.acquire on the map before it [proxyfence-tensormap]
// CHECK: cutlass.cu.tmp.cu:77:5: note: insert 'cute::tma_descriptor_fence_acquire(map);' here
// CHECK-NOT: warning:
// CHECK: proxyfence: 3 findings in 1 file

// FIXED:      {{^        }}{ cute::tma_descriptor_fence_acquire(gmem_tensormap); cute::SM90_TMA_LOAD_2D::copy(gmem_tensormap, &full, tile, 0, 0); }
// FIXED:      {{^    }}cute::tma_descriptor_replace_addr_in_global_mem(map, sources[blockIdx.x]);
// FIXED-NEXT: {{^    }}cute::tma_descriptor_fence_release();
// FIXED-NEXT: {{^    }}cute::tma_descriptor_fence_acquire(map);
// FIXED-NEXT: {{^    }}cute::SM90_TMA_LOAD_2D::copy(map, &full, tile, 0, 0);

// CLEAN-NOT: warning:
// CLEAN: proxyfence: 0 findings in 1 file
