//===- Formats.h - findings as SARIF 2.1.0 or JSON for CI and scripts ------===//
#ifndef PROXYFENCE_FORMATS_H
#define PROXYFENCE_FORMATS_H

#include "clang/Tooling/Core/Diagnostic.h"
#include "llvm/Support/raw_ostream.h"
#include <map>
#include <string>
#include <vector>

namespace proxyfence {

/// What a run found, for the machine-readable formats.
struct RunFindings {
  /// The reported warnings (notes, fixes), as the text output shows them.
  std::vector<clang::tooling::Diagnostic> Diags;
  /// Text each file had when it was analysed, where already known (the
  /// others are read from disk: call the writers before --fix writes).
  std::map<std::string, std::string> Texts;
  /// Inputs the front end read only in part: (file, why).
  std::vector<std::pair<std::string, std::string>> Incomplete;
};

/// SARIF 2.1.0: one run, rules from allRules(), paths relative to the git
/// top-level of the working directory (else the working directory itself)
/// under uriBaseId %SRCROOT%, fixes, and partialFingerprints that depend on
/// the rule, the file and the text of the flagged lines, not their numbers.
void writeSarif(RunFindings &Run, llvm::raw_ostream &OS);

/// proxyfence's own JSON (documented in README.md):
/// {"version": 1, "findings": [{"rule", "file", "line", "column", "message",
///   "notes": [{"file", "line", "column", "message"}],
///   "fix": [{"file", "offset", "length", "line", "column", "replacement"}]}],
///  "incomplete": [{"file", "message"}]}
void writeJson(RunFindings &Run, llvm::raw_ostream &OS);

/// The directory SARIF paths are relative to: the nearest directory at or
/// above the working directory that holds `.git`, else the working directory.
std::string sourceRoot();

} // namespace proxyfence

#endif
