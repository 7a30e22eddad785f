//===- CuteCopies.h - CuTe copies in template patterns ---------------------===//
//
// In a class template that the translation unit never instantiates (a
// CUTLASS collective read as a header), `copy(atom, src, dst)` resolves to
// nothing: the copy operation is a template parameter. What the call does to
// shared memory is still written in the pattern, in the tensors it copies
// between, whose construction CuTe's API spells:
// - a shared-memory tensor views `make_smem_ptr(p)`;
// - a register tensor owns its elements: `make_tensor<T>(layout)`,
//   `make_fragment_like`, `make_tensor_like`, `partition_fragment_*`;
// - a TMA tensor holds coordinates, not memory: `tma.get_tma_tensor(shape)`;
// - every other view (`partition_S/D`, `retile_S/D`, `local_tile`,
//   `flat_divide`, `domain_offset(coord, t)`, `t(_, _, stage)`,
//   `make_tensor(view, layout)`) is a view of its first tensor argument,
//   or, called with none, of its object;
// - a parameter of the function (a helper's or a functor's tensor) is
//   whatever the caller passes: its memory is decided at each call.
// No async-proxy instruction moves data between registers and shared
// memory, so such a copy is a generic-proxy access; one between a TMA tensor
// and shared memory can only be a TMA (cp.async.bulk.tensor) copy. Any other
// copy stays unknown.
//
// CuTe's `gemm(mma, A, B, C)` with a TiledMMA of template-parameter type is
// unresolved the same way. In code that issues `wgmma.fence` (a warpgroup
// MMA: `warpgroup_arrive()`), an operand the MMA partitions from a
// shared-memory tensor (`thr_mma.partition_fragment_A(sP)`) is a wgmma
// descriptor: the async proxy reads that memory. A register operand
// (`make_tensor_like(acc)`) reads none, nor does a fragment a copy fills
// (an RS MMA's A, loaded by the threads). Helpers that pass operands through
// (`conditional_return<RS>(rP, sP)`, a project's `gemm(tiled_mma, a, b, c)`
// wrapper) are read through their bodies.
//
//===----------------------------------------------------------------------===//
#ifndef PROXYFENCE_CUTECOPIES_H
#define PROXYFENCE_CUTECOPIES_H

#include "model/Memory.h"
#include "clang/AST/Expr.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include <functional>
#include <optional>

namespace proxyfence {

struct CuteCopy {
  enum KindT { GenericWrite, GenericRead, TmaStore, TmaLoad } Kind;
  /// The shared memory the copy reads or writes.
  AliasSet Mem;
};

/// What the unresolved CuTe copy \p Call in the pattern \p Fn does to shared
/// memory, when its tensors say; none otherwise (not CuTe's `copy`, or
/// tensors of unknown kind).
std::optional<CuteCopy> cuteCopyOf(const clang::CallExpr *Call,
                                   const clang::FunctionDecl *Fn,
                                   MemoryModel &Memory);

/// A CuTe `gemm` of a warpgroup MMA in a pattern.
struct CuteMma {
  /// The shared memory its A and B operands view (empty: registers, or
  /// operands the function's caller passes).
  AliasSet Mem;
  /// The function's parameters passed as the A or B operand.
  llvm::SmallVector<unsigned, 2> ParamOperands;
};

/// Reads CuTe MMAs of patterns, remembering per function what its body says.
class CuteMmaReader {
public:
  explicit CuteMmaReader(MemoryModel &Memory) : Memory(Memory) {}
  /// What the unresolved `gemm(mma, [D,] A, B, C)` \p Call of CuTe in \p Fn
  /// reads, when \p Fn issues `wgmma.fence`; none otherwise.
  std::optional<CuteMma> mmaOf(const clang::CallExpr *Call,
                               const clang::FunctionDecl *Fn);
  /// The parameters of \p F (a definition) that reach the A or B operand of
  /// a warpgroup MMA in its body, directly or through wrappers it calls.
  llvm::SmallVector<unsigned, 2> operandParams(const clang::FunctionDecl *F);
  /// The shared memory that \p Arg, an argument \p Fn passes as an MMA
  /// operand, views (empty when it is registers or unknown).
  AliasSet operandMemory(const clang::Expr *Arg,
                         const clang::FunctionDecl *Fn);

private:
  /// Whether \p Fn's body, or a function it calls, has asm containing
  /// \p Needle.
  bool issuesAsm(const clang::FunctionDecl *Fn, llvm::StringRef Needle,
                 llvm::DenseMap<const clang::FunctionDecl *, bool> &Memo);
  /// Whether a CuTe copy in \p Fn writes into the local \p V.
  bool filledByCopy(const clang::VarDecl *V, const clang::FunctionDecl *Fn);
  std::function<bool(const clang::VarDecl *, const clang::FunctionDecl *)>
      FilledByCopy = [this](const clang::VarDecl *V,
                            const clang::FunctionDecl *Fn) {
        return filledByCopy(V, Fn);
      };
  MemoryModel &Memory;
  llvm::DenseMap<const clang::FunctionDecl *, bool> WgmmaFence, ProxyFence;
  llvm::DenseMap<const clang::VarDecl *, bool> CopyFilled;
  llvm::DenseMap<const clang::FunctionDecl *, llvm::SmallVector<unsigned, 2>>
      Params;
};

/// The shared memory \p E points into when it is the iterator of a CuTe
/// tensor made over shared memory (`sD.data()`, `sD(_, stage).begin()`), or
/// a one-argument conversion of one (`raw_pointer_cast(sD.data())`); empty
/// otherwise.
AliasSet cuteTensorPointee(const clang::Expr *E, const clang::FunctionDecl *Fn,
                           MemoryModel &Memory);

} // namespace proxyfence

#endif
