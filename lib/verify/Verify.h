//===- Verify.h - recompile, check the PTX, run a harness -----------------===//
//
// `proxyfence --fix --verify` and `proxyfence verify` check fixed code in
// three layers:
//  1. compile with nvcc (the compiler of record) to PTX with line info; a
//     fix that breaks compilation is rolled back;
//  2. check the PTX (PtxCheck.h): every path from the instructions of a
//     finding's generic access to its async operation passes a proxy fence;
//     without known findings, the whole file's PTX is checked;
//  3. run a harness (--run, else the file's own main()) on the original and
//     the fixed code with a timeout and compare results and time per run;
//     skipped, with a message, when no GPU is present.
//
//===----------------------------------------------------------------------===//
#ifndef PROXYFENCE_VERIFY_H
#define PROXYFENCE_VERIFY_H

#include "report/VerifySites.h"
#include "verify/Harness.h"
#include "clang/Tooling/Core/Replacement.h"
#include "llvm/Support/raw_ostream.h"
#include <map>
#include <string>
#include <vector>

namespace proxyfence {

/// What verification reads: the --verify flags, and the driver's settings
/// that the recompile and the PTX check depend on.
struct VerifyOptions {
  bool Enabled = false;      // --verify (with --fix)
  std::string Run;           // --run: harness command, run through /bin/sh
  unsigned RunTimeout = 300; // --run-timeout, seconds
  std::string Arch;          // --arch; empty: each command's own
  std::string CudaPath;      // where nvcc, ptxas and cuobjdump are
  std::vector<std::string> DisabledRules; // findings of these are not checked
};

/// \p Name (nvcc, ptxas, cuobjdump) in Opts.CudaPath/bin, else on PATH;
/// empty when neither has it.
std::string cudaTool(const VerifyOptions &Opts, llvm::StringRef Name);

/// One translation unit to verify after --fix.
struct VerifyUnit {
  std::string File;                 // absolute path
  std::string Name;                 // as given on the command line
  std::vector<std::string> Command; // its compile command, argv[0] first
  std::vector<VerifySite> Sites;    // findings before fixing
  /// The file's options (its .proxyfence.yaml applied); null: those given
  /// to verifyFixes.
  const VerifyOptions *Options = nullptr;
  /// Files rewritten for this unit: their text before, and the edits
  /// written (offsets in that text).
  std::map<std::string, std::string> Originals;
  std::map<std::string, clang::tooling::Replacements> Edits;
};

struct VerifyTotals {
  unsigned RolledBack = 0; // findings whose fix was undone
  bool Failed = false;     // some layer failed
};

/// --fix --verify --run: the harness on the original code, run before the
/// fixes are written, to compare with the fixed code's run; nothing when
/// there is no --run or no GPU.
std::optional<HarnessRun> runBaseline(const VerifyOptions &Opts,
                                      llvm::raw_ostream &Err);

/// Layers 1-3 after --fix has written \p Units' edits. Layer 3 runs --run
/// (compared with \p Baseline), else each file's own harness (a main()),
/// built from the original and the fixed text.
VerifyTotals verifyFixes(const std::vector<VerifyUnit> &Units,
                         const VerifyOptions &Opts, llvm::raw_ostream &Out,
                         llvm::raw_ostream &Err,
                         const HarnessRun *Baseline = nullptr);


} // namespace proxyfence

#endif
