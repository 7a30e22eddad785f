//===- BranchFacts.cpp - what the branches around a statement say holds ---===//
#include "analysis/BranchFacts.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Stmt.h"
#include "model/ThreadGroups.h"

using namespace clang;

namespace proxyfence {
namespace {

std::string profileOf(const ASTContext &Ctx, const Expr *E) {
  return std::to_string(spellingHash(E, Ctx));
}

BranchFact factOf(const ASTContext &Ctx, const Expr *E, bool Truth) {
  const auto *B = dyn_cast<BinaryOperator>(E);
  if (!B || !B->isComparisonOp() || B->getOpcode() == BO_Cmp)
    return {E, (Truth ? "+" : "!") + profileOf(Ctx, E)};
  BinaryOperatorKind Op =
      Truth ? B->getOpcode() : BinaryOperator::negateComparisonOp(B->getOpcode());
  std::string L = profileOf(Ctx, B->getLHS()), R = profileOf(Ctx, B->getRHS());
  // `a > b` is `b < a`; `a == b` is `b == a`.
  if (Op == BO_GT || Op == BO_GE) {
    std::swap(L, R);
    Op = BinaryOperator::reverseComparisonOp(Op);
  } else if ((Op == BO_EQ || Op == BO_NE) && R < L) {
    std::swap(L, R);
  }
  return {E, L + BinaryOperator::getOpcodeStr(Op).str() + R};
}

void collect(const ASTContext &Ctx, const Expr *Cond, bool Truth,
             std::vector<BranchFact> &Out) {
  Cond = Cond->IgnoreParenImpCasts();
  if (const auto *U = dyn_cast<UnaryOperator>(Cond);
      U && U->getOpcode() == UO_LNot)
    return collect(Ctx, U->getSubExpr(), !Truth, Out);
  if (const auto *B = dyn_cast<BinaryOperator>(Cond);
      B && B->getOpcode() == (Truth ? BO_LAnd : BO_LOr)) {
    collect(Ctx, B->getLHS(), Truth, Out);
    collect(Ctx, B->getRHS(), Truth, Out);
    return;
  }
  Out.push_back(factOf(Ctx, Cond, Truth));
}

} // namespace

std::vector<BranchFact> conjunctsOf(const ASTContext &Ctx, const Expr *Cond,
                                    bool Truth) {
  std::vector<BranchFact> Out;
  if (Cond)
    collect(Ctx, Cond, Truth, Out);
  return Out;
}

/// Whether \p S always leaves the function: `return;`, or a block that
/// ends in one.
static bool leaves(const Stmt *S) {
  if (const auto *C = dyn_cast_or_null<CompoundStmt>(S))
    return !C->body_empty() && leaves(C->body_back());
  return isa_and_nonnull<ReturnStmt>(S);
}

std::vector<BranchFact> factsAt(const ASTContext &Ctx, const ParentMap &PM,
                                const Stmt *S) {
  std::vector<BranchFact> Out;
  for (const Stmt *P = PM.getParent(S); P; S = P, P = PM.getParent(P)) {
    if (const auto *If = dyn_cast<IfStmt>(P);
        If && If->getCond() && (S == If->getThen() || S == If->getElse()))
      collect(Ctx, If->getCond(), S == If->getThen(), Out);
    // `if (warp < k) return;` earlier in the block: `warp >= k` holds here.
    if (const auto *Block = dyn_cast<CompoundStmt>(P))
      for (const Stmt *Before : Block->body()) {
        if (Before == S)
          break;
        if (const auto *If = dyn_cast<IfStmt>(Before);
            If && If->getCond() && !If->getElse() && !If->isConsteval() &&
            leaves(If->getThen()))
          collect(Ctx, If->getCond(), false, Out);
      }
  }
  return Out;
}

bool states(const std::vector<BranchFact> &Facts, const BranchFact &F) {
  for (const BranchFact &K : Facts)
    if (K.Key == F.Key)
      return true;
  return false;
}

} // namespace proxyfence
