// Named-barrier ids that look like rows but are no hand-off between roles
// (see named-barrier-rows.cu for the rows that are): each warp group
// syncing its own entry of a row (`1 + warp_group_idx`, no role walks the
// row); a template constant plus a literal (`kOther + 1`: a constant of the
// instantiation, not an index); and one id synchronised with two different
// thread counts (one barrier instance counts one number of threads), the
// producer walking the row with 32 threads, the consumers at 128. In
// each class the real hand-off is fenced, so nothing is reported.
// RUN: %proxyfence %s -- -I%S/Inputs -I%S/../warp-specialized/Inputs 2>&1 | FileCheck %s
// REQUIRES: nvcc
// RUN: %nvcc-sm90a -I%S/Inputs -I%S/../warp-specialized/Inputs -cubin -o /dev/null %s
#include "cute_tensors.h"
#include "ws.h"
using namespace cute;

template <class CopyOpG2S, class CopyOpS2R> struct OwnRows {
  struct TensorStorage { array_aligned<float, 1024> smem_v; };
  struct Params {
    using TMA_Load = decltype(make_tma_copy(CopyOpG2S{}, Layout<int>{}));
    TMA_Load tma_load_v;
  };
  Params const &params;
  __device__ void load(TensorStorage &shared, uint64_t *full, uint64_t *empty, int rows) {
    int warp_group_idx = threadIdx.x / 128;
    Tensor sV = make_tensor(make_smem_ptr(shared.smem_v.begin()), Layout<int>{});
    Tensor gV = params.tma_load_v.get_tma_tensor(rows);
    auto blk = params.tma_load_v.get_slice(0);
    for (int k = 0; k < rows; ++k) {
      mbar_wait(empty, k & 1);
      named_sync(1 + warp_group_idx, 128);   // producer group's own barrier
      if (threadIdx.x == 0)
        copy(params.tma_load_v.with(*full), blk.partition_S(gV), blk.partition_D(sV));
    }
  }
  __device__ void mma(TensorStorage &shared, uint64_t *full, uint64_t *empty, int rows) {
    int warp_group_idx = threadIdx.x / 128;
    Tensor sV = make_tensor(make_smem_ptr(shared.smem_v.begin()), Layout<int>{});
    auto s2r = make_tiled_copy(CopyOpS2R{});
    Tensor tXsV = s2r.get_slice(threadIdx.x).partition_S(sV);
    Tensor tXrV = make_tensor<float>(Layout<int>{});
    for (int k = 0; k < rows; ++k) {
      mbar_wait(full, k & 1);
      copy(s2r, tXsV, tXrV);                 // generic read of sV
      named_sync(1 + warp_group_idx, 128);   // consumer group's own barrier
      cutlass::arch::fence_view_async_shared();
      mbar_arrive(empty);
    }
  }
};

template <class CopyOpG2S, class CopyOpS2R, int kEmpty, int kOther> struct ConstantPlusLiteral {
  struct TensorStorage { array_aligned<float, 1024> smem_v; };
  struct Params {
    using TMA_Load = decltype(make_tma_copy(CopyOpG2S{}, Layout<int>{}));
    TMA_Load tma_load_v;
  };
  Params const &params;
  __device__ void load(TensorStorage &shared, uint64_t *full, int rows) {
    Tensor sV = make_tensor(make_smem_ptr(shared.smem_v.begin()), Layout<int>{});
    Tensor gV = params.tma_load_v.get_tma_tensor(rows);
    auto blk = params.tma_load_v.get_slice(0);
    for (int k = 0; k < rows; ++k) {
      named_sync(kEmpty + 1, 256);           // the real hand-off
      if (threadIdx.x == 0)
        copy(params.tma_load_v.with(*full), blk.partition_S(gV), blk.partition_D(sV));
    }
  }
  __device__ void mma(TensorStorage &shared, uint64_t *full, int rows) {
    Tensor sV = make_tensor(make_smem_ptr(shared.smem_v.begin()), Layout<int>{});
    auto s2r = make_tiled_copy(CopyOpS2R{});
    Tensor tXsV = s2r.get_slice(threadIdx.x).partition_S(sV);
    Tensor tXrV = make_tensor<float>(Layout<int>{});
    for (int k = 0; k < rows; ++k) {
      mbar_wait(full, k & 1);
      copy(s2r, tXsV, tXrV);                 // generic read of sV
      cutlass::arch::fence_view_async_shared();
      named_arrive(kEmpty + 1, 256);         // fenced hand-off
      copy(s2r, tXsV, tXrV);                 // read again, after the hand-off
      named_sync(kOther + 1, 128);           // consumers only; the producer never uses it
    }
  }
};

template <class CopyOpG2S, class CopyOpS2R> struct CountMismatch {
  struct TensorStorage { array_aligned<float, 1024> smem_v; };
  struct Params {
    using TMA_Load = decltype(make_tma_copy(CopyOpG2S{}, Layout<int>{}));
    TMA_Load tma_load_v;
  };
  Params const &params;
  __device__ void load(TensorStorage &shared, uint64_t *full, uint64_t *empty, int rows) {
    int warp_group_idx = threadIdx.x / 128;
    Tensor sV = make_tensor(make_smem_ptr(shared.smem_v.begin()), Layout<int>{});
    Tensor gV = params.tma_load_v.get_tma_tensor(rows);
    auto blk = params.tma_load_v.get_slice(0);
    for (int k = 0; k < rows; ++k) {
      mbar_wait(empty, k & 1);
      for (int g = 0; g < 2; ++g)            // walks the row, 32 threads
        asm volatile("bar.sync %0, 32;" :: "r"(1 + g) : "memory");
      if (threadIdx.x == 0)
        copy(params.tma_load_v.with(*full), blk.partition_S(gV), blk.partition_D(sV));
    }
  }
  __device__ void mma(TensorStorage &shared, uint64_t *full, uint64_t *empty, int rows) {
    int warp_group_idx = threadIdx.x / 128;
    Tensor sV = make_tensor(make_smem_ptr(shared.smem_v.begin()), Layout<int>{});
    auto s2r = make_tiled_copy(CopyOpS2R{});
    Tensor tXsV = s2r.get_slice(threadIdx.x).partition_S(sV);
    Tensor tXrV = make_tensor<float>(Layout<int>{});
    for (int k = 0; k < rows; ++k) {
      mbar_wait(full, k & 1);
      copy(s2r, tXsV, tXrV);                 // generic read of sV
      asm volatile("bar.sync %0, 128;" :: "r"(1 + warp_group_idx) : "memory");
      cutlass::arch::fence_view_async_shared();
      mbar_arrive(empty);
    }
  }
};
// CHECK-NOT: warning:
// CHECK: proxyfence: 0 findings in 1 file
