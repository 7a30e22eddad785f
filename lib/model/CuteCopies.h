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
//   `flat_divide`, `t(_, _, stage)`, `make_tensor(view, layout)`) is a view
//   of its first argument, or, called with none, of its object.
// No async-proxy instruction moves data between registers and shared
// memory, so such a copy is a generic-proxy access; one between a TMA tensor
// and shared memory can only be a TMA (cp.async.bulk.tensor) copy. Any other
// copy stays unknown.
//
//===----------------------------------------------------------------------===//
#ifndef PROXYFENCE_CUTECOPIES_H
#define PROXYFENCE_CUTECOPIES_H

#include "model/Memory.h"
#include "clang/AST/Expr.h"
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

/// The shared memory \p E points into when it is the iterator of a CuTe
/// tensor made over shared memory (`sD.data()`, `sD(_, stage).begin()`), or
/// a one-argument conversion of one (`raw_pointer_cast(sD.data())`); empty
/// otherwise.
AliasSet cuteTensorPointee(const clang::Expr *E, const clang::FunctionDecl *Fn,
                           MemoryModel &Memory);

} // namespace proxyfence

#endif
