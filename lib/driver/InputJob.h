//===- InputJob.h - the front end and the analysis of one input ------------===//
#ifndef PROXYFENCE_DRIVER_INPUTJOB_H
#define PROXYFENCE_DRIVER_INPUTJOB_H

#include "proxyfence/DriverOptions.h"
#include "frontend/SemaRecovery.h"
#include "proxyfence/TranslationUnit.h"
#include <set>
#include <string>

namespace proxyfence {

/// One input's analysis, as the driver keeps it.
struct FileResult : TranslationUnitResult {
  std::string File;
  bool Ran = false;   // the AST consumer ran
  unsigned Findings = 0;
  unsigned Repairs = 0; // asm rejections the source recovery repaired
  unsigned AsmLeft = 0; // asm rejections it saw and could not repair
  unsigned TypenamesLeft = 0; // missing `typename`s it could not supply
  SemaRecoveryCounts SemaRepairs;
  /// Every file the parse read (absolute) with a hash of its text, for the
  /// result cache.
  std::vector<std::pair<std::string, std::string>> Inputs;
};

/// One input analysed: its results and what the front end rejected.
struct FileOutcome {
  FileResult R;
  unsigned Errors = 0; // front-end errors
  std::string FirstError;
  /// The front end stopped at Opts.MaxErrors errors: the rest of the file
  /// (and the templates it would have instantiated) was not parsed.
  bool ErrorLimitHit = false;
  /// Of Errors, those in files outside the input's project (not counted
  /// towards --max-errors).
  unsigned ForeignErrors = 0;
  /// Included files that were not found and were skipped.
  std::vector<std::string> MissingHeaders;
  /// Set by the isolated run (IsolatedJob.h): why no result came back
  /// (time limit, crash); then nothing else is valid.
  std::string Failure;
  /// Read from the result cache, not analysed in this run.
  bool FromCache = false;
  /// A header analysed alone because the source that includes it could not
  /// be analysed: that source and why ("took longer than --timeout=...").
  std::string IncluderFailed;
  /// Parsed well enough to count; otherwise an input error.
  bool accepted() const {
    return Failure.empty() && R.Ran && !(Errors && R.ValidDecls == 0);
  }
};

/// Parses and analyses one input in this process, skipping the findings in
/// \p Reported.
FileOutcome analyseInput(const DriverOptions &Opts, const InputCommand &Job,
                         const std::set<std::string> &Reported);

} // namespace proxyfence

#endif
