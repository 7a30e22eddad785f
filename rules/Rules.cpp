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

} // namespace proxyfence
