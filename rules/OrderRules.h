//===- OrderRules.h - ordering rules beyond the shared-memory proxies -------===//
//
// proxyfence-tcgen05-order (rules/Tcgen05Order.cpp) and proxyfence-tensormap
// (rules/Tensormap.cpp): both run the PathFlow engine (PathFlow.h) from each
// kernel and pair what one role does before a synchronisation with what
// another does after it. A finding is one warning with its notes and the
// statements its fix inserts.
//
//===----------------------------------------------------------------------===//
#ifndef PROXYFENCE_ORDERRULES_H
#define PROXYFENCE_ORDERRULES_H

#include "model/Events.h"
#include "fix/Fixes.h"
#include "proxyfence/Rules.h"
#include "clang/AST/ASTContext.h"
#include "llvm/ADT/ArrayRef.h"
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace proxyfence {

struct OrderFinding {
  const StandaloneRule *Rule = nullptr;
  std::string Message;
  Event At; // where the warning is
  /// Related events (the synchronisation, the other role's operation).
  std::vector<std::pair<Event, std::string>> Notes;
  /// The fix: Kinds inserted right before FixAt, or right after it.
  std::vector<FixKind> Kinds;
  StmtRef FixAt;
  bool FixAfter = false;
  /// Substituted for `{map}` in the fix text (the tensor map's address).
  std::string MapAddress;
  std::string NoFix; // why there is no fix, when Kinds is empty
};

/// The findings of one order rule in the order found: each kind of finding
/// once per statement and place, however many paths lead there.
class OrderFindingList {
public:
  explicit OrderFindingList(const StandaloneRule &Rule) : Rule(Rule) {}
  void add(OrderFinding F, unsigned Kind) {
    if (Seen.insert({F.At.At.S, F.At.Loc.getRawEncoding(), Kind}).second) {
      F.Rule = &Rule;
      Out.push_back(std::move(F));
    }
  }
  std::vector<OrderFinding> take() { return std::move(Out); }

private:
  const StandaloneRule &Rule;
  std::vector<OrderFinding> Out;
  std::set<std::tuple<const clang::Stmt *, unsigned, unsigned>> Seen;
};

/// A wait of a thread synchronisation (mbarrier wait, CTA or named barrier,
/// cluster wait), and its signalling side (the arrives, and the barriers).
inline bool isThreadSync(const Event &E) {
  return E.Kind == EffectKind::MbarrierWait ||
         E.Kind == EffectKind::ClusterWait ||
         (E.Kind == EffectKind::Barrier && E.Scope != BarrierScope::Warp);
}
inline bool isThreadHandoff(const Event &E) {
  return E.Kind == EffectKind::MbarrierArrive ||
         E.Kind == EffectKind::ClusterArrive ||
         (E.Kind == EffectKind::Barrier && E.Scope != BarrierScope::Warp);
}

/// Findings of the rule over the kernels \p Roots (each analysed from its
/// entry), in the order found.
/// The roots no other root calls: kernels, and functions analysed on their
/// own. A helper called from a kernel is seen in its callers' context; on
/// its own it lacks the other roles and would be reported out of context.
std::vector<const clang::FunctionDecl *>
entryRoots(llvm::ArrayRef<const clang::FunctionDecl *> Roots);

/// \p Events must have extracted the roots' code already (the proxy
/// analysis): a rule whose events it never met returns at once.
std::vector<OrderFinding>
findTcgen05Order(clang::ASTContext &Ctx, EventExtractor &Events,
                 llvm::ArrayRef<const clang::FunctionDecl *> Roots);
std::vector<OrderFinding>
findTensormapOrder(clang::ASTContext &Ctx, EventExtractor &Events,
                   llvm::ArrayRef<const clang::FunctionDecl *> Roots);

/// Plans the fix of each finding (result I fixes finding I).
std::vector<PlannedFix> planOrderFixes(FixPlanner &Planner,
                                       const std::vector<OrderFinding> &F);

/// "line 42" of an event's statement in the analysed function.
std::string lineOf(const clang::SourceManager &SM, const Event &E);

} // namespace proxyfence

#endif
