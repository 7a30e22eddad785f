//===- Rules.h - the checks, as data over the shared dataflow --------------===//
//
// The registry of rules: the proxy rules (analysis/ProxyRule.h), matched by
// the shared dataflow, and the rules that run an analysis of their own.
//
//===----------------------------------------------------------------------===//
#ifndef PROXYFENCE_RULES_H
#define PROXYFENCE_RULES_H

#include "analysis/ProxyRule.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <string>
#include <vector>

namespace proxyfence {

/// All proxy-ordering rules, in the order they are checked.
llvm::ArrayRef<const Rule *> proxyRules();
const Rule *findRule(llvm::StringRef Name);

/// A rule that runs an analysis of its own rather than matching events of
/// the proxy dataflow (proxyfence-mbarrier-init: InitPublication.h;
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
