//===- Launcher.h - proxyfence inside the build: launcher, SARIF merge -----===//
#ifndef PROXYFENCE_LAUNCHER_H
#define PROXYFENCE_LAUNCHER_H

#include "proxyfence/DriverOptions.h"
#include <string>
#include <vector>

namespace proxyfence {

struct LaunchOptions {
  /// The compile step as the build runs it: [launchers...] compiler args.
  std::vector<std::string> Command;
  /// --launch-output: a SARIF log per translation unit goes here.
  std::string OutputDir;
  /// --launch-fail: findings fail the step (after the compiler ran).
  bool FailOnFindings = false;
};

/// `proxyfence [options] --launch <compile command>`: analyses the CUDA
/// source of the command with exactly its flags (as -p would), findings on
/// stderr in clang's format, then runs the command and exits with its
/// status (or 1 with --launch-fail and findings). A step that compiles no
/// CUDA source (a link) runs untouched; an analysis that cannot run is a
/// warning, never the build's failure.
int runLauncher(DriverOptions Opts, const LaunchOptions &Launch,
                llvm::raw_ostream &Err);

/// `proxyfence merge-sarif DIR`: the SARIF logs of DIR (*.sarif, as
/// --launch-output writes them) as one log with one run on \p Out, each
/// result once.
int runMergeSarif(const std::string &Dir, llvm::raw_ostream &Out,
                  llvm::raw_ostream &Err);

} // namespace proxyfence

#endif
