//===- ConstantArms.cpp - branches a pattern takes the same way on a path -===//
#include "model/ConstantArms.h"
#include "model/DependentCalls.h"
#include "clang/AST/Stmt.h"
#include "llvm/ADT/FoldingSet.h"

using namespace clang;

namespace proxyfence {

std::optional<std::pair<unsigned, bool>>
ConstantConditions::of(const Expr *Cond, const ASTContext &Ctx) {
  if (!Cond || !Cond->isValueDependent())
    return std::nullopt;
  bool Negated = false;
  Cond = Cond->IgnoreParenImpCasts();
  while (const auto *UO = dyn_cast<UnaryOperator>(Cond)) {
    if (UO->getOpcode() != UO_LNot)
      break;
    Negated = !Negated;
    Cond = UO->getSubExpr()->IgnoreParenImpCasts();
  }
  if (!isTemplateConstant(Cond))
    return std::nullopt;
  llvm::FoldingSetNodeID ID;
  Cond->Profile(ID, Ctx, /*Canonical=*/true);
  auto It = Numbers.try_emplace(ID.ComputeHash(), Numbers.size()).first;
  if (It->second >= MaxConstantConditions)
    return std::nullopt;
  return std::make_pair(It->second, Negated);
}

std::optional<ArmBits> ConstantConditions::armOf(const CFGBlock &B,
                                                 unsigned Succ,
                                                 const ASTContext &Ctx) {
  auto C = of(branchCondition(B), Ctx);
  if (!C)
    return std::nullopt;
  bool True = (Succ == 0) != C->second;
  return ArmBits{armBit(C->first, True), armBit(C->first, !True)};
}

const Expr *branchCondition(const CFGBlock &B) {
  if (B.succ_size() != 2)
    return nullptr;
  if (const auto *If = dyn_cast_or_null<IfStmt>(B.getTerminatorStmt()))
    return If->getCond();
  return B.getLastCondition();
}

} // namespace proxyfence
