//===- ContentHash.cpp - a stable hash of file contents --------------------===//
#include "support/ContentHash.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/SHA256.h"

namespace proxyfence {

std::string contentHash(llvm::StringRef Text) {
  return llvm::toHex(llvm::SHA256::hash(llvm::arrayRefFromStringRef(Text)),
                     /*LowerCase=*/true);
}

} // namespace proxyfence
