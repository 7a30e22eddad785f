//===- Files.h - paths and whole-or-nothing file writes --------------------===//
#ifndef PROXYFENCE_SUPPORT_FILES_H
#define PROXYFENCE_SUPPORT_FILES_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <string>

namespace proxyfence {

/// \p P made absolute, with `.` and `..` removed.
std::string absolutePath(llvm::StringRef P);

/// Writes \p Content to \p Path atomically: a temporary file in the same
/// directory, synced, with the original's permissions and owner, then a
/// rename over the original (over the file a symlink names, not the link).
/// Fails, writing nothing, for the reasons whyNotRewritable gives.
llvm::Error writeFileAtomically(llvm::StringRef Path, llvm::StringRef Expected,
                                llvm::StringRef Content);

/// Writes \p Content to \p Path whole or not at all (a temporary file
/// renamed over it): readers never see a half-written file.
llvm::Error writeNewFile(llvm::StringRef Path, llvm::StringRef Content);

/// Why --fix must not replace \p Path: it is not a regular file, is
/// read-only (no write permission bit, or not writable by this user: a
/// rename would bypass its mode), or has several hard links. Empty if none.
std::string whyNotWritable(llvm::StringRef Path);

/// whyNotWritable, or \p Path no longer holds \p Expected (it changed on
/// disk since it was read). Empty if it can be rewritten.
std::string whyNotRewritable(llvm::StringRef Path, llvm::StringRef Expected);

} // namespace proxyfence

#endif
