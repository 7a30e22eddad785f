// CUTLASS's TMA warp-specialized collective epilogue read as a header: a
// class template nothing instantiates, whose copy operations are template
// parameters, so every CuTe `copy(atom, src, dst)` stays unresolved. What
// each copy does is in its tensors: registers into a view of
// `make_smem_ptr(storage.smem_d.begin())` is a generic-proxy write; that view
// into the TMA tensor `tma.get_tma_tensor(...)` (or a slice of it) is a TMA
// store. The class
// fences its own accesses elsewhere, so the fusion callback between the
// write and the store is not taken for the missing fence; in a class that
// fences nowhere itself, it still may be.
// RUN: not %proxyfence --stats %s -- -I%S/Inputs -I%S/../warp-specialized/Inputs 2>&1 | FileCheck %s
// REQUIRES: nvcc
// RUN: %nvcc-sm90a -I%S/Inputs -I%S/../warp-specialized/Inputs -cubin -o /dev/null %s
#include "cute_tensors.h"
#include "ws.h"
using namespace cute;

template <class ElementD, class CopyOpR2S, class CopyOpS2G, class Callbacks>
struct UnfencedStoreEpilogue {
  static constexpr int Stages = 2;
  struct TensorStorage {
    array_aligned<ElementD, Stages * 1024> smem_c;
    array_aligned<ElementD, Stages * 1024> smem_d;
  };
  struct Params {
    using TMA_D = decltype(make_tma_copy(CopyOpS2G{}, Layout<int>{}));
    TMA_D tma_store_d;
  };
  Params const &params;
  __device__ explicit UnfencedStoreEpilogue(Params const &p) : params(p) {}

  __device__ void store(TensorStorage &shared_tensors, Callbacks callbacks,
                        int tiles, int thread_idx) {
    auto synchronize = [&]() { cutlass::arch::NamedBarrier::sync(128, 1); };
    Tensor sD = make_tensor(make_smem_ptr(shared_tensors.smem_d.begin()), Layout<int>{});
    Tensor gD = local_tile(params.tma_store_d.get_tma_tensor(tiles)(_, 0), Int<64>{}, 0);
    auto tiled_r2s = make_tiled_copy(CopyOpR2S{});
    auto thread_r2s = tiled_r2s.get_slice(thread_idx);
    Tensor tRS_sD = thread_r2s.partition_D(sD);
    Tensor tRS_rD = make_tensor<ElementD>(Layout<int>{});
    auto thrblk_s2g = params.tma_store_d.get_slice(0);
    Tensor bSG_sD = thrblk_s2g.partition_S(sD);
    Tensor bSG_gD = thrblk_s2g.partition_D(gD);
    bool issue_tma_store = thread_idx / 32 == 0;
    auto tma_store_fn = [&](int stage, int tile) {
      synchronize();
      if (issue_tma_store)
        copy(params.tma_store_d, bSG_sD(_, stage), bSG_gD(_, tile));
      // The warning is where the lambda issues the store.
      // CHECK: cute-pattern-copies.cu:[[#@LINE-2]]:9: warning: TMA store reads shared memory 'TensorStorage::smem_d' written through the generic proxy
    };
    for (int tile = 0; tile < tiles; ++tile) {
      int stage = tile % Stages;
      copy(tiled_r2s, tRS_rD, tRS_sD(_, stage));
      callbacks.postreduce(tile, stage);
      tma_store_fn(stage, tile);
      // CHECK: cute-pattern-copies.cu:[[#@LINE-1]]:7: note: inside the lambda called here
      // CHECK-NOT: issued here
      // CHECK: cute-pattern-copies.cu:[[#@LINE-5]]:7: note: generic-proxy write to 'TensorStorage::smem_d' here (CuTe copy)
    }
  }
  // Reads C from shared memory and fences before handing the buffer back.
  __device__ void release(TensorStorage &shared_tensors, int stage, int thread_idx) {
    Tensor sC = make_tensor(make_smem_ptr(shared_tensors.smem_c.begin()), Layout<int>{});
    auto tiled_s2r = make_tiled_copy(CopyOpR2S{});
    Tensor tSR_sC = tiled_s2r.get_slice(thread_idx).partition_S(sC);
    Tensor tSR_rC = make_tensor<ElementD>(Layout<int>{});
    copy(tiled_s2r, tSR_sC(_, stage), tSR_rC);
    cutlass::arch::fence_view_async_shared();
  }
};

// The same store with the fence the collective writes before its barrier.
template <class ElementD, class CopyOpR2S, class CopyOpS2G, class Callbacks>
struct FencedEpilogue {
  static constexpr int Stages = 2;
  struct TensorStorage {
    array_aligned<ElementD, Stages * 1024> smem_d;
  };
  struct Params {
    using TMA_D = decltype(make_tma_copy(CopyOpS2G{}, Layout<int>{}));
    TMA_D tma_store_d;
  };
  Params const &params;
  __device__ explicit FencedEpilogue(Params const &p) : params(p) {}

  __device__ void store(TensorStorage &shared_tensors, Callbacks callbacks,
                        int tiles, int thread_idx) {
    auto synchronize = [&]() { cutlass::arch::NamedBarrier::sync(128, 1); };
    Tensor sD = make_tensor(make_smem_ptr(shared_tensors.smem_d.begin()), Layout<int>{});
    Tensor gD = local_tile(params.tma_store_d.get_tma_tensor(tiles), Int<64>{}, 0);
    auto tiled_r2s = make_tiled_copy(CopyOpR2S{});
    auto thread_r2s = tiled_r2s.get_slice(thread_idx);
    Tensor tRS_sD = thread_r2s.partition_D(sD);
    Tensor tRS_rD = make_tensor<ElementD>(Layout<int>{});
    auto thrblk_s2g = params.tma_store_d.get_slice(0);
    Tensor bSG_sD = thrblk_s2g.partition_S(sD);
    Tensor bSG_gD = thrblk_s2g.partition_D(gD);
    bool issue_tma_store = thread_idx / 32 == 0;
    auto tma_store_fn = [&](int stage, int tile) {
      cutlass::arch::fence_view_async_shared();
      synchronize();
      if (issue_tma_store)
        copy(params.tma_store_d, bSG_sD(_, stage), bSG_gD(_, tile));
    };
    for (int tile = 0; tile < tiles; ++tile) {
      int stage = tile % Stages;
      copy(tiled_r2s, tRS_rD, tRS_sD(_, stage));
      callbacks.postreduce(tile, stage);
      tma_store_fn(stage, tile);
    }
  }
};

// No fence of its own anywhere: the callback may be where it fences.
template <class ElementD, class CopyOpR2S, class CopyOpS2G, class Callbacks>
struct CallbackEpilogue {
  static constexpr int Stages = 2;
  struct TensorStorage {
    array_aligned<ElementD, Stages * 1024> smem_d;
  };
  struct Params {
    using TMA_D = decltype(make_tma_copy(CopyOpS2G{}, Layout<int>{}));
    TMA_D tma_store_d;
  };
  Params const &params;
  __device__ explicit CallbackEpilogue(Params const &p) : params(p) {}

  __device__ void store(TensorStorage &shared_tensors, Callbacks callbacks,
                        int tiles, int thread_idx) {
    Tensor sD = make_tensor(make_smem_ptr(shared_tensors.smem_d.begin()), Layout<int>{});
    Tensor gD = local_tile(params.tma_store_d.get_tma_tensor(tiles), Int<64>{}, 0);
    auto tiled_r2s = make_tiled_copy(CopyOpR2S{});
    Tensor tRS_sD = tiled_r2s.get_slice(thread_idx).partition_D(sD);
    Tensor tRS_rD = make_tensor<ElementD>(Layout<int>{});
    auto thrblk_s2g = params.tma_store_d.get_slice(0);
    for (int tile = 0; tile < tiles; ++tile) {
      copy(tiled_r2s, tRS_rD, tRS_sD(_, tile % Stages));
      callbacks.publish(tile);
      cutlass::arch::NamedBarrier::sync(128, 1);
      if (thread_idx == 0)
        copy(params.tma_store_d, thrblk_s2g.partition_S(sD)(_, tile % Stages),
             thrblk_s2g.partition_D(gD)(_, tile));
    }
  }
};
// CHECK-NOT: warning:
// CHECK: proxyfence: 1 finding in 1 file
// CHECK: stats: unresolved: {{.*}}cute-pattern-copies.cu:[[#@LINE-10]]:7: 'publish'
