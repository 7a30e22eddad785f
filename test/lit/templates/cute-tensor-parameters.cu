// Project helpers that copy into or out of the tensors their callers pass,
// read as a header: a functor whose templated `operator()(SmemTensor &&in,
// SmemTensorOut &&out)` transposes a tile through registers (as FP8
// attention kernels transpose V), and a function template that copies a
// tile into registers. Inside them the tensors are parameters, so what the
// copies touch is decided at each call: the caller's `sVt(_, stage)` views
// shared memory, its `gO` global memory. A write through the functor before
// a TMA store of the same tile, and a read through the helper before a TMA
// load refills it, need fence.proxy.async. Negatives: the
// fenced transpose, the helper given a global tensor, and a TMA copy
// (`tma.with(barrier)`) of a parameter tensor into shared memory, which the
// threads do not write.
// RUN: not %proxyfence %s -- -I%S/Inputs -I%S/../warp-specialized/Inputs 2>&1 | FileCheck %s
// REQUIRES: nvcc
// RUN: %nvcc-sm90a -I%S/Inputs -I%S/../warp-specialized/Inputs -cubin -o /dev/null %s
#include "cute_tensors.h"
#include "ws.h"
using namespace cute;

struct LdsmOp {};
struct StsmOp {};
struct Transposer {
  using TiledCopyLDSM = decltype(make_tiled_copy(LdsmOp{}));
  using TiledCopySTSM = decltype(make_tiled_copy(StsmOp{}));
  TiledCopyLDSM tiled_copy_ldsm;
  TiledCopySTSM tiled_copy_stsm;
  template <class SmemTensor, class SmemTensorOut>
  __device__ void operator()(SmemTensor &&s_in, SmemTensorOut &&s_out) {
    auto tXsX = tiled_copy_ldsm.get_slice(threadIdx.x).partition_S(s_in);
    auto tXrX = make_tensor<float>(Layout<int>{});
    auto tXsX_out = tiled_copy_stsm.get_slice(threadIdx.x).partition_D(s_out);
    copy(tiled_copy_ldsm, tXsX, tXrX);
    copy(tiled_copy_stsm, tXrX, tXsX_out);
  }
};

template <class TiledCopy, class Src>
__device__ void load_tile(TiledCopy const &tiled_copy, Src const &src) {
  auto tSrS = make_tensor<float>(Layout<int>{});
  copy(tiled_copy, tiled_copy.get_slice(threadIdx.x).partition_S(src), tSrS);
}

// Registers to global memory through a pointer, with a layout made from a
// shape parameter: neither is a tensor of the caller's.
template <class CopyOp, class Shape>
__device__ void store_global(float *gptr, Shape const &shape) {
  auto t = make_tiled_copy(CopyOp{});
  copy(t, make_tensor<float>(Layout<int>{}), make_tensor(gptr, make_layout(shape)));
}

template <class CopyOpS2G, class CopyOpG2S, class CopyOpS2R> struct Transpose {
  struct TensorStorage {
    array_aligned<float, 1024> smem_v;
    array_aligned<float, 1024> smem_vt;
    array_aligned<float, 1024> smem_o;
  };
  struct Params {
    using TMA_Store = decltype(make_tma_copy(CopyOpS2G{}, Layout<int>{}));
    using TMA_Load = decltype(make_tma_copy(CopyOpG2S{}, Layout<int>{}));
    TMA_Store tma_store_v;
    TMA_Load tma_load_v;
  };
  Params const &params;
  __device__ void store(TensorStorage &shared, int rows) {
    Tensor sV = make_tensor(make_smem_ptr(shared.smem_v.begin()), Layout<int>{});
    Tensor sVt = make_tensor(make_smem_ptr(shared.smem_vt.begin()), Layout<int>{});
    Tensor gV = params.tma_store_v.get_tma_tensor(rows);
    auto transposer = Transposer();
    for (int stage = 0; stage < 2; ++stage)
      transposer(sV(_, stage), sVt(_, stage));
    cutlass::arch::NamedBarrier::sync(128, 1);
    auto blk = params.tma_store_v.get_slice(0);
    if (threadIdx.x == 0)
      copy(params.tma_store_v, blk.partition_S(sVt), blk.partition_D(gV));
  }
  __device__ void store_fenced(TensorStorage &shared, int rows) {
    Tensor sV = make_tensor(make_smem_ptr(shared.smem_v.begin()), Layout<int>{});
    Tensor sVt = make_tensor(make_smem_ptr(shared.smem_vt.begin()), Layout<int>{});
    Tensor gV = params.tma_store_v.get_tma_tensor(rows);
    auto transposer = Transposer();
    for (int stage = 0; stage < 2; ++stage)
      transposer(sV(_, stage), sVt(_, stage));
    cutlass::arch::fence_view_async_shared();
    cutlass::arch::NamedBarrier::sync(128, 4);
    auto blk = params.tma_store_v.get_slice(0);
    if (threadIdx.x == 0)
      copy(params.tma_store_v, blk.partition_S(sVt), blk.partition_D(gV));
  }
  // The helper reads the tile the TMA load then refills.
  __device__ void refill(TensorStorage &shared, uint64_t *bar, int rows) {
    Tensor sV = make_tensor(make_smem_ptr(shared.smem_v.begin()), Layout<int>{});
    Tensor gV = params.tma_load_v.get_tma_tensor(rows);
    auto s2r = make_tiled_copy(CopyOpS2R{});
    load_tile(s2r, sV(0));
    cutlass::arch::NamedBarrier::sync(128, 2);
    auto blk = params.tma_load_v.get_slice(0);
    if (threadIdx.x == 0)
      copy(params.tma_load_v.with(*bar), blk.partition_S(gV), blk.partition_D(sV));
  }
  // Given a global tensor, the helper reads no shared memory.
  __device__ void refill_from_global(TensorStorage &shared, float *out, uint64_t *bar, int rows) {
    Tensor sV = make_tensor(make_smem_ptr(shared.smem_v.begin()), Layout<int>{});
    Tensor gO = make_tensor(make_gmem_ptr(out), Layout<int>{});
    Tensor gV = params.tma_load_v.get_tma_tensor(rows);
    auto s2r = make_tiled_copy(CopyOpS2R{});
    load_tile(s2r, gO);
    cutlass::arch::NamedBarrier::sync(128, 3);
    auto blk = params.tma_load_v.get_slice(0);
    if (threadIdx.x == 0)
      copy(params.tma_load_v.with(*bar), blk.partition_S(gV), blk.partition_D(sV));
  }
  // The helper writes global memory only, given the tile's shape.
  __device__ void store_shape(TensorStorage &shared, float *out, int rows) {
    Tensor sO = make_tensor(make_smem_ptr(shared.smem_o.begin()), Layout<int>{});
    store_global<CopyOpS2R>(out, sO.shape());
    cutlass::arch::NamedBarrier::sync(128, 7);
    Tensor gO = params.tma_store_v.get_tma_tensor(rows);
    auto blk = params.tma_store_v.get_slice(0);
    if (threadIdx.x == 0)
      copy(params.tma_store_v, blk.partition_S(sO), blk.partition_D(gO));
  }
  // A TMA load from the caller's tensor: the threads write nothing.
  template <class GTensor>
  __device__ void load_then_store(TensorStorage &shared, GTensor const &gQ, uint64_t *bar, int rows) {
    Tensor sO = make_tensor(make_smem_ptr(shared.smem_o.begin()), Layout<int>{});
    Tensor gO = params.tma_store_v.get_tma_tensor(rows);
    if (threadIdx.x == 0)
      copy(params.tma_load_v.with(*bar), gQ, sO);
    cutlass::arch::NamedBarrier::sync(128, 6);
    auto blk = params.tma_store_v.get_slice(0);
    if (threadIdx.x == 0)
      copy(params.tma_store_v, blk.partition_S(sO), blk.partition_D(gO));
  }
};
// CHECK: cute-tensor-parameters.cu:74:7: warning: TMA store reads shared memory 'TensorStorage::smem_vt' written through the generic proxy with no fence.proxy.async on the path [proxyfence-tma-store]
// CHECK: cute-tensor-parameters.cu:33:5: note: generic-proxy write to 'TensorStorage::smem_vt' here (CuTe copy)
// CHECK: cute-tensor-parameters.cu:70:7: note: inside 'operator()', called here
// CHECK: cute-tensor-parameters.cu:98:7: warning: TMA load overwrites shared memory 'TensorStorage::smem_v' read through the generic proxy with no fence.proxy.async on the path [proxyfence-async-overwrite]
// CHECK: cute-tensor-parameters.cu:40:3: note: generic-proxy read of 'TensorStorage::smem_v' here (CuTe copy)
// CHECK: cute-tensor-parameters.cu:94:5: note: inside 'load_tile', called here
// CHECK-NOT: warning:
// CHECK: proxyfence: 2 findings in 1 file

