// A collective epilogue read as a header, whose producer and consumer roles
// are members nothing in the file calls: `load()` acquires a stage of the
// C pipeline and refills it with a TMA load; `store()` waits for the stage,
// copies it into registers and releases it. The pipeline's type depends on
// the class's template values (`PipelineTmaAsync<Stages>`): its methods are
// read from the class template's pattern, which says which barrier each one
// waits on or arrives at. The release must follow a fence: the refilling
// TMA load is an async-proxy write after generic-proxy reads (the PTX ISA's
// async proxy, 9.7.9.25.2; the CUTLASS epilogue's fence before
// `consumer_release`).
// RUN: not %proxyfence --stats %s -- -I%S/Inputs -I%S/../warp-specialized/Inputs 2>&1 | FileCheck %s
// REQUIRES: nvcc
// RUN: %nvcc-sm90a -I%S/Inputs -I%S/../warp-specialized/Inputs -cubin -o /dev/null %s
#include "cute_tensors.h"
#include "pipeline.h"
using namespace cute;

template <class Element, class CopyOpG2S, class CopyOpS2R, class Callbacks,
          int Stages>
struct UnfencedReleaseEpilogue {
  using LoadPipeline = pipe::PipelineTmaAsync<Stages>;
  using LoadPipelineState = pipe::PipelineState<Stages>;
  struct TensorStorage {
    array_aligned<Element, Stages * 1024> smem_c;
  };
  struct Params {
    using TMA_C = decltype(make_tma_copy(CopyOpG2S{}, Layout<int>{}));
    TMA_C tma_load_c;
  };
  Params const &params;
  __device__ explicit UnfencedReleaseEpilogue(Params const &p) : params(p) {}

  __device__ void load(LoadPipeline load_pipeline, LoadPipelineState state,
                       TensorStorage &shared_tensors, int tiles) {
    Tensor gC = local_tile(params.tma_load_c.get_tma_tensor(tiles), Int<64>{}, 0);
    Tensor sC = make_tensor(make_smem_ptr(shared_tensors.smem_c.begin()), Layout<int>{});
    auto thrblk_g2s = params.tma_load_c.get_slice(0);
    Tensor bGS_gC = thrblk_g2s.partition_S(gC);
    Tensor bGS_sC = thrblk_g2s.partition_D(sC);
    for (int tile = 0; tile < tiles; ++tile) {
      uint64_t *tma_barrier = load_pipeline.producer_get_barrier(state);
      load_pipeline.producer_acquire(state);
      if (threadIdx.x % 128 == 0)
        copy(params.tma_load_c.with(*tma_barrier), bGS_gC(_, tile), bGS_sC(_, state.index()));
      // CHECK: cute-pattern-roles.cu:[[#@LINE-1]]:9: warning: TMA load overwrites shared memory 'TensorStorage::smem_c' read through the generic proxy
      load_pipeline.producer_commit(state);
      ++state;
    }
  }

  __device__ float store(LoadPipeline load_pipeline, LoadPipelineState state,
                         TensorStorage &shared_tensors, Callbacks callbacks,
                         int tiles, int thread_idx) {
    Tensor sC = make_tensor(make_smem_ptr(shared_tensors.smem_c.begin()), Layout<int>{});
    auto tiled_s2r = make_tiled_copy(CopyOpS2R{});
    Tensor tSR_sC = tiled_s2r.get_slice(thread_idx).partition_S(sC);
    Tensor tSR_rC = make_tensor<Element>(Layout<int>{});
    for (int tile = 0; tile < tiles; ++tile) {
      load_pipeline.consumer_wait(state);
      copy(tiled_s2r, tSR_sC(_, state.index()), tSR_rC);
      callbacks.previsit(tile);
      load_pipeline.consumer_release(state);
      // CHECK: cute-pattern-roles.cu:[[#@LINE-3]]:7: note: generic-proxy read of 'TensorStorage::smem_c' here (CuTe copy)
      // CHECK: cute-pattern-roles.cu:[[#@LINE-2]]:7: note: this barrier orders threads, not proxies; insert the fence before it
      ++state;
    }
    cutlass::arch::fence_view_async_shared();
    return 0.f;
  }
};

// The same roles with the fence before the release.
template <class Element, class CopyOpG2S, class CopyOpS2R, class Callbacks,
          int Stages>
struct FencedReleaseEpilogue {
  using LoadPipeline = pipe::PipelineTmaAsync<Stages>;
  using LoadPipelineState = pipe::PipelineState<Stages>;
  struct TensorStorage {
    array_aligned<Element, Stages * 1024> smem_c;
  };
  struct Params {
    using TMA_C = decltype(make_tma_copy(CopyOpG2S{}, Layout<int>{}));
    TMA_C tma_load_c;
  };
  Params const &params;
  __device__ explicit FencedReleaseEpilogue(Params const &p) : params(p) {}

  __device__ void load(LoadPipeline load_pipeline, LoadPipelineState state,
                       TensorStorage &shared_tensors, int tiles) {
    Tensor gC = local_tile(params.tma_load_c.get_tma_tensor(tiles), Int<64>{}, 0);
    Tensor sC = make_tensor(make_smem_ptr(shared_tensors.smem_c.begin()), Layout<int>{});
    auto thrblk_g2s = params.tma_load_c.get_slice(0);
    Tensor bGS_gC = thrblk_g2s.partition_S(gC);
    Tensor bGS_sC = thrblk_g2s.partition_D(sC);
    for (int tile = 0; tile < tiles; ++tile) {
      uint64_t *tma_barrier = load_pipeline.producer_get_barrier(state);
      load_pipeline.producer_acquire(state);
      if (threadIdx.x % 128 == 0)
        copy(params.tma_load_c.with(*tma_barrier), bGS_gC(_, tile), bGS_sC(_, state.index()));
      load_pipeline.producer_commit(state);
      ++state;
    }
  }

  __device__ float store(LoadPipeline load_pipeline, LoadPipelineState state,
                         TensorStorage &shared_tensors, Callbacks callbacks,
                         int tiles, int thread_idx) {
    Tensor sC = make_tensor(make_smem_ptr(shared_tensors.smem_c.begin()), Layout<int>{});
    auto tiled_s2r = make_tiled_copy(CopyOpS2R{});
    Tensor tSR_sC = tiled_s2r.get_slice(thread_idx).partition_S(sC);
    Tensor tSR_rC = make_tensor<Element>(Layout<int>{});
    for (int tile = 0; tile < tiles; ++tile) {
      load_pipeline.consumer_wait(state);
      copy(tiled_s2r, tSR_sC(_, state.index()), tSR_rC);
      callbacks.previsit(tile);
      cutlass::arch::fence_view_async_shared();
      load_pipeline.consumer_release(state);
      ++state;
    }
    return 0.f;
  }
};
// CHECK-NOT: warning:
// CHECK: proxyfence: 1 finding in 1 file
// CHECK: stats: role synchronisations matched: 0 named barrier, 1 mbarrier; unmatched: 0
