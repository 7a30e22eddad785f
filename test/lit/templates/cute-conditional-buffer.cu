// A consumer read as a header whose MMA operand views one of two buffers,
// chosen by a template constant: `make_smem_ptr(Fp8 ? s.smem_v_out.data()
// : s.smem_v.data())` (FP8 kernels read the transposed copy of V). Either
// buffer is the operand, so the generic write of `smem_v_out` before the
// barrier reaches the wgmma that may read it: fence.proxy.async is needed.
// The storage is of template-parameter type, so `.begin()` is left to the
// pattern's reading. Negatives: a write of a buffer neither arm names, and
// a condition that is a constant already, whose other arm is not read.
// RUN: not %proxyfence %s -- -I%S/Inputs -I%S/../warp-specialized/Inputs 2>&1 | FileCheck %s
// REQUIRES: nvcc
// RUN: %nvcc-sm90a -I%S/Inputs -I%S/../warp-specialized/Inputs -cubin -o /dev/null %s
#include "cute_tensors.h"
#include "ws.h"
using namespace cute;

template <class Element, class MmaAtom, class CopyOpV, bool Fp8>
struct Consumer {
  // Writes `smem_v_out` (\p OutBuffer) or `smem_other`, then the MMA.
  template <bool OutBuffer, class SharedStorage>
  __device__ void mma(SharedStorage &shared_storage, int thread_idx) {
    TiledMMA<MmaAtom> tiled_mma;
    Tensor sW = make_tensor(make_smem_ptr(OutBuffer ? shared_storage.smem_v_out.begin()
                                                    : shared_storage.smem_other.begin()),
                            Layout<int>{});
    Tensor sVt = make_tensor(make_smem_ptr(Fp8 ? shared_storage.smem_v_out.begin()
                                               : shared_storage.smem_v.begin()),
                             Layout<int>{});
    auto thr_mma = tiled_mma.get_thread_slice(thread_idx);
    Tensor tOrV = thr_mma.partition_fragment_B(sVt);
    Tensor tOrP = make_tensor<Element>(Layout<int>{});
    Tensor tOrO = make_tensor<float>(Layout<int>{});
    auto w = make_tiled_copy(CopyOpV{});
    copy(w, make_tensor<Element>(Layout<int>{}), w.get_slice(thread_idx).partition_D(sW));
    cutlass::arch::NamedBarrier::sync(128, 1);
    warpgroup_arrive();
    gemm(tiled_mma, tOrP, tOrV, tOrO);
    warpgroup_commit_batch();
  }
  // A condition the pattern already knows: only the buffer it picks.
  template <class SharedStorage>
  __device__ void known(SharedStorage &shared_storage, int thread_idx) {
    static constexpr bool Transposed = false;
    TiledMMA<MmaAtom> tiled_mma;
    Tensor sW = make_tensor(make_smem_ptr(shared_storage.smem_v_out.begin()), Layout<int>{});
    Tensor sVt = make_tensor(make_smem_ptr(Transposed ? shared_storage.smem_v_out.begin()
                                                      : shared_storage.smem_v.begin()),
                             Layout<int>{});
    Tensor tOrV = tiled_mma.get_thread_slice(thread_idx).partition_fragment_B(sVt);
    Tensor tOrP = make_tensor<Element>(Layout<int>{});
    Tensor tOrO = make_tensor<float>(Layout<int>{});
    auto w = make_tiled_copy(CopyOpV{});
    copy(w, make_tensor<Element>(Layout<int>{}), w.get_slice(thread_idx).partition_D(sW));
    cutlass::arch::NamedBarrier::sync(128, 3);
    warpgroup_arrive();
    gemm(tiled_mma, tOrP, tOrV, tOrO);
    warpgroup_commit_batch();
  }
  template <class SharedStorage>
  __device__ void other(SharedStorage &shared_storage, int thread_idx) {
    TiledMMA<MmaAtom> tiled_mma;
    Tensor sW = make_tensor(make_smem_ptr(shared_storage.smem_other.begin()), Layout<int>{});
    Tensor sVt = make_tensor(make_smem_ptr(Fp8 ? shared_storage.smem_v_out.begin()
                                               : shared_storage.smem_v.begin()),
                             Layout<int>{});
    auto thr_mma = tiled_mma.get_thread_slice(thread_idx);
    Tensor tOrV = thr_mma.partition_fragment_B(sVt);
    Tensor tOrP = make_tensor<Element>(Layout<int>{});
    Tensor tOrO = make_tensor<float>(Layout<int>{});
    auto w = make_tiled_copy(CopyOpV{});
    copy(w, make_tensor<Element>(Layout<int>{}), w.get_slice(thread_idx).partition_D(sW));
    cutlass::arch::NamedBarrier::sync(128, 2);
    warpgroup_arrive();
    gemm(tiled_mma, tOrP, tOrV, tOrO);
    warpgroup_commit_batch();
  }
};
// CHECK: cute-conditional-buffer.cu:36:5: warning: wgmma reads shared memory 'shared_storage.smem_v_out' or 'shared_storage.smem_other' as an operand, written through the generic proxy
// CHECK-NOT: warning:
// CHECK: proxyfence: 1 finding in 1 file
