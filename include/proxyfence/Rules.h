//===- Rules.h - the checks, as data over the shared dataflow --------------===//
//
// A proxy rule says which pending generic access meets which async-proxy
// operation: (what comes before, what comes after). The dataflow (Analysis.h)
// supplies what separates them; the fix planner (Fixes.h) how to fix them.
//
//===----------------------------------------------------------------------===//
#ifndef PROXYFENCE_RULES_H
#define PROXYFENCE_RULES_H

#include "proxyfence/Events.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <string>
#include <vector>

namespace proxyfence {

struct Rule {
  /// Check name, e.g. "proxyfence-tma-store".
  const char *Name;
  /// One-line summary for --list-rules.
  const char *Summary;
  /// Whether a pending generic access of this kind matters to the rule.
  bool (*MatchesAccess)(EffectKind Access);
  /// Whether this async-proxy operation completes the hazard.
  bool (*MatchesAsync)(const Event &Async);
  /// The warning text (without the check name).
  std::string (*Message)(const Event &Access, const Event &Async);
};

/// All proxy-ordering rules, in the order they are checked.
llvm::ArrayRef<const Rule *> proxyRules();
const Rule *findRule(llvm::StringRef Name);

/// A rule that runs an analysis of its own rather than matching events of
/// the proxy dataflow (proxyfence-mbarrier-init: MbarrierInit.h;
/// proxyfence-fence-clobber: FenceClobber.h).
struct StandaloneRule {
  const char *Name;
  const char *Summary;
};
/// Every rule's name and summary, proxy rules first (--list-rules).
std::vector<StandaloneRule> allRules();
/// Whether \p Name names a rule of either kind (--disable).
bool isKnownRule(llvm::StringRef Name);

// Defined one per file under rules/.
extern const Rule TmaStoreRule;
extern const Rule MmaOperandRule;
extern const Rule AsyncOverwriteRule;
extern const StandaloneRule MbarrierInitRule;
extern const StandaloneRule FenceClobberRule;
extern const StandaloneRule Tcgen05OrderRule;
extern const StandaloneRule TensormapRule;

} // namespace proxyfence

#endif
