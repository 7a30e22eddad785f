// A backward-attention writer warp reduces the dQ accumulator into global
// memory with a TMA reduce-add, whose copy operation is a template
// parameter: `copy(params.tma_add_dQ, tdQsdQ, tdQgdQ)`, in a class template
// nothing instantiates. The global tensor is a TMA tensor moved to the
// sequence's offset, `local_tile(domain_offset(make_coord(offset, 0), mdQ),
// ...)`, whose tensor is the second argument; the copy from shared memory
// into it is a TMA (async-proxy) read of `smem_dqacc`, which the MMA warp
// groups wrote and handed over with a named barrier. Negative: the class
// that fences before the barrier.
// RUN: not %proxyfence %s -- -I%S/Inputs -I%S/../warp-specialized/Inputs 2>&1 | FileCheck %s
// REQUIRES: nvcc
// RUN: %nvcc-sm90a -I%S/Inputs -I%S/../warp-specialized/Inputs -cubin -o /dev/null %s
#include "cute_tensors.h"
#include "ws.h"
using namespace cute;

template <class CopyOpR2S, class CopyOpAdd> struct DqMainloop {
  struct TensorStorage {
    array_aligned<float, 2048> smem_dqacc;
  };
  struct Params {
    using TMA_add_dQ = decltype(make_tma_copy(CopyOpAdd{}, Layout<int>{}));
    TMA_add_dQ tma_add_dQ;
  };
  Params const &params;
  __device__ explicit DqMainloop(Params const &p) : params(p) {}

  __device__ void store_dq(TensorStorage &shared, int offset, int m_blocks) {
    Tensor sdQ = make_tensor(make_smem_ptr(shared.smem_dqacc.begin()), Layout<int>{});
    Tensor mdQ = params.tma_add_dQ.get_tma_tensor(m_blocks);
    Tensor gdQ = local_tile(domain_offset(make_coord(offset, Int<0>{}), mdQ), Layout<int>{}, make_coord(_));
    auto block_tma_dQ = params.tma_add_dQ.get_slice(0);
    Tensor tdQgdQ = block_tma_dQ.partition_D(gdQ);
    Tensor tdQsdQ = block_tma_dQ.partition_S(sdQ);
    for (int m_block = 0; m_block < m_blocks; ++m_block) {
      cutlass::arch::NamedBarrier::sync(160, 3);
      if (threadIdx.x % 32 == 0)
        copy(params.tma_add_dQ, tdQsdQ, tdQgdQ(_, _, m_block));
      // CHECK: cute-domain-offset.cu:[[#@LINE-1]]:9: warning: TMA store reads shared memory 'TensorStorage::smem_dqacc' written through the generic proxy with no fence.proxy.async on the path [proxyfence-tma-store]
      cutlass::arch::NamedBarrier::arrive(160, 4);
    }
  }
  __device__ void mma(TensorStorage &shared, int m_blocks, int thread_idx) {
    Tensor sdQ = make_tensor(make_smem_ptr(shared.smem_dqacc.begin()), Layout<int>{});
    auto r2s = make_tiled_copy(CopyOpR2S{});
    Tensor tdQsdQ = r2s.get_slice(thread_idx).partition_D(sdQ);
    Tensor tdQrdQ = make_tensor<float>(Layout<int>{});
    for (int m_block = 0; m_block < m_blocks; ++m_block) {
      cutlass::arch::NamedBarrier::sync(160, 4);
      copy(r2s, tdQrdQ, tdQsdQ);
      // CHECK: cute-domain-offset.cu:[[#@LINE-1]]:7: note: generic-proxy write to 'TensorStorage::smem_dqacc' here (CuTe copy)
      cutlass::arch::NamedBarrier::arrive(160, 3);
    }
  }
};

// The same roles, fenced before the hand-off.
template <class CopyOpR2S, class CopyOpAdd> struct FencedDqMainloop {
  struct TensorStorage {
    array_aligned<float, 2048> smem_dqacc;
  };
  struct Params {
    using TMA_add_dQ = decltype(make_tma_copy(CopyOpAdd{}, Layout<int>{}));
    TMA_add_dQ tma_add_dQ;
  };
  Params const &params;
  __device__ explicit FencedDqMainloop(Params const &p) : params(p) {}

  __device__ void store_dq(TensorStorage &shared, int offset, int m_blocks) {
    Tensor sdQ = make_tensor(make_smem_ptr(shared.smem_dqacc.begin()), Layout<int>{});
    Tensor mdQ = params.tma_add_dQ.get_tma_tensor(m_blocks);
    Tensor gdQ = local_tile(domain_offset(make_coord(offset, Int<0>{}), mdQ), Layout<int>{}, make_coord(_));
    auto block_tma_dQ = params.tma_add_dQ.get_slice(0);
    Tensor tdQgdQ = block_tma_dQ.partition_D(gdQ);
    Tensor tdQsdQ = block_tma_dQ.partition_S(sdQ);
    for (int m_block = 0; m_block < m_blocks; ++m_block) {
      cutlass::arch::NamedBarrier::sync(160, 3);
      if (threadIdx.x % 32 == 0)
        copy(params.tma_add_dQ, tdQsdQ, tdQgdQ(_, _, m_block));
      cutlass::arch::NamedBarrier::arrive(160, 4);
    }
  }
  __device__ void mma(TensorStorage &shared, int m_blocks, int thread_idx) {
    Tensor sdQ = make_tensor(make_smem_ptr(shared.smem_dqacc.begin()), Layout<int>{});
    auto r2s = make_tiled_copy(CopyOpR2S{});
    Tensor tdQsdQ = r2s.get_slice(thread_idx).partition_D(sdQ);
    Tensor tdQrdQ = make_tensor<float>(Layout<int>{});
    for (int m_block = 0; m_block < m_blocks; ++m_block) {
      cutlass::arch::NamedBarrier::sync(160, 4);
      copy(r2s, tdQrdQ, tdQsdQ);
      cutlass::arch::fence_view_async_shared();
      cutlass::arch::NamedBarrier::arrive(160, 3);
    }
  }
};
// CHECK-NOT: warning:
// CHECK: proxyfence: 1 finding in 1 file
