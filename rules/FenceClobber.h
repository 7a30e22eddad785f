//===- FenceClobber.h - fences the compiler may reorder around -------------===//
//
// proxyfence-fence-clobber. An inline asm that emits fence.proxy.async*
// orders the proxies in hardware, but without a "memory" clobber the
// compiler sees no memory effect and may move ordinary C++ shared-memory
// stores across the asm statement. (fence.mbarrier_init orders only
// mbarrier.init, itself volatile asm: it is never reported.) The fence is still a
// fence to the proxy analysis (its PTX is right); this rule reports the
// compiler-ordering hazard of the wrapper, once, where it is written.
//
//===----------------------------------------------------------------------===//
#ifndef PROXYFENCE_FENCECLOBBER_H
#define PROXYFENCE_FENCECLOBBER_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Stmt.h"
#include "clang/Tooling/Core/Replacement.h"
#include "llvm/ADT/ArrayRef.h"
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace proxyfence {
class MemoryModel;

struct ClobberFinding {
  const clang::GCCAsmStmt *Asm;
  /// The fence opcode the asm emits, e.g. "fence.proxy.async.shared::cta".
  std::string Fence;
  /// The function that holds the asm (the wrapper).
  const clang::FunctionDecl *Wrapper;
  /// Calls of the wrapper in the analysed code, in source order.
  std::vector<const clang::Expr *> Calls;
  /// Adds the clobber; none when the asm is written in a macro.
  std::optional<clang::tooling::Replacement> Fix;
  std::string NoFixReason;
};

/// Clobber-less fence.proxy.async asm statements in the functions reachable
/// from \p Roots (through calls of functions with bodies), written where
/// \p Editable allows, that analysed code relies on after a C++
/// shared-memory access (\p Memory says which accesses are shared): in the
/// function holding the asm, or at a call of it. Each statement once, in
/// source order.
std::vector<ClobberFinding>
findClobberlessFences(clang::ASTContext &Ctx, MemoryModel &Memory,
                      llvm::ArrayRef<const clang::FunctionDecl *> Roots,
                      const std::function<bool(clang::SourceLocation)> &Editable);

/// The warning text of a finding.
std::string clobberMessage(const ClobberFinding &F);

} // namespace proxyfence

#endif
