// A minimal stand-in for the CuTe/CUTLASS tensor-map helpers the tensormap
// tests need, spelled as CuTe spells them (cute/arch/copy_sm90_desc.hpp:
// tma_descriptor_replace_addr_in_global_mem/_in_shared_mem,
// tma_descriptor_cp_fence_release, tma_descriptor_fence_release/_acquire;
// cute/arch/copy_sm90_tma.hpp: one TMA load atom), and a grouped-GEMM
// mainloop whose tensormaps_* members wrap them the way CUTLASS's ptr-array
// collectives do. The asm is gated as CuTe gates it (mini_cutlass_config.h).
#pragma once
#include <cuda.h>
#include <cstdint>
#include "mini_cutlass_config.h"

#if defined(CUTE_ARCH_TMA_SM90_ENABLED)
#define CUTE_ARCH_DEVICE_MODIFIABLE_TMA_SM90_ENABLED
#endif

namespace cute {
using TmaDescriptor = CUtensorMap;

CUTE_DEVICE uint32_t cast_smem_ptr_to_uint(void const *const ptr) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(ptr));
}

CUTE_DEVICE void tma_descriptor_replace_addr_in_global_mem(TmaDescriptor const *desc_ptr, void const *const new_tensor_ptr) {
#if defined(CUTE_ARCH_DEVICE_MODIFIABLE_TMA_SM90_ENABLED)
  asm volatile("tensormap.replace.tile.global_address.global.b1024.b64 [%0], %1;"
               :: "l"(reinterpret_cast<uint64_t>(desc_ptr)), "l"(reinterpret_cast<uint64_t>(new_tensor_ptr)));
#else
  CUTE_INVALID_CONTROL_PATH("no modifiable TMA");
#endif
}

CUTE_DEVICE void tma_descriptor_replace_addr_in_shared_mem(TmaDescriptor &smem_desc, void const *const new_tensor_ptr) {
#if defined(CUTE_ARCH_DEVICE_MODIFIABLE_TMA_SM90_ENABLED)
  asm volatile("tensormap.replace.tile.global_address.shared::cta.b1024.b64 [%0], %1;"
               :: "r"(cast_smem_ptr_to_uint(&smem_desc)), "l"(reinterpret_cast<uint64_t>(new_tensor_ptr)));
#else
  CUTE_INVALID_CONTROL_PATH("no modifiable TMA");
#endif
}

// Copies the shared-memory map to global memory and releases it; a whole
// warp executes it.
CUTE_DEVICE void tma_descriptor_cp_fence_release(TmaDescriptor const *gmem_desc_ptr, TmaDescriptor &smem_desc) {
#if defined(CUTE_ARCH_DEVICE_MODIFIABLE_TMA_SM90_ENABLED)
  asm volatile("tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%0], [%1], 128;"
               :: "l"(reinterpret_cast<uint64_t>(gmem_desc_ptr)), "r"(cast_smem_ptr_to_uint(&smem_desc)));
#else
  CUTE_INVALID_CONTROL_PATH("no modifiable TMA");
#endif
}

CUTE_DEVICE void tma_descriptor_fence_release() {
#if defined(CUTE_ARCH_DEVICE_MODIFIABLE_TMA_SM90_ENABLED)
  asm volatile("fence.proxy.tensormap::generic.release.gpu;");
#else
  CUTE_INVALID_CONTROL_PATH("no modifiable TMA");
#endif
}

CUTE_DEVICE void tma_descriptor_fence_acquire(TmaDescriptor const *desc_ptr) {
#if defined(CUTE_ARCH_DEVICE_MODIFIABLE_TMA_SM90_ENABLED)
  asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;"
               :: "l"(reinterpret_cast<uint64_t>(desc_ptr)) : "memory");
#else
  CUTE_INVALID_CONTROL_PATH("no modifiable TMA");
#endif
}

struct SM90_TMA_LOAD_2D {
  CUTE_DEVICE static void copy(void const *desc_ptr, uint64_t *mbar_ptr, void *smem_ptr, int32_t const &crd0, int32_t const &crd1) {
#if defined(CUTE_ARCH_TMA_SM90_ENABLED)
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], [%2];"
                 :: "r"(cast_smem_ptr_to_uint(smem_ptr)), "l"(reinterpret_cast<uint64_t>(desc_ptr)),
                    "r"(cast_smem_ptr_to_uint(mbar_ptr)), "r"(crd0), "r"(crd1) : "memory");
#else
    CUTE_INVALID_CONTROL_PATH("no TMA");
#endif
  }
};
} // namespace cute

// Per-group tensor maps of a grouped GEMM: edited in shared memory, copied
// to the CTA's global workspace slot, acquired before the loads.
struct GroupedMainloop {
  CUTLASS_DEVICE void tensormaps_replace_global_address(cute::TmaDescriptor &smem_tensormap, void const *ptr_A) {
    cute::tma_descriptor_replace_addr_in_shared_mem(smem_tensormap, ptr_A);
  }
  // The entire warp calls this (the copy is .sync.aligned).
  CUTLASS_DEVICE void tensormaps_cp_fence_release(cute::TmaDescriptor &smem_tensormap, cute::TmaDescriptor const *gmem_tensormap) {
    cute::tma_descriptor_cp_fence_release(gmem_tensormap, smem_tensormap);
  }
  CUTLASS_DEVICE void tensormaps_fence_acquire(cute::TmaDescriptor const *gmem_tensormap) {
    cute::tma_descriptor_fence_acquire(gmem_tensormap);
  }
};
