// A backward-attention mainloop read as a header: each MMA warp group writes
// its dQ accumulator to shared memory and arrives at its own named barrier,
// `dQFull + warp_group_idx`; the writer warp syncs on the same row entry,
// indexed by its own loop, and reduces the tile into global memory with a
// bulk async reduction. The ids are computed at run time, so no constant
// pairs them: a row base plus a runtime index names the same barrier in
// both roles. The write needs fence.proxy.async before the arrive (PTX ISA,
// async proxy: a thread barrier orders threads, not proxies). Negatives: the
// fenced class, and a class whose roles meet on rows of
// different bases (left undecided, listed in --stats, never guessed into a
// finding). `ws.h`'s NamedBarrier adds 2 reserved ids to each.
// RUN: cp %s %t.cu
// RUN: not %proxyfence --stats %t.cu -- -I%S/Inputs -I%S/../warp-specialized/Inputs 2>&1 | FileCheck %s
// RUN: %proxyfence --fix --quiet %t.cu -- -I%S/Inputs -I%S/../warp-specialized/Inputs
// RUN: FileCheck --check-prefix=FIXED-SRC --input-file=%t.cu %s
// RUN: %proxyfence %t.cu -- -I%S/Inputs -I%S/../warp-specialized/Inputs 2>&1 | FileCheck --check-prefix=FIXED %s
// REQUIRES: nvcc
// RUN: %nvcc-sm90a -I%S/Inputs -I%S/../warp-specialized/Inputs -cubin -o /dev/null %s
#include "cute_tensors.h"
#include "ws.h"
using namespace cute;

struct BulkReduceAdd {
  __device__ static void copy(const float *smem, float *gmem, int bytes) {
    asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [%0], [%1], %2;"
                 :: "l"(gmem), "r"((unsigned)__cvta_generic_to_shared(smem)), "r"(bytes)
                 : "memory");
  }
};
enum class Barriers { dQEmptyWG1 = 3, dQEmptyWG2, dQFullWG1, dQFullWG2, OtherWG1, OtherWG2 };

template <class CopyOpR2S> struct Mainloop {
  struct TensorStorage {
    array_aligned<float, 2048> smem_dqacc;
  };
  __device__ void store_dq(TensorStorage &shared, float *gacc, int m_block) {
    Tensor sdQ = make_tensor(make_smem_ptr(shared.smem_dqacc.data()), Layout<int>{});
    for (int m = 0; m < m_block; ++m)
      for (int warpgroup_idx = 0; warpgroup_idx < 2; ++warpgroup_idx) {
        cutlass::arch::NamedBarrier::sync(160, static_cast<uint32_t>(Barriers::dQFullWG1) + warpgroup_idx);
        if (threadIdx.x % 32 == 0)
          BulkReduceAdd::copy(raw_pointer_cast(sdQ(_, warpgroup_idx).data()), gacc, 4096);
        // CHECK: .tmp.cu:[[#@LINE-1]]:11: warning: bulk async reduction reads shared memory 'TensorStorage::smem_dqacc' written through the generic proxy with no fence.proxy.async on the path [proxyfence-tma-store]
        cutlass::arch::NamedBarrier::arrive(160, static_cast<uint32_t>(Barriers::dQEmptyWG1) + warpgroup_idx);
      }
  }
  __device__ void mma(TensorStorage &shared, int m_block, int thread_idx) {
    Tensor sdQ = make_tensor(make_smem_ptr(shared.smem_dqacc.data()), Layout<int>{});
    auto tiled_r2s = make_tiled_copy(CopyOpR2S{});
    Tensor tdQsdQ = tiled_r2s.get_slice(thread_idx).partition_D(sdQ);
    Tensor tdQrdQ = make_tensor<float>(Layout<int>{});
    int const warp_group_idx = threadIdx.x / 128 - 1;
    for (int m = 0; m < m_block; ++m) {
      cutlass::arch::NamedBarrier::sync(160, static_cast<uint32_t>(Barriers::dQEmptyWG1) + warp_group_idx);
      copy(tiled_r2s, tdQrdQ, tdQsdQ);
      cutlass::arch::NamedBarrier::arrive(160, static_cast<uint32_t>(Barriers::dQFullWG1) + warp_group_idx);
      // CHECK: .tmp.cu:[[#@LINE-2]]:7: note: generic-proxy write to 'TensorStorage::smem_dqacc' here (CuTe copy)
      // CHECK: .tmp.cu:[[#@LINE-2]]:7: note: this barrier orders threads, not proxies; insert the fence before it
    }
  }
};

// The same roles, fenced before the arrive.
template <class CopyOpR2S> struct FencedMainloop {
  struct TensorStorage {
    array_aligned<float, 2048> smem_dqacc;
  };
  __device__ void store_dq(TensorStorage &shared, float *gacc) {
    Tensor sdQ = make_tensor(make_smem_ptr(shared.smem_dqacc.data()), Layout<int>{});
    for (int warpgroup_idx = 0; warpgroup_idx < 2; ++warpgroup_idx) {
      cutlass::arch::NamedBarrier::sync(160, static_cast<uint32_t>(Barriers::dQFullWG1) + warpgroup_idx);
      if (threadIdx.x % 32 == 0)
        BulkReduceAdd::copy(raw_pointer_cast(sdQ(_, warpgroup_idx).data()), gacc, 4096);
    }
  }
  __device__ void mma(TensorStorage &shared, int thread_idx) {
    Tensor sdQ = make_tensor(make_smem_ptr(shared.smem_dqacc.data()), Layout<int>{});
    auto tiled_r2s = make_tiled_copy(CopyOpR2S{});
    Tensor tdQsdQ = tiled_r2s.get_slice(thread_idx).partition_D(sdQ);
    Tensor tdQrdQ = make_tensor<float>(Layout<int>{});
    int const warp_group_idx = threadIdx.x / 128 - 1;
    copy(tiled_r2s, tdQrdQ, tdQsdQ);
    cutlass::arch::fence_view_async_shared();
    cutlass::arch::NamedBarrier::arrive(160, static_cast<uint32_t>(Barriers::dQFullWG1) + warp_group_idx);
  }
};

// The writer waits on another row than the one the MMA groups arrive at.
template <class CopyOpR2S> struct OtherRow {
  struct TensorStorage {
    array_aligned<float, 2048> smem_dqacc;
  };
  __device__ void store_dq(TensorStorage &shared, float *gacc) {
    Tensor sdQ = make_tensor(make_smem_ptr(shared.smem_dqacc.data()), Layout<int>{});
    for (int warpgroup_idx = 0; warpgroup_idx < 2; ++warpgroup_idx) {
      cutlass::arch::NamedBarrier::sync(160, static_cast<uint32_t>(Barriers::OtherWG1) + warpgroup_idx);
      if (threadIdx.x % 32 == 0)
        BulkReduceAdd::copy(raw_pointer_cast(sdQ(_, warpgroup_idx).data()), gacc, 4096);
    }
  }
  __device__ void mma(TensorStorage &shared, int thread_idx) {
    Tensor sdQ = make_tensor(make_smem_ptr(shared.smem_dqacc.data()), Layout<int>{});
    auto tiled_r2s = make_tiled_copy(CopyOpR2S{});
    Tensor tdQsdQ = tiled_r2s.get_slice(thread_idx).partition_D(sdQ);
    Tensor tdQrdQ = make_tensor<float>(Layout<int>{});
    int warp_group_idx = threadIdx.x / 128 - 1;
    copy(tiled_r2s, tdQrdQ, tdQsdQ);
    cutlass::arch::NamedBarrier::arrive(160, static_cast<uint32_t>(Barriers::dQFullWG1) + warp_group_idx);
  }
};
// CHECK-NOT: warning:
// CHECK: proxyfence: 1 finding in 1 file
// CHECK: stats: role synchronisations matched: 1 named barrier, 0 mbarrier; unmatched: 2
// CHECK: stats: unmatched: {{.*}}.tmp.cu:[[#@LINE-60]]:7: bar.sync (id 5 + a runtime index) and {{.*}}.tmp.cu:[[#@LINE-74]]:9: bar.sync (id 7 + a runtime index); no finding reported for this pair
// CHECK: stats: unmatched: {{.*}}.tmp.cu:[[#@LINE-7]]:5: bar.arrive (id 7 + a runtime index) and {{.*}}.tmp.cu:[[#@LINE-19]]:7: bar.sync (id 9 + a runtime index); no finding reported for this pair
// FIXED: proxyfence: 0 findings in 1 file
// FIXED-SRC: copy(tiled_r2s, tdQrdQ, tdQsdQ);
// FIXED-SRC-NEXT: cutlass::arch::fence_view_async_shared();
// FIXED-SRC-NEXT: cutlass::arch::NamedBarrier::arrive(160, static_cast<uint32_t>(Barriers::dQFullWG1) + warp_group_idx);
