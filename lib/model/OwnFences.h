//===- OwnFences.h - code that writes its proxy fences itself --------------===//
//
// A call that a template pattern leaves unresolved may be where the code
// fences (`Policy::store(...);`), so no missing fence is reported across
// it. Not in code that fences itself: a class whose members execute
// fence.proxy.async (a CUTLASS collective fencing before its TMA stores and
// its releases), or a function that does, does not leave its fences to
// calls it cannot see (its fusion callbacks).
//
//===----------------------------------------------------------------------===//
#ifndef PROXYFENCE_OWNFENCES_H
#define PROXYFENCE_OWNFENCES_H

#include "model/Vocabulary.h"
#include "clang/AST/Decl.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

namespace proxyfence {

class OwnFences {
public:
  /// \p User: effects of bodiless functions from a configuration file.
  void setUserVocabulary(const VocabularyTable *V) { User = V; }
  /// Whether the code \p Fn belongs to writes its proxy fences itself: its
  /// class (for a member, or a lambda inside one) or its outermost function
  /// executes a shared-memory fence.proxy.async somewhere, directly or
  /// through a callee.
  bool scopeFencesItself(const clang::FunctionDecl *Fn);

private:
  /// Whether \p Fn's body executes a shared-memory proxy fence, directly or
  /// through callees it names. \p Incomplete is set when the answer
  /// depended on a callee not known yet (recursion, depth), and then not
  /// remembered.
  bool fences(const clang::FunctionDecl *Fn, unsigned Depth,
              bool &Incomplete);

  const VocabularyTable *User = nullptr;
  llvm::DenseMap<const clang::FunctionDecl *, bool> Fences;
  llvm::DenseSet<const clang::FunctionDecl *> InProgress;
  llvm::DenseMap<const clang::Decl *, bool> ScopeFences;
};

} // namespace proxyfence

#endif
