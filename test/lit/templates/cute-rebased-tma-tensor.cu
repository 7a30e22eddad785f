// A TMA tensor rebased by pointer arithmetic, as varlen and split-K
// epilogues make it: `make_tensor(mD.data() + offset, layout)` of
// `mD = tma.get_tma_tensor(shape)` still holds TMA coordinates, so a CuTe
// copy from shared memory into it is a TMA store, in a class template
// nothing instantiates. The unfenced store is reported; the fenced one not.
// RUN: not %proxyfence %s -- -I%S/Inputs -I%S/../warp-specialized/Inputs 2>&1 | FileCheck %s
// REQUIRES: nvcc
// RUN: %nvcc-sm90a -I%S/Inputs -I%S/../warp-specialized/Inputs -cubin -o /dev/null %s
#include "cute_tensors.h"
#include "ws.h"
using namespace cute;

template <class ElementD, class CopyOpR2S, class CopyOpS2G>
struct RebasedEpilogue {
  struct TensorStorage {
    array_aligned<ElementD, 1024> smem_d;
  };
  struct Params {
    using TMA_D = decltype(make_tma_copy(CopyOpS2G{}, Layout<int>{}));
    TMA_D tma_store_d;
  };
  Params const &params;
  __device__ explicit RebasedEpilogue(Params const &p) : params(p) {}

  template <bool Fenced>
  __device__ void store(TensorStorage &shared_tensors, int rows, int offset,
                        int thread_idx) {
    Tensor sD = make_tensor(make_smem_ptr(shared_tensors.smem_d.begin()), Layout<int>{});
    Tensor mD = params.tma_store_d.get_tma_tensor(rows);
    Tensor gD = make_tensor(mD.data() + offset, Layout<int>{});
    auto thread_r2s = make_tiled_copy(CopyOpR2S{}).get_slice(thread_idx);
    Tensor tRS_rD = make_tensor<ElementD>(Layout<int>{});
    copy(make_tiled_copy(CopyOpR2S{}), tRS_rD, thread_r2s.partition_D(sD));
    if constexpr (Fenced)
      cutlass::arch::fence_view_async_shared();
    cutlass::arch::NamedBarrier::sync(128, 1);
    auto thrblk_s2g = params.tma_store_d.get_slice(0);
    if (thread_idx == 0)
      copy(params.tma_store_d, thrblk_s2g.partition_S(sD), thrblk_s2g.partition_D(gD));
  }
};

// CHECK: cute-rebased-tma-tensor.cu:39:7: warning: TMA store reads shared memory 'TensorStorage::smem_d' written through the generic proxy with no fence.proxy.async on the path [proxyfence-tma-store]
// CHECK: cute-rebased-tma-tensor.cu:33:5: note: generic-proxy write to 'TensorStorage::smem_d' here (CuTe copy)
// CHECK-NOT: warning:
// CHECK: proxyfence: 1 finding in 1 file
