// A minimal stand-in for the CUTLASS/CuTe cluster barrier helpers
// (cutlass/arch/barrier.h, cute/arch/cluster_sm90.hpp), spelled and written
// as CUTLASS writes them.
// The asm bodies are gated as CUTLASS gates them (mini_cutlass_config.h).
#pragma once
#include <cstdint>
#include "mini_cutlass_config.h"

namespace cute {
CUTLASS_DEVICE uint32_t cast_smem_ptr_to_uint(void const *const ptr) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(ptr));
}
CUTLASS_DEVICE void cluster_arrive_relaxed() {
#if defined(CUTE_ARCH_CLUSTER_SM90_ENABLED)
  asm volatile("barrier.cluster.arrive.relaxed.aligned;\n" : :);
#else
  CUTE_INVALID_CONTROL_PATH("CUTE_ARCH_CLUSTER_SM90_ENABLED is not defined");
#endif
}
CUTLASS_DEVICE void cluster_arrive() {
#if defined(CUTE_ARCH_CLUSTER_SM90_ENABLED)
  asm volatile("barrier.cluster.arrive.aligned;\n" : :);
#else
  CUTE_INVALID_CONTROL_PATH("CUTE_ARCH_CLUSTER_SM90_ENABLED is not defined");
#endif
}
CUTLASS_DEVICE void cluster_wait() {
#if defined(CUTE_ARCH_CLUSTER_SM90_ENABLED)
  asm volatile("barrier.cluster.wait.aligned;\n" : :);
#else
  CUTE_INVALID_CONTROL_PATH("CUTE_ARCH_CLUSTER_SM90_ENABLED is not defined");
#endif
}
CUTLASS_DEVICE void cluster_sync() {
  cluster_arrive();
  cluster_wait();
}
CUTLASS_DEVICE uint32_t block_rank_in_cluster() {
  uint32_t rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(rank) :);
  return rank;
}
} // namespace cute

namespace cutlass::arch {
CUTLASS_DEVICE void fence_barrier_init() {
#if CUDA_BARRIER_ENABLED
  asm volatile("fence.mbarrier_init.release.cluster; \n" ::);
#elif defined(__CUDA_ARCH__)
  asm volatile("brkpt;\n" ::);
#endif
}

struct ClusterBarrier {
  using ValueType = uint64_t;

protected:
  ValueType barrier_;

public:
  CUTLASS_DEVICE void init(uint32_t arrive_count) const {
    ClusterBarrier::init(&this->barrier_, arrive_count);
  }
  CUTLASS_DEVICE void wait(uint32_t phase) const {
    ClusterBarrier::wait(&this->barrier_, phase);
  }
  CUTLASS_DEVICE void arrive(uint32_t cta_id, uint32_t pred = true) const {
    ClusterBarrier::arrive(&this->barrier_, cta_id, pred);
  }

  CUTLASS_DEVICE static void init(ValueType const *smem_ptr, uint32_t arrive_count) {
    uint32_t smem_addr = cute::cast_smem_ptr_to_uint(smem_ptr);
#if CUDA_BARRIER_ENABLED
    asm volatile("{\n\t"
                 "mbarrier.init.shared::cta.b64 [%1], %0; \n"
                 "}"
                 :
                 : "r"(arrive_count), "r"(smem_addr));
#elif defined(__CUDA_ARCH__)
    asm volatile("brkpt;\n" ::);
#endif
  }
  CUTLASS_DEVICE static void wait(ValueType const *smem_ptr, uint32_t phase) {
    uint32_t smem_addr = cute::cast_smem_ptr_to_uint(smem_ptr);
#if CUDA_BARRIER_ENABLED
    asm volatile("{\n\t"
                 ".reg .pred       P1; \n\t"
                 "LAB_WAIT: \n\t"
                 "mbarrier.try_wait.parity.shared::cta.b64 P1, [%0], %1; \n\t"
                 "@P1 bra DONE; \n\t"
                 "bra     LAB_WAIT; \n\t"
                 "DONE: \n\t"
                 "}"
                 :
                 : "r"(smem_addr), "r"(phase));
#elif defined(__CUDA_ARCH__)
    asm volatile("brkpt;\n" ::);
#endif
  }
  // Arrives on the barrier of CTA cta_id of the cluster (mapa + remote arrive).
  CUTLASS_DEVICE static void arrive(ValueType const *smem_ptr, uint32_t cta_id, uint32_t pred) {
    uint32_t smem_addr = cute::cast_smem_ptr_to_uint(smem_ptr);
#if CUDA_BARRIER_ENABLED
    asm volatile("{\n\t"
                 ".reg .pred p;\n\t"
                 ".reg .b32 remAddr32;\n\t"
                 "setp.eq.u32 p, %2, 1;\n\t"
                 "@p mapa.shared::cluster.u32  remAddr32, %0, %1;\n\t"
                 "@p mbarrier.arrive.shared::cluster.b64  _, [remAddr32];\n\t"
                 "}"
                 :
                 : "r"(smem_addr), "r"(cta_id), "r"(pred));
#elif defined(__CUDA_ARCH__)
    asm volatile("brkpt;\n" ::);
#endif
  }
  // Arrives on this CTA's barrier.
  CUTLASS_DEVICE void arrive() const { ClusterBarrier::arrive(&this->barrier_); }
  CUTLASS_DEVICE static void arrive(ValueType const *smem_ptr) {
    uint32_t smem_addr = cute::cast_smem_ptr_to_uint(smem_ptr);
#if CUDA_BARRIER_ENABLED
    asm volatile("{\n\t"
                 "mbarrier.arrive.shared::cta.b64 _, [%0];\n\t"
                 "}"
                 :
                 : "r"(smem_addr));
#elif defined(__CUDA_ARCH__)
    asm volatile("brkpt;\n" ::);
#endif
  }
};
} // namespace cutlass::arch
