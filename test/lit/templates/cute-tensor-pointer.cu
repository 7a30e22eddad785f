// A collective that nothing instantiates hands a CuTe tensor over shared
// memory to a bulk reduction as a raw pointer:
// `raw_pointer_cast(sAcc.data())` with `sAcc = make_tensor(make_smem_ptr(
// storage.smem_acc.begin()), layout)`. Lookup leaves both calls unresolved
// in the pattern; the pointer is the tensor's, so the reduction reads
// `smem_acc`, which the threads wrote with a CuTe copy just before: the fence
// is missing in the first class and present in the second. A reduction of
// another buffer meets nothing.
// RUN: not %proxyfence %s -- -I%S/Inputs -I%S/../warp-specialized/Inputs 2>&1 | FileCheck %s
// RUN: %nvcc-sm90a -I%S/Inputs -I%S/../warp-specialized/Inputs -cubin -o /dev/null %s
// REQUIRES: nvcc
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

template <class CopyOpR2S> struct UnfencedAccumEpilogue {
  struct TensorStorage {
    array_aligned<float, 1024> smem_acc;
    array_aligned<float, 1024> smem_other;
  };
  __device__ void store(TensorStorage &shared, float *gacc, int thread_idx) {
    Tensor sAcc = make_tensor(make_smem_ptr(shared.smem_acc.begin()), Layout<int>{});
    auto tiled_r2s = make_tiled_copy(CopyOpR2S{});
    Tensor tRS_sAcc = tiled_r2s.get_slice(thread_idx).partition_D(sAcc);
    Tensor tRS_rAcc = make_tensor<float>(Layout<int>{});
    copy(tiled_r2s, tRS_rAcc, tRS_sAcc);
    cutlass::arch::NamedBarrier::sync(128, 1);
    if (thread_idx == 0)
      BulkReduceAdd::copy(raw_pointer_cast(sAcc.data()), gacc, 4096);
    // CHECK: cute-tensor-pointer.cu:[[#@LINE-1]]:7: warning: bulk async reduction reads shared memory 'TensorStorage::smem_acc' written through the generic proxy with no fence.proxy.async on the path [proxyfence-tma-store]
  }
  // Writes `smem_acc`, reduces `smem_other`: nothing to fence.
  __device__ void other(TensorStorage &shared, float *gacc, int thread_idx) {
    Tensor sAcc = make_tensor(make_smem_ptr(shared.smem_acc.begin()), Layout<int>{});
    Tensor sOther = make_tensor(make_smem_ptr(shared.smem_other.begin()), Layout<int>{});
    auto tiled_r2s = make_tiled_copy(CopyOpR2S{});
    Tensor tRS_sAcc = tiled_r2s.get_slice(thread_idx).partition_D(sAcc);
    Tensor tRS_rAcc = make_tensor<float>(Layout<int>{});
    copy(tiled_r2s, tRS_rAcc, tRS_sAcc);
    cutlass::arch::NamedBarrier::sync(128, 1);
    if (thread_idx == 0)
      BulkReduceAdd::copy(raw_pointer_cast(sOther.data()), gacc, 4096);
  }
};

template <class CopyOpR2S> struct FencedAccumEpilogue {
  struct TensorStorage {
    array_aligned<float, 1024> smem_acc;
  };
  __device__ void store(TensorStorage &shared, float *gacc, int thread_idx) {
    Tensor sAcc = make_tensor(make_smem_ptr(shared.smem_acc.begin()), Layout<int>{});
    auto tiled_r2s = make_tiled_copy(CopyOpR2S{});
    Tensor tRS_sAcc = tiled_r2s.get_slice(thread_idx).partition_D(sAcc);
    Tensor tRS_rAcc = make_tensor<float>(Layout<int>{});
    copy(tiled_r2s, tRS_rAcc, tRS_sAcc);
    cutlass::arch::fence_view_async_shared();
    cutlass::arch::NamedBarrier::sync(128, 1);
    if (thread_idx == 0)
      BulkReduceAdd::copy(raw_pointer_cast(sAcc.data()), gacc, 4096);
  }
};
// CHECK-NOT: warning:
// CHECK: proxyfence: 1 finding in 1 file
