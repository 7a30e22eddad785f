// A minimal stand-in for the CUTLASS/CuTe headers the tests need: the fence
// wrapper and a TMA store copy atom, spelled as CUTLASS spells them.
#pragma once
#include <cstdint>

#define CUTLASS_DEVICE __forceinline__ __device__

namespace cutlass::arch {
CUTLASS_DEVICE void fence_view_async_shared() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}
} // namespace cutlass::arch

namespace cute {
struct SM90_TMA_STORE_2D {
  CUTLASS_DEVICE static void copy(void const *desc_ptr, void const *smem_ptr,
                                  int32_t const &crd0, int32_t const &crd1) {
    uint64_t gmem_int_desc = reinterpret_cast<uint64_t>(desc_ptr);
    uint32_t smem_int_ptr =
        static_cast<uint32_t>(__cvta_generic_to_shared(smem_ptr));
    asm volatile(
        "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];"
        :
        : "l"(gmem_int_desc), "r"(smem_int_ptr), "r"(crd0), "r"(crd1)
        : "memory");
  }
};

CUTLASS_DEVICE void tma_store_arrive() {
  asm volatile("cp.async.bulk.commit_group;");
}
} // namespace cute
