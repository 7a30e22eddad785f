//===- Rules.cpp - the registry of proxy rules ----------------------------===//
#include "proxyfence/Rules.h"

namespace proxyfence {

llvm::ArrayRef<const Rule *> proxyRules() {
  static const Rule *const All[] = {&TmaStoreRule, &MmaOperandRule,
                                    &AsyncOverwriteRule};
  return All;
}

const Rule *findRule(llvm::StringRef Name) {
  for (const Rule *R : proxyRules())
    if (Name == R->Name)
      return R;
  return nullptr;
}

std::vector<StandaloneRule> allRules() {
  std::vector<StandaloneRule> Out;
  for (const Rule *R : proxyRules())
    Out.push_back({R->Name, R->Summary});
  Out.push_back(MbarrierInitRule);
  Out.push_back(FenceClobberRule);
  Out.push_back(Tcgen05OrderRule);
  Out.push_back(TensormapRule);
  return Out;
}

bool isKnownRule(llvm::StringRef Name) {
  for (const StandaloneRule &R : allRules())
    if (Name == R.Name)
      return true;
  return false;
}

} // namespace proxyfence
