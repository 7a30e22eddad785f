//===- Vocabulary.h - effects of functions with no body --------------------===//
//
// Calls are summarised from the callee's body wherever one exists. This
// short table covers builtins and well-known wrappers that have no body in
// the translation unit (headers not installed, declarations only).
//
//===----------------------------------------------------------------------===//
#ifndef PROXYFENCE_VOCABULARY_H
#define PROXYFENCE_VOCABULARY_H

#include "proxyfence/Ptx.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

namespace proxyfence {

/// Effects of a bodiless function; an effect's MemOperand is the index of the
/// call argument holding the address (-1: none).
llvm::ArrayRef<ptx::Effect> bodilessEffects(llvm::StringRef QualifiedName);

} // namespace proxyfence

#endif
