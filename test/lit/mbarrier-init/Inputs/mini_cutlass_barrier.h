// A minimal stand-in for the CUTLASS/CuTe cluster barrier helpers
// (cutlass/arch/barrier.h, cute/arch/cluster_sm90.hpp), spelled and written
// as CUTLASS writes them.
#pragma once
#include <cstdint>

#define CUTLASS_DEVICE __forceinline__ __device__

namespace cute {
CUTLASS_DEVICE uint32_t cast_smem_ptr_to_uint(void const *const ptr) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(ptr));
}
CUTLASS_DEVICE void cluster_arrive_relaxed() {
  asm volatile("barrier.cluster.arrive.relaxed.aligned;\n" : :);
}
CUTLASS_DEVICE void cluster_arrive() {
  asm volatile("barrier.cluster.arrive.aligned;\n" : :);
}
CUTLASS_DEVICE void cluster_wait() {
  asm volatile("barrier.cluster.wait.aligned;\n" : :);
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
  asm volatile("fence.mbarrier_init.release.cluster; \n" ::);
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
    asm volatile("{\n\t"
                 "mbarrier.init.shared::cta.b64 [%1], %0; \n"
                 "}"
                 :
                 : "r"(arrive_count), "r"(smem_addr));
  }
  CUTLASS_DEVICE static void wait(ValueType const *smem_ptr, uint32_t phase) {
    uint32_t smem_addr = cute::cast_smem_ptr_to_uint(smem_ptr);
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
  }
  // Arrives on the barrier of CTA cta_id of the cluster (mapa + remote arrive).
  CUTLASS_DEVICE static void arrive(ValueType const *smem_ptr, uint32_t cta_id, uint32_t pred) {
    uint32_t smem_addr = cute::cast_smem_ptr_to_uint(smem_ptr);
    asm volatile("{\n\t"
                 ".reg .pred p;\n\t"
                 ".reg .b32 remAddr32;\n\t"
                 "setp.eq.u32 p, %2, 1;\n\t"
                 "@p mapa.shared::cluster.u32  remAddr32, %0, %1;\n\t"
                 "@p mbarrier.arrive.shared::cluster.b64  _, [remAddr32];\n\t"
                 "}"
                 :
                 : "r"(smem_addr), "r"(cta_id), "r"(pred));
  }
};
} // namespace cutlass::arch
