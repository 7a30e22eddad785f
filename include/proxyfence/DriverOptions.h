//===- DriverOptions.h - what one run of the tool is asked to do -----------===//
#ifndef PROXYFENCE_DRIVEROPTIONS_H
#define PROXYFENCE_DRIVEROPTIONS_H

#include "proxyfence/TranslationUnit.h"
#include "verify/Verify.h"
#include <string>
#include <utility>
#include <vector>

namespace proxyfence {

/// How findings are written to stdout.
enum class OutputFormat { Text, Sarif, Json };

/// Everything a run of the tool reads: the analysis of each translation
/// unit (AnalysisOptions), the front end, outputs, fixes and verification.
struct DriverOptions : AnalysisOptions {
  std::vector<std::string> Files;
  std::string BuildPath;              // -p: directory of compile_commands.json
  bool HaveExtraArgs = false;         // `--` given
  std::vector<std::string> ExtraArgs; // compiler arguments after `--`
  std::string Arch;                   // --arch; empty: command's, else sm_90a
  bool Fix = false;
  bool Strict = false;                // front-end errors are input errors
  bool Quiet = false;                 // no summary line
  bool Stats = false;                 // --stats: analysis statistics on stderr
  bool PrintCommands = false;         // print each file's clang command, analyse nothing
  /// Parse as nvcc compiles: its macros, the prelude, library opt-outs of
  /// clang undone (NvccView.h); --no-nvcc-view turns it off.
  bool NvccView = true;
  std::string ExportFixes;            // YAML for clang-apply-replacements
  VerifyOptions Verify;               // --verify, --run, --run-timeout
  unsigned Jobs = 0;                  // -j: files analysed at once; 0: one per core
  /// --max-errors: the front end stops after this many errors (0: never).
  unsigned MaxErrors = 200;
  /// --shard=K/N: only the inputs at positions K-1, K-1+N, ... (N=0: all).
  unsigned ShardIndex = 0, ShardCount = 0;
  /// Launcher mode: the build's compile command of the one input, used
  /// as a database entry would be (run in the current directory).
  std::vector<std::string> LaunchCommand;
  /// A header named without a compilation database is analysed in the
  /// project's CUDA source that includes it, when one does
  /// (--no-instantiating-source: the header alone).
  bool InstantiatingSource = true;
  /// Set per input by the driver: FocusHeader names a header analysed in a
  /// source the project search found; on failure there, analyse it alone.
  bool FocusAloneOnFailure = false;
  /// Set per input by the driver: a header of the project that includes
  /// the header analysed (alone, or after its including source failed).
  /// When the header alone loses code to front-end errors (it relies on
  /// what that header includes before it), it is read through that one.
  std::string IncluderHeader;
  /// Set per input by the driver: a second source that includes
  /// FocusHeader, analysed when the first left time (Driver.cpp).
  std::string FocusSecondSource;
  /// Also write the findings as SARIF to this file (launcher mode).
  std::string SarifFile;
  /// Results of unchanged inputs come from the cache (--no-cache: off).
  bool UseCache = true;
  /// --timeout: seconds for the parse and analysis of one input (0: none).
  unsigned Timeout = 300;
  OutputFormat Format = OutputFormat::Text;
  /// --exit-non-zero-on-fix: with --fix, exit 1 when a file was written.
  bool ExitNonZeroOnFix = false;
  /// Options the command line gave (its values win over a configuration
  /// file's); --arch and --header-filter count as given when not empty.
  struct {
    bool Style = false;
    bool RequireInitProxyFence = false;
    bool HeaderFilter = false;
  } Given;
};

/// The part of \p Opts that verification reads.
VerifyOptions verifyOptions(const DriverOptions &Opts);

/// Exit status: 0 nothing left to report, 1 findings remain, 2 bad input.
enum ExitCode { ExitClean = 0, ExitFindings = 1, ExitInputError = 2 };

/// An input file (absolute path) and the compile command it is parsed with.
using InputCommand = std::pair<std::string, std::vector<std::string>>;

} // namespace proxyfence

#endif
