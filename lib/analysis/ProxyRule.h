//===- ProxyRule.h - what the proxy dataflow matches a hazard against ------===//
//
// A proxy rule says which pending generic access meets which async-proxy
// operation: (what comes before, what comes after). The dataflow
// (ProxyDataflow.h) supplies what separates them; rules/ defines the rules.
//
//===----------------------------------------------------------------------===//
#ifndef PROXYFENCE_ANALYSIS_PROXYRULE_H
#define PROXYFENCE_ANALYSIS_PROXYRULE_H

#include "model/Events.h"
#include <string>

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

} // namespace proxyfence

#endif
