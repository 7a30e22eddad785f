//===- BranchFacts.h - what the branches around a statement say holds -----===//
//
// A statement in the then-branch of `if (a && b)` runs where `a` and `b`
// hold; one in the else-branch of `if (w < k)` runs where `w >= k` does.
// Where a use's facts include a condition of an init's branch, the threads
// that reach the use satisfy it too.
//
//===----------------------------------------------------------------------===//
#ifndef PROXYFENCE_ANALYSIS_BRANCHFACTS_H
#define PROXYFENCE_ANALYSIS_BRANCHFACTS_H

#include "clang/AST/Expr.h"
#include "clang/AST/ParentMap.h"
#include <string>
#include <vector>

namespace proxyfence {

/// One condition taken as true or false, as the key of the comparison or
/// value it states (`w >= k` and `!(w < k)` give the same key).
struct BranchFact {
  const clang::Expr *E = nullptr; // the condition, for the caller to test
  std::string Key;
};

/// The conjuncts that \p Cond taken as \p Truth states: `a && b` as true
/// gives `a` and `b`; `a || b` as false gives `!a` and `!b`.
std::vector<BranchFact> conjunctsOf(const clang::ASTContext &Ctx,
                                    const clang::Expr *Cond, bool Truth);

/// The facts of the branches whose then- or else-branch holds \p S, and of
/// the `if (c) return;` before it in its blocks, up to its function's body.
std::vector<BranchFact> factsAt(const clang::ASTContext &Ctx,
                                const clang::ParentMap &PM,
                                const clang::Stmt *S);

/// Whether \p Facts states \p F.
bool states(const std::vector<BranchFact> &Facts, const BranchFact &F);

} // namespace proxyfence

#endif
