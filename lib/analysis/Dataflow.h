//===- Dataflow.h - forward dataflow over clang's CFG ---------------------===//
//
// The CFG and the fixed-point solver every analysis of device functions
// uses; each analysis supplies its own state, transfer and join.
//
//===----------------------------------------------------------------------===//
#ifndef PROXYFENCE_DATAFLOW_H
#define PROXYFENCE_DATAFLOW_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Analysis/CFG.h"
#include <algorithm>
#include <iterator>
#include <memory>
#include <set>
#include <type_traits>
#include <vector>

namespace proxyfence {

/// Every sub-expression is its own element (each call and access is seen
/// once, in evaluation order); trivially false edges are pruned; constructor
/// initialisers are included.
inline std::unique_ptr<clang::CFG> buildCFG(const clang::FunctionDecl *Fn,
                                            clang::ASTContext &Ctx) {
  clang::CFG::BuildOptions BO;
  BO.setAllAlwaysAdd();
  BO.PruneTriviallyFalseEdges = true;
  BO.AddInitializers = true;
  return clang::CFG::buildCFG(Fn, Fn->getBody(), &Ctx, BO);
}

/// Whether a `for` loop runs its body at least once: its variable starts at
/// a constant that meets a constant bound (`for (int i = 0; i < N; ++i)`
/// with N known in this instantiation). The path that skips the body of
/// such a loop is taken by no thread.
inline bool entersAtLeastOnce(const clang::ForStmt *F) {
  const auto *Cond = llvm::dyn_cast_or_null<clang::BinaryOperator>(
      F->getCond() ? F->getCond()->IgnoreParenImpCasts() : nullptr);
  const auto *Init = llvm::dyn_cast_or_null<clang::DeclStmt>(F->getInit());
  if (!Cond || !Cond->isComparisonOp() || !Init || !Init->isSingleDecl())
    return false;
  const auto *Var = llvm::dyn_cast<clang::VarDecl>(Init->getSingleDecl());
  const auto *Ref = llvm::dyn_cast<clang::DeclRefExpr>(
      Cond->getLHS()->IgnoreParenImpCasts());
  if (!Var || !Var->getInit() || !Ref || Ref->getDecl() != Var)
    return false;
  const clang::Expr *Bound = Cond->getRHS();
  if (Var->getInit()->isValueDependent() || Bound->isValueDependent())
    return false;
  const clang::ASTContext &Ctx = Var->getASTContext();
  clang::Expr::EvalResult Start, Limit;
  if (!Var->getInit()->EvaluateAsInt(Start, Ctx) ||
      !Bound->EvaluateAsInt(Limit, Ctx))
    return false;
  // Compare as the source does: in the type both sides convert to.
  clang::QualType T = Cond->getLHS()->getType();
  if (!T->isIntegralOrEnumerationType())
    return false;
  unsigned Bits = Ctx.getIntWidth(T);
  bool Unsigned = T->isUnsignedIntegerOrEnumerationType();
  llvm::APSInt From = Start.Val.getInt().extOrTrunc(Bits);
  llvm::APSInt To = Limit.Val.getInt().extOrTrunc(Bits);
  From.setIsUnsigned(Unsigned);
  To.setIsUnsigned(Unsigned);
  switch (Cond->getOpcode()) {
  case clang::BO_LT: return From < To;
  case clang::BO_LE: return From <= To;
  case clang::BO_GT: return From > To;
  case clang::BO_GE: return From >= To;
  case clang::BO_NE: return From != To;
  default: return false;
  }
}

/// A dataflow state kept as a sorted vector without duplicates: restores
/// that form after pushes.
template <typename T> void normalize(std::vector<T> &S) {
  std::sort(S.begin(), S.end());
  S.erase(std::unique(S.begin(), S.end()), S.end());
}

/// Merges \p From into \p Into (both normalised); true when \p Into grew.
template <typename T>
bool join(std::vector<T> &Into, const std::vector<T> &From) {
  size_t Before = Into.size();
  std::vector<T> Out;
  std::set_union(Into.begin(), Into.end(), From.begin(), From.end(),
                 std::back_inserter(Out));
  Into.swap(Out);
  return Into.size() != Before;
}

/// Runs a forward dataflow to its fixed point and returns the state on entry
/// to each block, by block ID (the exit block's is the state at the exit).
/// \p Transfer(const Stmt *, StateT &) applies one statement element;
/// \p Join(StateT &Into, const StateT &From) merges and says whether Into
/// grew. Blocks are visited in reverse post-order, so loops settle quickly.
/// \p Feasible(const CFGBlock &, unsigned SuccIndex) may close edges that
/// constant arguments rule out (Bindings.h); a \p Feasible that also takes
/// the state (`StateT &`, a copy for that edge) may narrow it per edge.
template <typename StateT, typename TransferFn, typename JoinFn,
          typename FeasibleFn>
std::vector<StateT> solveForward(const clang::CFG &G, StateT Entry,
                                 TransferFn Transfer, JoinFn Join,
                                 FeasibleFn Feasible) {
  std::vector<const clang::CFGBlock *> Order;
  std::vector<unsigned> Rank(G.getNumBlockIDs(), ~0u);
  {
    std::vector<bool> Seen(G.getNumBlockIDs());
    std::vector<std::pair<const clang::CFGBlock *,
                          clang::CFGBlock::const_succ_iterator>>
        Stack;
    Stack.push_back({&G.getEntry(), G.getEntry().succ_begin()});
    Seen[G.getEntry().getBlockID()] = true;
    while (!Stack.empty()) {
      auto &[B, It] = Stack.back();
      if (It == B->succ_end()) {
        Order.push_back(B);
        Stack.pop_back();
        continue;
      }
      const clang::CFGBlock *Succ = *It;
      ++It;
      if (Succ && !Seen[Succ->getBlockID()]) {
        Seen[Succ->getBlockID()] = true;
        Stack.push_back({Succ, Succ->succ_begin()});
      }
    }
    std::reverse(Order.begin(), Order.end());
    for (unsigned I = 0; I < Order.size(); ++I)
      Rank[Order[I]->getBlockID()] = I;
  }

  // The condition of a loop that runs at least once keeps what first enters
  // it apart (First) from what comes round again: the first only goes on
  // into the body.
  // Only where the loop's back edge comes into that very block: a condition
  // of several blocks (`i < (c ? 4 : N)`) takes it at its first block, and
  // every edge into the last would look like a first entry.
  std::vector<bool> EntersOnce(G.getNumBlockIDs());
  for (const clang::CFGBlock *B : Order)
    if (const auto *F =
            llvm::dyn_cast_or_null<clang::ForStmt>(B->getTerminatorStmt()))
      EntersOnce[B->getBlockID()] =
          llvm::any_of(B->preds(),
                       [&](const clang::CFGBlock *P) {
                         return P && Rank[P->getBlockID()] != ~0u &&
                                Rank[P->getBlockID()] >= Rank[B->getBlockID()];
                       }) &&
          entersAtLeastOnce(F);
  std::vector<StateT> In(G.getNumBlockIDs()), First(G.getNumBlockIDs());
  std::vector<bool> Reached(G.getNumBlockIDs()), FirstReached(Reached);
  In[G.getEntry().getBlockID()] = std::move(Entry);
  Reached[G.getEntry().getBlockID()] = true;
  std::set<unsigned> Work; // ranks
  Work.insert(Rank[G.getEntry().getBlockID()]);
  auto Visit = [&](const clang::CFGBlock *B, StateT S, bool OnlyIntoBody) {
    for (const clang::CFGElement &E : *B)
      if (auto CS = E.getAs<clang::CFGStmt>())
        Transfer(CS->getStmt(), S);
    unsigned SuccIndex = 0;
    for (const clang::CFGBlock *Succ : B->succs()) {
      unsigned Index = SuccIndex++;
      if (!Succ || Rank[Succ->getBlockID()] == ~0u || (OnlyIntoBody && Index))
        continue;
      constexpr bool Narrows =
          std::is_invocable_r_v<bool, FeasibleFn, const clang::CFGBlock &,
                                unsigned, StateT &>;
      StateT Narrowed;
      if constexpr (Narrows) {
        Narrowed = S;
        if (!Feasible(*B, Index, Narrowed))
          continue;
      } else if (!Feasible(*B, Index)) {
        continue;
      }
      const StateT &Out = Narrows ? Narrowed : S;
      unsigned Id = Succ->getBlockID();
      bool Entering = EntersOnce[Id] && Rank[B->getBlockID()] < Rank[Id];
      auto &Into = Entering ? First : In;
      auto &Seen = Entering ? FirstReached : Reached;
      bool Changed = Join(Into[Id], Out) || !Seen[Id];
      Seen[Id] = true;
      if (Changed)
        Work.insert(Rank[Id]);
    }
  };
  while (!Work.empty()) {
    const clang::CFGBlock *B = Order[*Work.begin()];
    Work.erase(Work.begin());
    unsigned Id = B->getBlockID();
    if (FirstReached[Id])
      Visit(B, First[Id], /*OnlyIntoBody=*/true);
    if (Reached[Id])
      Visit(B, In[Id], /*OnlyIntoBody=*/false);
  }
  for (unsigned Id = 0; Id < In.size(); ++Id)
    if (FirstReached[Id])
      Join(In[Id], First[Id]);
  return In;
}

template <typename StateT, typename TransferFn, typename JoinFn>
std::vector<StateT> solveForward(const clang::CFG &G, StateT Entry,
                                 TransferFn Transfer, JoinFn Join) {
  return solveForward(G, std::move(Entry), Transfer, Join,
                      [](const clang::CFGBlock &, unsigned) { return true; });
}

} // namespace proxyfence

#endif
