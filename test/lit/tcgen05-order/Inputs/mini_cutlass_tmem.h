// A minimal stand-in for the CUTLASS/CuTe tensor-memory helpers the
// tcgen05-order tests need, spelled as CUTLASS spells them
// (cute/arch/tmem_allocator_sm100.hpp: TMEM::Allocator1Sm/Allocator2Sm;
// cutlass/arch/barrier.h: umma_arrive*, fence_view_async_tmem_load/store;
// cute/arch/copy_sm100.hpp: a TMEM load and a TMEM store atom; cute/arch/mma_sm100_umma.hpp:
// one UMMA atom). The asm is gated as CUTLASS gates it
// (mini_cutlass_config.h): on nvcc's SM100 feature macros.
#pragma once
#include <cstdint>
#include "mini_cutlass_barrier.h"

#if defined(CUTLASS_ARCH_MMA_SM100A_ENABLED) || defined(CUTLASS_ARCH_MMA_SM100F_ENABLED)
#define CUTLASS_ARCH_TCGEN_ENABLED 1
#endif

namespace cute {
CUTE_DEVICE uint32_t elect_one_sync() {
  uint32_t pred = 0;
  asm volatile("{\n\t.reg .pred P;\n\telect.sync _|P, %1;\n\tselp.b32 %0, 1, 0, P;\n\t}"
               : "=r"(pred) : "r"(0xffffffffu));
  return pred;
}

namespace TMEM {
// One warp allocates, relinquishes and frees; CTA pair: both CTAs' warps.
class Allocator1Sm {
public:
  static constexpr int Sm100TmemCapacityColumns = 512;
  CUTE_DEVICE void allocate(int num_columns, uint32_t *dst_ptr) {
#if defined(CUTE_ARCH_TCGEN05_TMEM_ENABLED)
    asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], %1;"
                 :: "r"(cast_smem_ptr_to_uint(dst_ptr)), "r"(num_columns));
#else
    CUTE_INVALID_CONTROL_PATH("no TMEM");
#endif
  }
  CUTE_DEVICE void release_allocation_lock() {
#if defined(CUTE_ARCH_TCGEN05_TMEM_ENABLED)
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" ::);
#else
    CUTE_INVALID_CONTROL_PATH("no TMEM");
#endif
  }
  CUTE_DEVICE void free(uint32_t tmem_ptr, int num_columns) {
#if defined(CUTE_ARCH_TCGEN05_TMEM_ENABLED)
    asm volatile("{\n\ttcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, %1;\n\t}"
                 :: "r"(tmem_ptr), "r"(num_columns));
#else
    CUTE_INVALID_CONTROL_PATH("no TMEM");
#endif
  }
};

class Allocator2Sm {
public:
  static constexpr int Sm100TmemCapacityColumns = 512;
  CUTE_DEVICE void allocate(int num_columns, uint32_t *dst_ptr) {
#if defined(CUTE_ARCH_TCGEN05_TMEM_ENABLED)
    asm volatile("tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [%0], %1;"
                 :: "r"(cast_smem_ptr_to_uint(dst_ptr)), "r"(num_columns));
#else
    CUTE_INVALID_CONTROL_PATH("no TMEM");
#endif
  }
  CUTE_DEVICE void release_allocation_lock() {
#if defined(CUTE_ARCH_TCGEN05_TMEM_ENABLED)
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned;" ::);
#else
    CUTE_INVALID_CONTROL_PATH("no TMEM");
#endif
  }
  CUTE_DEVICE void free(uint32_t tmem_ptr, int num_columns) {
#if defined(CUTE_ARCH_TCGEN05_TMEM_ENABLED)
    asm volatile("{\n\ttcgen05.dealloc.cta_group::2.sync.aligned.b32 %0, %1;\n\t}"
                 :: "r"(tmem_ptr), "r"(num_columns));
#else
    CUTE_INVALID_CONTROL_PATH("no TMEM");
#endif
  }
};
} // namespace TMEM

// 32 lanes x 32 bits, one column: one register per thread.
struct SM100_TMEM_LOAD_32dp32b1x {
  CUTE_DEVICE static void copy(uint32_t const &src_addr, uint32_t &dst0) {
#if defined(CUTE_ARCH_TCGEN05_TMEM_ENABLED)
    asm volatile("tcgen05.ld.sync.aligned.32x32b.x1.b32 {%0}, [%1];\n"
                 : "=r"(dst0) : "r"(src_addr));
#else
    CUTE_INVALID_CONTROL_PATH("no TMEM");
#endif
  }
};

// The other direction: one register per thread into 32 lanes, one column.
struct SM100_TMEM_STORE_32dp32b1x {
  CUTE_DEVICE static void copy(uint32_t const &src0, uint32_t const &dst_addr) {
#if defined(CUTE_ARCH_TCGEN05_TMEM_ENABLED)
    asm volatile("tcgen05.st.sync.aligned.32x32b.x1.b32 [%0], {%1};\n"
                 :: "r"(dst_addr), "r"(src0));
#else
    CUTE_INVALID_CONTROL_PATH("no TMEM");
#endif
  }
};

// D in tensor memory, A and B from shared-memory descriptors; one elected
// thread of the calling warp issues it.
struct SM100_MMA_F16BF16_SS {
  CUTE_DEVICE static void fma(uint64_t const &desc_a, uint64_t const &desc_b,
                              uint32_t const &tmem_c, uint32_t const &scale_c,
                              uint64_t const &idesc) {
#if defined(CUTE_ARCH_TCGEN05_TMEM_ENABLED)
    if (cute::elect_one_sync()) {
      uint32_t mask[4] = {0, 0, 0, 0};
      asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %4, 0;\n\t"
                   "tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, {%5, %6, %7, %8}, p; \n\t}\n"
                   :: "r"(tmem_c), "l"(desc_a), "l"(desc_b), "r"(uint32_t(idesc >> 32)),
                      "r"(scale_c), "r"(mask[0]), "r"(mask[1]), "r"(mask[2]), "r"(mask[3]));
    }
#else
    CUTE_INVALID_CONTROL_PATH("no UMMA");
#endif
  }
};
} // namespace cute

namespace cutlass::arch {
// tcgen05.commit of this thread's MMAs to an mbarrier of this CTA.
CUTLASS_DEVICE void umma_arrive(uint64_t const *smem_ptr) {
#if defined(CUTLASS_ARCH_TCGEN_ENABLED)
  uint32_t bar_intptr = cute::cast_smem_ptr_to_uint(smem_ptr);
  if (cute::elect_one_sync()) {
    asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];"
                 :: "r"(bar_intptr) : "memory");
  }
#endif
}
// The CTA pair's MMAs, committed to the same mbarrier offset in both CTAs.
CUTLASS_DEVICE void umma_arrive_multicast_2x1SM(uint64_t const *smem_ptr, uint16_t cta_mask) {
#if defined(CUTLASS_ARCH_TCGEN_ENABLED)
  uint32_t bar_intptr = cute::cast_smem_ptr_to_uint(smem_ptr);
  if (cute::elect_one_sync()) {
    asm volatile("{\n\ttcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [%0], %1;\n\t}"
                 :: "r"(bar_intptr), "h"(cta_mask) : "memory");
  }
#endif
}
// tcgen05.wait::ld / ::st, under CUTLASS's names.
CUTLASS_DEVICE void fence_view_async_tmem_load() {
#if defined(CUTLASS_ARCH_TCGEN_ENABLED)
  asm volatile("{\n\ttcgen05.wait::ld.sync.aligned; \n}" ::: "memory");
#endif
}
CUTLASS_DEVICE void fence_view_async_tmem_store() {
#if defined(CUTLASS_ARCH_TCGEN_ENABLED)
  asm volatile("{\n\ttcgen05.wait::st.sync.aligned; \n}" ::: "memory");
#endif
}
} // namespace cutlass::arch
