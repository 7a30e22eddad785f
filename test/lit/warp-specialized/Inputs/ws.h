// Helpers of warp-specialised kernels, shared by the warp-specialized tests:
// a stand-in for CUTLASS's NamedBarrier (the same bodies: bar.sync/bar.arrive
// with the user's id shifted past the reserved ones), raw mbarrier helpers
// and bulk/TMA stores.
#pragma once
#include <cstdint>
#include <cuda.h>

#define CUTLASS_DEVICE __forceinline__ __device__

namespace cutlass::arch {
CUTLASS_DEVICE void fence_view_async_shared() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

enum class ReservedNamedBarriers { EpilogueBarrier = 1, FirstUserBarrier = 2 };

class NamedBarrier {
public:
  static constexpr uint32_t ReservedNamedBarrierCount =
      static_cast<uint32_t>(ReservedNamedBarriers::FirstUserBarrier);

  // An object holding its thread count and id, as CUTLASS's NamedBarrier.
  CUTLASS_DEVICE NamedBarrier(uint32_t num_threads, uint32_t id = 0)
      : num_threads_(num_threads), id_(id + ReservedNamedBarrierCount) {}
  CUTLASS_DEVICE void sync() const { sync_internal(num_threads_, id_); }
  CUTLASS_DEVICE void arrive() const { arrive_internal(num_threads_, id_); }

  CUTLASS_DEVICE static void sync(uint32_t num_threads, uint32_t barrier_id) {
    sync_internal(num_threads, barrier_id + ReservedNamedBarrierCount);
  }
  CUTLASS_DEVICE static void arrive(uint32_t num_threads, uint32_t barrier_id) {
    arrive_internal(num_threads, barrier_id + ReservedNamedBarrierCount);
  }

private:
  uint32_t const num_threads_;
  uint32_t const id_;
  CUTLASS_DEVICE static void sync_internal(uint32_t num_threads,
                                           uint32_t barrier_id) {
    asm volatile("bar.sync %0, %1;" : : "r"(barrier_id), "r"(num_threads));
  }
  CUTLASS_DEVICE static void arrive_internal(uint32_t num_threads,
                                             uint32_t barrier_id) {
    asm volatile("bar.arrive %0, %1;" : : "r"(barrier_id), "r"(num_threads));
  }
};
} // namespace cutlass::arch

__device__ __forceinline__ uint32_t smem_u32(const void *p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
// ThunderKittens-style named barrier: the id is a template argument.
template <int Id, int Threads> __device__ __forceinline__ void tk_arrive() {
  asm volatile("bar.arrive %0, %1;" :: "n"(Id), "n"(Threads) : "memory");
}
template <int Id, int Threads> __device__ __forceinline__ void tk_sync() {
  asm volatile("bar.sync %0, %1;" :: "n"(Id), "n"(Threads) : "memory");
}
__device__ __forceinline__ void named_arrive(int id, int threads) {
  asm volatile("bar.arrive %0, %1;" :: "r"(id), "r"(threads) : "memory");
}
__device__ __forceinline__ void named_sync(int id, int threads) {
  asm volatile("bar.sync %0, %1;" :: "r"(id), "r"(threads) : "memory");
}
__device__ __forceinline__ void mbar_init(uint64_t *bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;"
               :: "r"(smem_u32(bar)), "r"(count) : "memory");
}
__device__ __forceinline__ void mbar_wait(uint64_t *bar, uint32_t parity) {
  asm volatile("{\n"
               ".reg .pred done;\n"
               "WAIT_%=:\n"
               "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
               "@!done bra WAIT_%=;\n"
               "}\n"
               :: "r"(smem_u32(bar)), "r"(parity) : "memory");
}
__device__ __forceinline__ void mbar_arrive(uint64_t *bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];"
               :: "r"(smem_u32(bar)) : "memory");
}
__device__ __forceinline__ void bulk_store(void *gmem, const void *smem,
                                           uint32_t bytes) {
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;"
               :: "l"(gmem), "r"(smem_u32(smem)), "r"(bytes) : "memory");
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}
__device__ __forceinline__ void bulk_wait_read() {
  asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
}
__device__ __forceinline__ void tma_store_2d(const void *tmap, const void *smem,
                                             int x, int y) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group "
               "[%0, {%2, %3}], [%1];"
               :: "l"(tmap), "r"(smem_u32(smem)), "r"(x), "r"(y) : "memory");
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}
