// A minimal stand-in for the CUTLASS/CuTe headers the tests need: the fence
// wrapper and a TMA store copy atom, spelled as CUTLASS spells them.
// The bodies are gated as CUTLASS gates them (mini_cutlass_config.h).
#pragma once
#include <cstdint>
#include "mini_cutlass_config.h"

namespace cutlass::arch {
CUTLASS_DEVICE void fence_view_async_shared() {
#if CUDA_BARRIER_ENABLED
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#endif
}
} // namespace cutlass::arch

namespace cute {
struct SM90_TMA_STORE_2D {
  CUTLASS_DEVICE static void copy(void const *desc_ptr, void const *smem_ptr,
                                  int32_t const &crd0, int32_t const &crd1) {
#if defined(CUTE_ARCH_TMA_SM90_ENABLED)
    uint64_t gmem_int_desc = reinterpret_cast<uint64_t>(desc_ptr);
    uint32_t smem_int_ptr =
        static_cast<uint32_t>(__cvta_generic_to_shared(smem_ptr));
    asm volatile(
        "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];"
        :
        : "l"(gmem_int_desc), "r"(smem_int_ptr), "r"(crd0), "r"(crd1)
        : "memory");
#else
    CUTE_INVALID_CONTROL_PATH("Trying to use tma without CUTE_ARCH_TMA_SM90_ENABLED.");
#endif
  }
};

CUTLASS_DEVICE void tma_store_arrive() {
#if defined(CUTE_ARCH_TMA_SM90_ENABLED)
  asm volatile("cp.async.bulk.commit_group;");
#else
  CUTE_INVALID_CONTROL_PATH("Trying to use tma without CUTE_ARCH_TMA_SM90_ENABLED.");
#endif
}
} // namespace cute
