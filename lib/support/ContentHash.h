//===- ContentHash.h - a stable hash of file contents ----------------------===//
#ifndef PROXYFENCE_SUPPORT_CONTENTHASH_H
#define PROXYFENCE_SUPPORT_CONTENTHASH_H

#include "llvm/ADT/StringRef.h"
#include <string>

namespace proxyfence {

/// SHA-256 of \p Text, in hex.
std::string contentHash(llvm::StringRef Text);

} // namespace proxyfence

#endif
