// A FlashAttention-3-style consumer read as a header: the class template is
// never instantiated, so CuTe's `gemm(tiled_mma, A, B, C)` stays unresolved,
// its TiledMMA being a template parameter. In code that issues `wgmma.fence`
// (`warpgroup_arrive()`) an operand partitioned from a shared-memory tensor
// is read by the async proxy, so the generic write of P before it needs
// `fence.proxy.async`; a thread barrier is not enough. The operands reach
// the MMA through a project's wrapper and `conditional_return`. Negatives:
// fenced, an SM80 MMA (no wgmma.fence), register operands, an RS fragment a
// copy fills from shared memory, a wrapper that fences before its MMA.
// RUN: cp %s %t.cu
// RUN: not %proxyfence %t.cu -- -I%S/Inputs -I%S/../warp-specialized/Inputs 2>&1 | FileCheck %s
// RUN: %proxyfence --fix --quiet %t.cu -- -I%S/Inputs -I%S/../warp-specialized/Inputs
// RUN: FileCheck --check-prefix=FIXED-SRC --input-file=%t.cu %s
// RUN: %proxyfence %t.cu -- -I%S/Inputs -I%S/../warp-specialized/Inputs 2>&1 | FileCheck --check-prefix=FIXED %s
// REQUIRES: nvcc
// RUN: %nvcc-sm90a -I%S/Inputs -I%S/../warp-specialized/Inputs -cubin -o /dev/null %s
#include "cute_tensors.h"
#include "ws.h"
using namespace cute;

namespace flash {
// The project's wrapper: fences the accumulator registers, issues the MMA.
template <bool zero_init, class TiledMma, class TA, class TB, class TC>
__device__ void gemm(TiledMma &tiled_mma, TA const &tCrA, TB const &tCrB, TC &tCrC) {
  warpgroup_arrive();
  cute::gemm(tiled_mma, tCrA(_, _, 0), tCrB(_, _, 0), tCrC);
  warpgroup_commit_batch();
}
} // namespace flash

template <class Element, class MmaAtom, class CopyOpP, bool MmaPV_is_RS>
struct Consumer {
  struct SharedStorage {
    array_aligned<Element, 4096> smem_p;
    array_aligned<Element, 4096> smem_v;
  };

  __device__ void mma(SharedStorage &shared_storage, int thread_idx) {
    TiledMMA<MmaAtom> tiled_mma_pv;
    Tensor sP = make_tensor(make_smem_ptr(shared_storage.smem_p.begin()), Layout<int>{});
    Tensor sV = make_tensor(make_smem_ptr(shared_storage.smem_v.begin()), Layout<int>{});
    auto wg_mma_pv = tiled_mma_pv.get_thread_slice(thread_idx);
    Tensor tOrV = wg_mma_pv.partition_fragment_B(sV);
    Tensor tOsP = wg_mma_pv.partition_fragment_A(sP);
    Tensor tOrO = wg_mma_pv.partition_fragment_C(make_tensor<float>(Layout<int>{}));
    Tensor tOrP = make_tensor<Element>(Layout<int>{});
    auto smem_tiled_copy_P = make_tiled_copy(CopyOpP{});
    Tensor tPsP = smem_tiled_copy_P.get_slice(thread_idx).partition_D(sP);
    copy(smem_tiled_copy_P, tOrP, tPsP);
    cutlass::arch::NamedBarrier::sync(256, 1);
    flash::gemm<false>(tiled_mma_pv, conditional_return<MmaPV_is_RS>(tOrP, tOsP), tOrV(_, _, _, 0), tOrO);
    // CHECK: {{.*}}.cu:[[#@LINE-1]]:5: warning: wgmma reads shared memory 'SharedStorage::smem_p' as an operand, written through the generic proxy
    // CHECK: {{.*}}.cu:[[#@LINE-4]]:5: note: generic-proxy write to 'SharedStorage::smem_p' here (CuTe copy)
  }

  // The same write fenced before the barrier, as FlashAttention-3 does.
  __device__ void fenced(SharedStorage &shared_storage, int thread_idx) {
    TiledMMA<MmaAtom> tiled_mma_pv;
    Tensor sP = make_tensor(make_smem_ptr(shared_storage.smem_p.begin()), Layout<int>{});
    auto wg_mma_pv = tiled_mma_pv.get_thread_slice(thread_idx);
    Tensor tOsP = wg_mma_pv.partition_fragment_A(sP);
    Tensor tOrO = make_tensor<float>(Layout<int>{});
    Tensor tOrP = make_tensor<Element>(Layout<int>{});
    auto smem_tiled_copy_P = make_tiled_copy(CopyOpP{});
    copy(smem_tiled_copy_P, tOrP, smem_tiled_copy_P.get_slice(thread_idx).partition_D(sP));
    cutlass::arch::fence_view_async_shared();
    cutlass::arch::NamedBarrier::sync(256, 4);
    warpgroup_arrive();
    cute::gemm(tiled_mma_pv, tOsP(_, _, 0), tOsP(_, _, 0), tOrO);
  }

  // A direct CuTe gemm reading V, written by the threads without a fence.
  __device__ void direct(SharedStorage &shared_storage, int thread_idx) {
    TiledMMA<MmaAtom> tiled_mma;
    Tensor sV = make_tensor(make_smem_ptr(shared_storage.smem_v.begin()), Layout<int>{});
    auto thr_mma = tiled_mma.get_thread_slice(thread_idx);
    Tensor tCrB = thr_mma.partition_fragment_B(sV);
    Tensor tCrA = make_tensor<Element>(Layout<int>{});
    Tensor acc = make_tensor<float>(Layout<int>{});
    auto r2s = make_tiled_copy(CopyOpP{});
    copy(r2s, tCrA, r2s.get_slice(thread_idx).partition_D(sV));
    cutlass::arch::NamedBarrier::sync(256, 2);
    warpgroup_arrive();
    cute::gemm(tiled_mma, tCrA, tCrB(_, _, 0), acc);
    // CHECK: {{.*}}.cu:[[#@LINE-1]]:5: warning: wgmma reads shared memory 'SharedStorage::smem_v' as an operand, written through the generic proxy
  }

  // No wgmma.fence here: an SM80 MMA, whose fragments of shared tensors are
  // register copies; the async proxy reads nothing.
  __device__ void sm80(SharedStorage &shared_storage, int thread_idx) {
    TiledMMA<MmaAtom> tiled_mma;
    Tensor sV = make_tensor(make_smem_ptr(shared_storage.smem_v.begin()), Layout<int>{});
    Tensor tCrB = tiled_mma.get_thread_slice(thread_idx).partition_fragment_B(sV);
    Tensor tCrA = make_tensor<Element>(Layout<int>{});
    Tensor acc = make_tensor<float>(Layout<int>{});
    auto r2s = make_tiled_copy(CopyOpP{});
    copy(r2s, tCrA, r2s.get_slice(thread_idx).partition_D(sV));
    __syncthreads();
    cute::gemm(tiled_mma, tCrA, tCrB, acc);
  }

  // Register operands (the RS form): P never leaves the registers.
  __device__ void registers(SharedStorage &shared_storage, int thread_idx) {
    TiledMMA<MmaAtom> tiled_mma;
    Tensor sP = make_tensor(make_smem_ptr(shared_storage.smem_p.begin()), Layout<int>{});
    Tensor tOrP = make_tensor<Element>(Layout<int>{});
    Tensor acc = make_tensor<float>(Layout<int>{});
    auto r2s = make_tiled_copy(CopyOpP{});
    copy(r2s, tOrP, r2s.get_slice(thread_idx).partition_D(sP));
    cutlass::arch::NamedBarrier::sync(256, 3);
    flash::gemm<true>(tiled_mma, tOrP, tOrP, acc);
  }
};

// An RS MMA: the fragment partitioned from sQ is filled from shared memory
// by a copy, so it holds registers; the MMA reads no shared memory.
template <class Element, class MmaAtom, class CopyOp>
struct RegistersFromSmem {
  struct SharedStorage {
    array_aligned<Element, 4096> smem_q;
  };
  __device__ void mma(SharedStorage &shared_storage, int thread_idx) {
    TiledMMA<MmaAtom> tiled_mma;
    Tensor sQ = make_tensor(make_smem_ptr(shared_storage.smem_q.begin()), Layout<int>{});
    Tensor tSrQ = tiled_mma.get_thread_slice(thread_idx).partition_fragment_A(sQ);
    Tensor acc = make_tensor<float>(Layout<int>{});
    auto s2r = make_tiled_copy(CopyOp{});
    copy(s2r, tSrQ, s2r.get_slice(thread_idx).partition_D(sQ)); // a write to sQ
    copy(s2r, s2r.get_slice(thread_idx).partition_S(sQ), s2r.get_slice(thread_idx).retile_D(tSrQ));
    cutlass::arch::NamedBarrier::sync(256, 5);
    warpgroup_arrive();
    cute::gemm(tiled_mma, tSrQ, tSrQ, acc);
  }
};

namespace flash {
// A wrapper that fences before its MMA: its operands are fenced.
template <class TiledMma, class TA, class TB, class TC>
__device__ void fenced_gemm(TiledMma &tiled_mma, TA const &tCrA, TB const &tCrB, TC &tCrC) {
  cutlass::arch::fence_view_async_shared();
  cutlass::arch::NamedBarrier::sync(256, 6);
  warpgroup_arrive();
  cute::gemm(tiled_mma, tCrA, tCrB, tCrC);
}
} // namespace flash

template <class Element, class MmaAtom, class CopyOpP>
struct FencingWrapper {
  struct SharedStorage {
    array_aligned<Element, 4096> smem_p;
  };
  __device__ void mma(SharedStorage &shared_storage, int thread_idx) {
    TiledMMA<MmaAtom> tiled_mma;
    Tensor sP = make_tensor(make_smem_ptr(shared_storage.smem_p.begin()), Layout<int>{});
    Tensor tOsP = tiled_mma.get_thread_slice(thread_idx).partition_fragment_A(sP);
    Tensor tOrP = make_tensor<Element>(Layout<int>{});
    Tensor acc = make_tensor<float>(Layout<int>{});
    auto r2s = make_tiled_copy(CopyOpP{});
    copy(r2s, tOrP, r2s.get_slice(thread_idx).partition_D(sP));
    flash::fenced_gemm(tiled_mma, tOsP, tOsP, acc);
  }
};
// CHECK-NOT: warning:
// CHECK: proxyfence: 2 findings in 1 file
// FIXED: proxyfence: 0 findings in 1 file
// The fix fences each write before the barrier that precedes the MMA.
// FIXED-SRC: copy(smem_tiled_copy_P, tOrP, tPsP);
// FIXED-SRC-NEXT: cutlass::arch::fence_view_async_shared();
// FIXED-SRC-NEXT: cutlass::arch::NamedBarrier::sync(256, 1);
// FIXED-SRC: copy(r2s, tCrA, r2s.get_slice(thread_idx).partition_D(sV));
// FIXED-SRC-NEXT: cutlass::arch::fence_view_async_shared();
// FIXED-SRC-NEXT: cutlass::arch::NamedBarrier::sync(256, 2);
