//===- Vocabulary.h - effects of functions with no body --------------------===//
//
// Calls are summarised from the callee's body wherever one exists. This
// short table covers builtins and well-known wrappers that have no body in
// the translation unit (headers not installed, declarations only). A
// configuration file (Config.h) adds entries of its own, written in the
// effect grammar of parseEffects.
//
//===----------------------------------------------------------------------===//
#ifndef PROXYFENCE_VOCABULARY_H
#define PROXYFENCE_VOCABULARY_H

#include "ptx/Ptx.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace proxyfence {

/// Effects of bodiless functions by name (qualified, or plain for a function
/// of any namespace), as given in a configuration file.
using VocabularyTable = std::map<std::string, std::vector<ptx::Effect>>;

/// Effects of a bodiless function; an effect's MemOperand is the index of the
/// call argument holding the address (-1: none). \p User, when given, is
/// looked up first (qualified name, then plain name), then the built-in
/// table; a user entry replaces the built-in one of the same name.
llvm::ArrayRef<ptx::Effect> bodilessEffects(llvm::StringRef QualifiedName,
                                            llvm::StringRef Name = "",
                                            const VocabularyTable *User = nullptr);

/// Parses a comma-separated list of effects, e.g.
/// `generic-read(arg1), generic-write(arg0)` or
/// `async-write(arg0, mbarrier=arg2)`. Arguments are numbered from 0. On
/// error returns nothing and sets \p Why.
std::optional<std::vector<ptx::Effect>> parseEffects(llvm::StringRef Text,
                                                     std::string &Why);
/// The text parseEffects reads back as \p Effects.
std::string formatEffects(llvm::ArrayRef<ptx::Effect> Effects);
/// One line per effect name of the grammar, for error messages.
const char *effectNames();

} // namespace proxyfence

#endif
