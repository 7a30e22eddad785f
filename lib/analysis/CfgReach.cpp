//===- CfgReach.cpp - which statements of a CFG can run after which -------===//
#include "analysis/CfgReach.h"
#include "clang/AST/StmtCXX.h"

using namespace clang;

namespace proxyfence {

namespace {
/// Arms are computed by one walk of the CFG per branch: a kernel of
/// thousands of blocks and as many branches keeps the plain reachability.
constexpr size_t MaxArmWork = 4'000'000;

bool isLoop(const Stmt *S) {
  return isa<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt>(S);
}
} // namespace

std::vector<bool> CfgReach::reachable(
    const CFGBlock *Start,
    llvm::function_ref<bool(const CFGBlock *, unsigned)> Allowed) const {
  std::vector<bool> Seen(Graph.getNumBlockIDs(), false);
  std::vector<const CFGBlock *> Work{Start};
  while (!Work.empty()) {
    const CFGBlock *B = Work.back();
    Work.pop_back();
    unsigned I = 0;
    for (const CFGBlock *Succ : B->succs())
      if (Allowed(B, I++) && Succ && !Seen[Succ->getBlockID()]) {
        Seen[Succ->getBlockID()] = true;
        Work.push_back(Succ);
      }
  }
  return Seen;
}

void CfgReach::setThreadFixedBranches(
    llvm::function_ref<bool(const Expr *)> ThreadFixed) {
  size_t Work = 0;
  for (const CFGBlock *B : Graph) {
    const Stmt *Term = B->getTerminatorStmt();
    if (!Term || isLoop(Term) || B->succ_size() != 2)
      continue;
    const CFGBlock *Then = *B->succ_begin(), *Else = *(B->succ_begin() + 1);
    const auto *Cond = dyn_cast_or_null<Expr>(B->getTerminatorCondition());
    if (!Then || !Else || !Cond || !ThreadFixed(Cond))
      continue;
    if ((Work += 2 * Graph.getNumBlockIDs()) > MaxArmWork)
      break;
    // An arm: its first block and what follows it, short of the branch.
    auto Arm = [&](const CFGBlock *First) {
      std::vector<bool> In = reachable(First, [&](const CFGBlock *From, unsigned I) {
        return *(From->succ_begin() + I) != B;
      });
      In[First->getBlockID()] = true;
      return In;
    };
    std::vector<bool> InThen = Arm(Then), InElse = Arm(Else);
    for (unsigned Id = 0; Id < InThen.size(); ++Id)
      if (InThen[Id] != InElse[Id])
        FixedEdges[Id].push_back({B->getBlockID(), InThen[Id] ? 0u : 1u});
  }
  ThreadReachable.clear();
}

bool CfgReach::follows(const Stmt *From, const Stmt *To, bool IfUnknown,
                       bool OneThread) {
  auto F = position(From), T = position(To);
  if (!F || !T)
    return IfUnknown;
  auto [FB, FI] = *F;
  auto [TB, TI] = *T;
  if (FB == TB && FI < TI)
    return true;
  auto Fixed = OneThread ? FixedEdges.find(FB) : FixedEdges.end();
  if (Fixed == FixedEdges.end()) {
    auto &Seen = Reachable[FB];
    if (Seen.empty())
      Seen = reachable(Blocks[FB], [](const CFGBlock *, unsigned) { return true; });
    return Seen[TB];
  }
  auto &Seen = ThreadReachable[FB];
  if (Seen.empty()) {
    std::map<unsigned, unsigned> Edge(Fixed->second.begin(),
                                      Fixed->second.end());
    Seen = reachable(Blocks[FB], [&](const CFGBlock *B, unsigned I) {
      auto Only = Edge.find(B->getBlockID());
      return Only == Edge.end() || Only->second == I;
    });
  }
  return Seen[TB];
}

} // namespace proxyfence
