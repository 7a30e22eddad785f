//===- Harness.h - layer 3 of verification: run a harness -----------------===//
//
// A harness is a command that builds and runs kernels and exits 0 when the
// results are right (77: skipped, as in automake). Verification runs it on
// the original and on the fixed code, with a wall-clock limit, and compares
// the outcomes and the time per run.
//
//===----------------------------------------------------------------------===//
#ifndef PROXYFENCE_HARNESS_H
#define PROXYFENCE_HARNESS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"
#include <optional>
#include <string>

namespace proxyfence {

struct HarnessRun {
  enum StatusTy { NotStarted, Passed, Failed, Skipped, TimedOut };
  StatusTy Status = NotStarted;
  int ExitCode = -1; // when it exited
  int Signal = 0;    // when a signal ended it
  double Seconds = 0; // wall clock of the whole command
  /// Time per run as the harness printed it ("12.5 us/run"), in seconds.
  std::optional<double> PerRun;
  std::string Output; // stdout and stderr, interleaved

  bool ok() const { return Status == Passed || Status == Skipped; }
};

/// `nvidia-smi -L`, or the command in PROXYFENCE_GPU_PROBE: exit 0 means a
/// GPU is present. Probed once per process.
bool gpuPresent();

/// Runs \p Cmd through /bin/sh in its own process group, capturing its
/// output; past \p Timeout seconds the whole group is killed.
HarnessRun runHarness(const std::string &Cmd, unsigned Timeout);

/// The last "<number> <ns|us|ms|s>/run" in \p Output, in seconds.
std::optional<double> timePerRun(llvm::StringRef Output);

/// Prints the harness's output, then one line with its outcome:
/// "proxyfence: verify: <Label>run passed (exit 0, 1.2 s): <Cmd>".
void reportRun(llvm::raw_ostream &OS, llvm::StringRef Label,
               const std::string &Cmd, unsigned Timeout, const HarnessRun &R);

/// Original against fixed: what changed, and the time per run ratio (from
/// the harness's own "/run" figures when both printed one, else wall clock).
void reportComparison(llvm::raw_ostream &OS, llvm::StringRef Name,
                      const HarnessRun &Original, const HarnessRun &Fixed);

} // namespace proxyfence

#endif
