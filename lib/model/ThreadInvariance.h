//===- ThreadInvariance.h - values a thread computes the same every time --===//
//
// A persistent kernel dispatches its roles inside the tile loop:
//   for (tile...) { if (warpgroup_idx == 0) producer(); else consumer(); }
// The CFG joins the two arms through the loop's back edge, yet no thread
// ever takes both: the condition reads only the thread's identity. Such a
// condition is thread-invariant: built from thread, block and cluster
// indices (threadIdx, %laneid, elect.sync, __shfl_sync of such a value),
// constants, parameters and variables never written after their
// initialisation, and calls of functions that return such values.
//
//===----------------------------------------------------------------------===//
#ifndef PROXYFENCE_MODEL_THREADINVARIANCE_H
#define PROXYFENCE_MODEL_THREADINVARIANCE_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

namespace proxyfence {

class ThreadInvariance {
public:
  ThreadInvariance(clang::ASTContext &Ctx, const clang::FunctionDecl *Fn);

  /// Whether every evaluation of \p E in one activation of the function
  /// gives one thread the same value.
  bool invariant(const clang::Expr *E) { return expr(E, 0); }
  /// Whether the body writes \p V after its declaration (an assignment, a
  /// mutating call, its address taken, a capture by reference).
  bool written(const clang::VarDecl *V) const { return Written.count(V); }
  /// Written, or set by an asm that reads the thread's identity (`%laneid`):
  /// no longer the value it was declared with.
  bool assigned(const clang::VarDecl *V) const {
    return Written.count(V) || IdentityAsm.count(V);
  }

private:
  bool expr(const clang::Expr *E, unsigned Depth);
  bool variable(const clang::VarDecl *V, unsigned Depth);
  bool call(const clang::CallExpr *C, unsigned Depth);
  bool asmWrites(const clang::VarDecl *V, unsigned Depth);

  clang::ASTContext &Ctx;
  const clang::FunctionDecl *Fn;
  /// Variables the body writes after their declaration, other than through
  /// the outputs of an asm that reads the thread's identity.
  llvm::DenseSet<const clang::VarDecl *> Written;
  /// Such asm statements, by the variables they write.
  llvm::DenseMap<const clang::VarDecl *,
                 llvm::SmallVector<const clang::GCCAsmStmt *, 1>>
      IdentityAsm;
  llvm::DenseMap<const clang::VarDecl *, bool> Known; // also a cycle guard
};

} // namespace proxyfence

#endif
