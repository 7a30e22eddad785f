//===- Driver.h - run the analysis on files, report, fix -------------------===//
#ifndef PROXYFENCE_DRIVER_H
#define PROXYFENCE_DRIVER_H

#include "proxyfence/DriverOptions.h"
#include "llvm/Support/raw_ostream.h"
#include <string>
#include <vector>

namespace proxyfence {


/// The files of the CUDA entries of the compilation database in
/// \p BuildPath (.cu/.cuh files, or commands that compile with `-x cuda` /
/// `-x cu`), absolute, each once, in database order. On an unreadable
/// database, or one with no CUDA entry, returns nothing and sets \p Why.
std::vector<std::string> cudaDatabaseFiles(const std::string &BuildPath,
                                           std::string &Why);

/// The command of each input: its own entry in the compilation database of
/// Opts.BuildPath (never one clang guessed from another file), else
/// `clang++`, plus the `--` arguments. Every input is checked first; on a
/// bad one, returns nothing and sets \p Why to a one-line reason.
/// A header not in the database is analysed in an entry that includes it,
/// or alone with the nearest entry's flags (HeaderTU.h); \p Headers, when
/// given, receives per job the header analysed through another file (else
/// empty) and the --stats line saying how.
struct HeaderJob {
  std::string Focus;
  std::string Note;
  /// The including source was found by searching the project (no -p): if
  /// it cannot be analysed in time, or parsed, the header is analysed alone.
  bool AloneOnFailure = false;
  /// A project header that includes this one (DriverOptions.h).
  std::string IncluderHeader;
  /// A second including source, configured unlike the first (HeaderTU.h),
  /// whose instantiation adds its findings to the first's.
  std::string SecondSource;
};
std::vector<InputCommand> inputCommands(const DriverOptions &Opts,
                                        std::string &Why,
                                        std::vector<HeaderJob> *Headers = nullptr);


int runDriver(const DriverOptions &Opts, llvm::raw_ostream &Out,
              llvm::raw_ostream &Err);


} // namespace proxyfence

#endif
