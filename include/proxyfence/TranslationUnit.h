//===- TranslationUnit.h - every rule over one parsed translation unit -----===//
//
// The analysis of one translation unit, shared by the standalone driver
// (lib/driver) and the clang-tidy plugin (tool/ProxyFenceTidyModule.cpp):
// findings as tooling diagnostics with their fixes, plus what the driver
// needs to write and verify the fixes. It reads AnalysisOptions alone.
//
//===----------------------------------------------------------------------===//
#ifndef PROXYFENCE_TRANSLATIONUNIT_H
#define PROXYFENCE_TRANSLATIONUNIT_H

#include "fix/Fixes.h"
#include "model/Vocabulary.h"
#include "report/BlindSpots.h"
#include "report/VerifySites.h"
#include "clang/AST/ASTContext.h"
#include "clang/Tooling/Core/Diagnostic.h"
#include <map>
#include <set>
#include <string>
#include <vector>

namespace proxyfence {

/// What the analysis of one translation unit reads: the driver's options
/// extend it (proxyfence/Driver.h); the plugin builds it from CheckOptions.
struct AnalysisOptions {
  /// The CUDA installation, whose headers are never the project's.
  std::string CudaPath;
  std::vector<std::string> DisabledRules;
  FenceStyle Style = FenceStyle::Auto;
  /// --mbarrier-init-proxy-fence=require: fence.proxy.async between an
  /// mbarrier's init and its first async-proxy use (older guide examples).
  bool RequireInitProxyFence = false;
  /// --header-filter: headers whose (absolute) path matches may be reported
  /// and edited; empty: every header outside the system and CUDA headers.
  std::string HeaderFilter;
  /// What the compile command adds to the project (ProjectFiles.h): its
  /// -I/-iquote directories, and the compilation database's directory.
  std::vector<std::string> IncludeDirs;
  std::string DatabaseDir;
  /// --trace=[FILE:]LINE: say what reaches the async operations and inits
  /// at that line (analysis/Trace.h); empty: no trace.
  std::string Trace;
  /// Set for a header analysed inside a database entry that includes it
  /// (HeaderTU.h): only the header's findings are reported, and its
  /// templates are analysed as written where the entry instantiates none.
  std::string FocusHeader;
  /// For --stats: how a header's translation unit was chosen.
  std::string HeaderContextNote;
  /// Effects of bodiless functions, from a configuration file (Config.h).
  VocabularyTable Vocabulary;
};

struct TranslationUnitResult {
  std::string Report;     // the diagnostics, printed in clang's format
  unsigned ValidDecls = 0; // declarations of the main file clang accepted
  unsigned Unfixable = 0;  // diagnostics without a fix
  unsigned Suppressed = 0; // warnings silenced by a NOLINT/ignore comment
  unsigned InLibrary = 0;  // hazards in code outside the project, unreported
  unsigned OutsideFocus = 0; // in the project, outside the header in focus
  /// The header in focus was never read: the entry's `#include` of it is
  /// compiled out with these flags (`#ifdef ENABLE_X`), so nothing of the
  /// header was analysed.
  bool FocusNotIncluded = false;
  AnalysisStats Stats;
  BlindSpots Blind; // stubs and code lost to front-end errors
  /// Device function templates analysed only as written: nothing in the
  /// unit instantiates them, so calls on their dependent values stay
  /// unresolved (Stats.UnresolvedCalls).
  unsigned PatternsOnly = 0;
  /// Device function templates of the file in all, and the unresolved
  /// calls inside those analysed only as written.
  unsigned Templates = 0;
  unsigned PatternCalls = 0;
  /// One per warning, in report order; Message.Fix holds the warning's
  /// edits (notes carry none).
  std::vector<clang::tooling::Diagnostic> Diags;
  /// Every fix of the unit, merged per file: insertions at one point are
  /// joined in order, which is what --fix writes.
  std::map<std::string, clang::tooling::Replacements> Edits;
  std::map<std::string, std::string> Originals; // text analysed, per file
  /// Keys of the findings of this unit (reported or suppressed), so that a
  /// header's finding seen again from another input is not repeated.
  std::vector<std::string> Keys;
  /// Keys of findings left out because \p Reported held them.
  std::vector<std::string> SkippedKeys;
  std::vector<VerifySite> Sites; // the findings, for --verify
  std::vector<std::string> TraceLines; // --trace's lines, for stderr
};

/// Runs every rule not in Opts.DisabledRules over the device functions of
/// \p Ctx written in the main file or project headers (ProjectFiles.h, or
/// --header-filter; never system headers). Findings whose key is in
/// \p Reported are skipped. The report is printed into Result.Report, with
/// colours when \p Colors. \p Errors: where the front end reported errors,
/// for the blind spots.
TranslationUnitResult
analyzeTranslationUnit(clang::ASTContext &Ctx, const AnalysisOptions &Opts,
                       const std::set<std::string> &Reported, bool Colors,
                       llvm::ArrayRef<clang::SourceLocation> Errors = {});

} // namespace proxyfence

#endif
