//===- OrderRules.cpp - fixes of the tcgen05 and tensormap rules -----------===//
#include "rules/OrderRules.h"
#include "model/DependentCalls.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/DenseSet.h"

using namespace clang;

namespace proxyfence {

std::string lineOf(const SourceManager &SM, const Event &E) {
  return "line " + std::to_string(SM.getExpansionLineNumber(
                       E.At.S ? E.At.S->getBeginLoc() : E.Loc));
}

std::vector<PlannedFix> planOrderFixes(FixPlanner &Planner,
                                       const std::vector<OrderFinding> &Fs) {
  std::vector<PlannedFix> Out(Fs.size());
  for (size_t I = 0; I < Fs.size(); ++I) {
    const OrderFinding &F = Fs[I];
    PlannedFix &P = Out[I];
    if (F.Kinds.empty() || !F.FixAt) {
      P.Reason = F.NoFix.empty() ? "no edit is known to order them" : F.NoFix;
      continue;
    }
    P = F.FixAfter ? Planner.planAfter(F.FixAt, F.Kinds)
                   : Planner.planBefore(F.FixAt, F.Kinds);
    // The acquire names the map it fences.
    for (size_t At; (At = P.FenceText.find("{map}")) != std::string::npos;)
      P.FenceText.replace(At, 5, F.MapAddress);
  }
  return Out;
}

std::vector<const FunctionDecl *>
entryRoots(llvm::ArrayRef<const FunctionDecl *> Roots) {
  struct Callees : RecursiveASTVisitor<Callees> {
    llvm::DenseSet<const FunctionDecl *> Called;
    const FunctionDecl *Caller = nullptr;
    void add(const FunctionDecl *F) {
      if (F && F->getCanonicalDecl() != Caller->getCanonicalDecl())
        Called.insert(F->getCanonicalDecl());
    }
    bool VisitCallExpr(CallExpr *C) {
      if (const FunctionDecl *F = C->getDirectCallee()) {
        add(F);
        return true;
      }
      // `helper<kStages>(...)` in a pattern: the template it names.
      for (const FunctionDecl *F : dependentCallee(C).Viable)
        add(F);
      return true;
    }
    bool VisitCXXConstructExpr(CXXConstructExpr *C) {
      add(C->getConstructor());
      return true;
    }
  } V;
  for (const FunctionDecl *R : Roots)
    if (R->getBody()) {
      V.Caller = R;
      V.TraverseStmt(R->getBody());
    }
  std::vector<const FunctionDecl *> Out;
  for (const FunctionDecl *R : Roots)
    if (!V.Called.count(R->getCanonicalDecl()))
      Out.push_back(R);
  return Out;
}

} // namespace proxyfence
