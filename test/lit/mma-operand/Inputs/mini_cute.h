// A minimal stand-in for the CuTe headers the mma-operand tests need,
// spelled as CuTe spells them (cute/arch/mma_sm90_desc.hpp,
// cute/arch/mma_sm90_gmma.hpp, cute/arch/copy_sm90_tma.hpp,
// cute/arch/util.hpp, cutlass/arch/barrier.h): the smem pointer cast, the GMMA
// matrix descriptor, two GMMA atoms (SS and RS), the warpgroup helpers, a
// bulk-copy atom and the cluster barrier.
// The asm bodies are gated as CuTe/CUTLASS gate them (mini_cutlass_config.h).
#pragma once
#include <cstdint>
#include "mini_cutlass_config.h"

namespace cute {

CUTE_DEVICE uint32_t cast_smem_ptr_to_uint(void const *const ptr) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(ptr));
}

namespace GMMA {
enum class ScaleOut { Zero = 0, One = 1 };
enum class LayoutType : uint8_t { INTERLEAVE = 0, B128 = 1, B64 = 2, B32 = 3 };
} // namespace GMMA

union GmmaDescriptor {
  CUTE_HOST_DEVICE constexpr GmmaDescriptor() noexcept : desc_(0) {}
  uint64_t desc_;
  uint32_t reg32_[2];
  uint16_t reg16_[4];
  struct {
    uint16_t start_address_ : 14, : 2;
    uint16_t leading_byte_offset_ : 14, : 2;
    uint16_t stride_byte_offset_ : 14, : 2;
    uint8_t : 1, base_offset_ : 3, : 4;
    uint8_t : 6, layout_type_ : 2;
  } bitfield;
  CUTE_HOST_DEVICE constexpr operator uint64_t() const noexcept { return desc_; }
};

// K-major, no swizzle: the descriptor of a tile starting at smem_ptr.
template <class T>
CUTE_DEVICE GmmaDescriptor make_gmma_desc(T const *smem_ptr, uint32_t lbo,
                                          uint32_t sbo) {
  GmmaDescriptor desc;
  uint32_t start_address = cast_smem_ptr_to_uint(smem_ptr);
  desc.bitfield.start_address_ = static_cast<uint16_t>(start_address >> 4);
  desc.bitfield.leading_byte_offset_ = static_cast<uint16_t>(lbo >> 4);
  desc.bitfield.stride_byte_offset_ = static_cast<uint16_t>(sbo >> 4);
  desc.bitfield.base_offset_ = 0;
  desc.bitfield.layout_type_ = uint8_t(GMMA::LayoutType::INTERLEAVE);
  return desc;
}

// wgmma.fence: orders register accesses of the warpgroup, not shared memory.
CUTE_DEVICE void warpgroup_arrive() {
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}
CUTE_DEVICE void warpgroup_commit_batch() {
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}
template <int N>
CUTE_DEVICE void warpgroup_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}
// A compiler barrier on one accumulator register: emits no PTX at all.
CUTE_HOST_DEVICE void warpgroup_fence_operand(float &reg) {
  asm volatile("" : "+f"(reg)::"memory");
}

// D (64x64, f32) += A (64x16, smem) * B (16x64, smem).
struct SM90_64x64x16_F32BF16BF16_SS {
  CUTE_DEVICE static void
  fma(uint64_t const &desc_a, uint64_t const &desc_b,
      float &d00, float &d01, float &d02, float &d03,
      float &d04, float &d05, float &d06, float &d07,
      float &d08, float &d09, float &d10, float &d11,
      float &d12, float &d13, float &d14, float &d15,
      float &d16, float &d17, float &d18, float &d19,
      float &d20, float &d21, float &d22, float &d23,
      float &d24, float &d25, float &d26, float &d27,
      float &d28, float &d29, float &d30, float &d31,
      GMMA::ScaleOut const scale_D = GMMA::ScaleOut::One) {
#if defined(CUTE_ARCH_MMA_SM90A_ENABLED)
    asm volatile(
        "{\n"
        ".reg .pred p;\n"
        "setp.ne.b32 p, %34, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31},"
        " %32,"
        " %33,"
        " p, %35, %36, %37, %38;\n"
        "}\n"
        : "+f"(d00), "+f"(d01), "+f"(d02), "+f"(d03),
          "+f"(d04), "+f"(d05), "+f"(d06), "+f"(d07),
          "+f"(d08), "+f"(d09), "+f"(d10), "+f"(d11),
          "+f"(d12), "+f"(d13), "+f"(d14), "+f"(d15),
          "+f"(d16), "+f"(d17), "+f"(d18), "+f"(d19),
          "+f"(d20), "+f"(d21), "+f"(d22), "+f"(d23),
          "+f"(d24), "+f"(d25), "+f"(d26), "+f"(d27),
          "+f"(d28), "+f"(d29), "+f"(d30), "+f"(d31)
        : "l"(desc_a), "l"(desc_b), "r"(int32_t(scale_D)), "n"(1), "n"(1),
          "n"(0), "n"(0));
#else
    CUTE_INVALID_CONTROL_PATH("Attempting to use SM90_64x64x16_F32BF16BF16_SS without CUTE_ARCH_MMA_SM90A_ENABLED");
#endif
  }
};

// D (64x64, f32) += A (64x16, registers) * B (16x64, smem).
struct SM90_64x64x16_F32BF16BF16_RS {
  CUTE_DEVICE static void
  fma(uint32_t const &a00, uint32_t const &a01, uint32_t const &a02,
      uint32_t const &a03, uint64_t const &desc_b,
      float &d00, float &d01, float &d02, float &d03,
      float &d04, float &d05, float &d06, float &d07,
      float &d08, float &d09, float &d10, float &d11,
      float &d12, float &d13, float &d14, float &d15,
      float &d16, float &d17, float &d18, float &d19,
      float &d20, float &d21, float &d22, float &d23,
      float &d24, float &d25, float &d26, float &d27,
      float &d28, float &d29, float &d30, float &d31,
      GMMA::ScaleOut const scale_D = GMMA::ScaleOut::One) {
    asm volatile(
        "{\n"
        ".reg .pred p;\n"
        "setp.ne.b32 p, %37, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31},"
        "{%32, %33, %34, %35},"
        " %36,"
        " p, %38, %39, %40;\n"
        "}\n"
        : "+f"(d00), "+f"(d01), "+f"(d02), "+f"(d03),
          "+f"(d04), "+f"(d05), "+f"(d06), "+f"(d07),
          "+f"(d08), "+f"(d09), "+f"(d10), "+f"(d11),
          "+f"(d12), "+f"(d13), "+f"(d14), "+f"(d15),
          "+f"(d16), "+f"(d17), "+f"(d18), "+f"(d19),
          "+f"(d20), "+f"(d21), "+f"(d22), "+f"(d23),
          "+f"(d24), "+f"(d25), "+f"(d26), "+f"(d27),
          "+f"(d28), "+f"(d29), "+f"(d30), "+f"(d31)
        : "r"(a00), "r"(a01), "r"(a02), "r"(a03), "l"(desc_b),
          "r"(int32_t(scale_D)), "n"(1), "n"(1), "n"(0));
  }
};

// ldmatrix of four 8x8 b16 matrices into registers (generic-proxy read).
struct SM75_U32x4_LDSM_N {
  CUTE_DEVICE static void copy(uint32_t const &smem_src, uint32_t &dst0,
                                    uint32_t &dst1, uint32_t &dst2,
                                    uint32_t &dst3) {
    asm volatile("ldmatrix.sync.aligned.x4.m8n8.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(dst0), "=r"(dst1), "=r"(dst2), "=r"(dst3)
                 : "r"(smem_src));
  }
};

// Non-tensor bulk copy global -> shared completing on an mbarrier.
struct SM90_BULK_COPY_G2S {
  CUTE_DEVICE static void copy(void const *gmem_ptr, uint64_t *mbar_ptr,
                                    void *smem_ptr, int32_t load_bytes) {
#if defined(CUTE_ARCH_TMA_SM90_ENABLED)
    uint32_t smem_int_mbar = cast_smem_ptr_to_uint(mbar_ptr);
    uint32_t smem_int_ptr = cast_smem_ptr_to_uint(smem_ptr);
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n"
                 :
                 : "r"(smem_int_ptr), "l"(gmem_ptr), "r"(load_bytes),
                   "r"(smem_int_mbar)
                 : "memory");
#else
    CUTE_INVALID_CONTROL_PATH("Trying to use BULK_COPY without CUTE_ARCH_TMA_SM90_ENABLED.");
#endif
  }
};


// Blackwell UMMA atoms (cute/arch/mma_sm100_umma.hpp,
// cute/arch/copy_sm100.hpp): one elected thread issues tcgen05.mma /
// tcgen05.cp. elect.sync is no proxy operation.
CUTE_DEVICE uint32_t elect_one_sync() {
  uint32_t pred = 0;
  uint32_t laneid = 0;
  asm volatile("{\n"
               ".reg .b32 %%rx;\n"
               ".reg .pred %%px;\n"
               "     elect.sync %%rx|%%px, %2;\n"
               "@%%px mov.s32 %1, 1;\n"
               "     mov.s32 %0, %%rx;\n"
               "}\n"
               : "+r"(laneid), "+r"(pred)
               : "r"(0xFFFFFFFF));
  return pred;
}

// D (TMEM) += A (smem) * B (smem).
struct SM100_MMA_F16BF16_SS {
  CUTE_DEVICE static void fma(uint64_t const &desc_a, uint64_t const &desc_b,
                              uint32_t const &tmem_c, uint32_t const &scaleC,
                              uint64_t const &idescE) {
#if defined(CUTE_ARCH_TCGEN05_TMEM_ENABLED)
    if (elect_one_sync()) {
      uint32_t mask[4] = {0, 0, 0, 0};
      asm volatile("{\n\t"
                   ".reg .pred p;\n\t"
                   "setp.ne.b32 p, %4, 0;\n\t"
                   "tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, {%5, %6, %7, %8}, p; \n\t"
                   "}\n"
                   :
                   : "r"(tmem_c), "l"(desc_a), "l"(desc_b),
                     "r"(uint32_t(idescE >> 32)), "r"(scaleC), "r"(mask[0]),
                     "r"(mask[1]), "r"(mask[2]), "r"(mask[3]));
    }
#else
    CUTE_INVALID_CONTROL_PATH("Attempting to use SM100_MMA_F16BF16_SS without CUTE_ARCH_TCGEN05_TMEM_ENABLED");
#endif
  }
};

// D (TMEM) += A (TMEM) * B (smem).
struct SM100_MMA_F16BF16_TS {
  CUTE_DEVICE static void fma(uint32_t const &tmem_a, uint64_t const &desc_b,
                              uint32_t const &tmem_c, uint32_t const &scaleC,
                              uint64_t const &idescE) {
    if (elect_one_sync()) {
      uint32_t mask[4] = {0, 0, 0, 0};
      asm volatile("{\n\t"
                   ".reg .pred p;\n\t"
                   "setp.ne.b32 p, %4, 0;\n\t"
                   "tcgen05.mma.cta_group::1.kind::f16 [%0], [%1], %2, %3, {%5, %6, %7, %8}, p; \n\t"
                   "}\n"
                   :
                   : "r"(tmem_c), "r"(tmem_a), "l"(desc_b),
                     "r"(uint32_t(idescE >> 32)), "r"(scaleC), "r"(mask[0]),
                     "r"(mask[1]), "r"(mask[2]), "r"(mask[3]));
    }
  }
};

// The 2-CTA pair's MMA: reads A and B of both CTAs.
struct SM100_MMA_F16BF16_2x1SM_SS {
  CUTE_DEVICE static void fma(uint64_t const &desc_a, uint64_t const &desc_b,
                              uint32_t const &tmem_c, uint32_t const &scaleC,
                              uint64_t const &idescE) {
    if (elect_one_sync()) {
      uint32_t mask[8] = {0, 0, 0, 0, 0, 0, 0, 0};
      asm volatile("{\n\t"
                   ".reg .pred p;\n\t"
                   "setp.ne.b32 p, %4, 0;\n\t"
                   "tcgen05.mma.cta_group::2.kind::f16 [%0], %1, %2, %3, {%5, %6, %7, %8, %9, %10, %11, %12}, p; \n\t"
                   "}\n"
                   :
                   : "r"(tmem_c), "l"(desc_a), "l"(desc_b),
                     "r"(uint32_t(idescE >> 32)), "r"(scaleC), "r"(mask[0]),
                     "r"(mask[1]), "r"(mask[2]), "r"(mask[3]), "r"(mask[4]),
                     "r"(mask[5]), "r"(mask[6]), "r"(mask[7]));
    }
  }
};

// smem -> TMEM copy of 128 lanes x 256 bits (scale factors).
struct SM100_UTCCP_128dp256bit_1cta {
  CUTE_DEVICE static void copy(uint64_t const &src_addr,
                               uint32_t const &dst_addr) {
#if defined(CUTE_ARCH_TCGEN05_TMEM_ENABLED)
    // CuTe's spelling: no comma between the two inputs (nvcc accepts it).
    asm volatile("tcgen05.cp.cta_group::1.128x256b [%0], %1;"
                 :
                 : "r"(dst_addr)  "l"(src_addr));
#else
    CUTE_INVALID_CONTROL_PATH("Trying to use UTCCP without CUTE_ARCH_TCGEN05_TMEM_ENABLED.");
#endif
  }
};

} // namespace cute

namespace cutlass::arch {

CUTE_DEVICE void fence_view_async_shared() {
#if CUDA_BARRIER_ENABLED
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
#endif
}

struct ClusterBarrier {
  uint64_t barrier_;
  CUTE_DEVICE void init(uint32_t arrive_count) const {
    uint32_t smem_addr = cute::cast_smem_ptr_to_uint(&barrier_);
#if CUDA_BARRIER_ENABLED
    asm volatile("mbarrier.init.shared::cta.b64 [%1], %0;\n"
                 ::"r"(arrive_count), "r"(smem_addr));
#elif defined(__CUDA_ARCH__)
    asm volatile("brkpt;\n" ::);
#endif
  }
  CUTE_DEVICE void wait(uint32_t phase) const {
    uint32_t smem_addr = cute::cast_smem_ptr_to_uint(&barrier_);
#if CUDA_BARRIER_ENABLED
    asm volatile("{\n"
                 ".reg .pred P1;\n"
                 "LAB_WAIT:\n"
                 "mbarrier.try_wait.parity.shared::cta.b64 P1, [%0], %1;\n"
                 "@P1 bra DONE;\n"
                 "bra LAB_WAIT;\n"
                 "DONE:\n"
                 "}\n"
                 ::"r"(smem_addr), "r"(phase));
#elif defined(__CUDA_ARCH__)
    asm volatile("brkpt;\n" ::);
#endif
  }
  CUTE_DEVICE void arrive() const {
    uint32_t smem_addr = cute::cast_smem_ptr_to_uint(&barrier_);
#if CUDA_BARRIER_ENABLED
    asm volatile("{\n"
                 ".reg .b64 state;\n"
                 "mbarrier.arrive.shared::cta.b64 state, [%0];\n"
                 "}\n"
                 ::"r"(smem_addr));
#elif defined(__CUDA_ARCH__)
    asm volatile("brkpt;\n" ::);
#endif
  }
  CUTE_DEVICE void arrive_and_expect_tx(uint32_t transaction_bytes) const {
    uint32_t smem_addr = cute::cast_smem_ptr_to_uint(&barrier_);
#if CUDA_BARRIER_ENABLED
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%1], %0;\n"
                 ::"r"(transaction_bytes), "r"(smem_addr));
#elif defined(__CUDA_ARCH__)
    asm volatile("brkpt;\n" ::);
#endif
  }
};

} // namespace cutlass::arch

namespace cute {
// The descriptors of a fragment, as an iterator: element i is the first
// descriptor advanced by i (its operator[] goes through `*this + i`).
struct DescriptorIterator {
  GmmaDescriptor desc_;
  CUTE_HOST_DEVICE constexpr GmmaDescriptor operator*() const { return desc_; }
  template <class Index>
  CUTE_HOST_DEVICE constexpr GmmaDescriptor operator[](Index const &i) const {
    return *(*this + i);
  }
  template <class Index>
  CUTE_HOST_DEVICE constexpr DescriptorIterator
  operator+(Index const &offset) const {
    GmmaDescriptor ret;
    ret.reg32_[0] = desc_.reg32_[0] + uint32_t(offset);
    ret.reg32_[1] = desc_.reg32_[1];
    return {ret};
  }
};
} // namespace cute
