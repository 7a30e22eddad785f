//===- Driver.h - run the analysis on files, report, fix -------------------===//
#ifndef PROXYFENCE_DRIVER_H
#define PROXYFENCE_DRIVER_H

#include "proxyfence/Fixes.h"
#include "proxyfence/Verify.h"
#include "proxyfence/Vocabulary.h"
#include "llvm/Support/raw_ostream.h"
#include <string>
#include <vector>

namespace proxyfence {

/// How findings are written to stdout.
enum class OutputFormat { Text, Sarif, Json };

struct DriverOptions {
  std::vector<std::string> Files;
  std::string BuildPath;              // -p: directory of compile_commands.json
  bool HaveExtraArgs = false;         // `--` given
  std::vector<std::string> ExtraArgs; // compiler arguments after `--`
  std::string Arch;                   // --arch; empty: command's, else sm_90a
  std::string CudaPath;
  bool Fix = false;
  bool Strict = false;                // front-end errors are input errors
  bool Quiet = false;                 // no summary line
  bool Stats = false;                 // --stats: analysis statistics on stderr
  bool PrintCommands = false;         // print each file's clang command, analyse nothing
  /// Parse as nvcc compiles: its macros, the prelude, library opt-outs of
  /// clang undone (NvccView.h); --no-nvcc-view turns it off.
  bool NvccView = true;
  std::string ExportFixes;            // YAML for clang-apply-replacements
  FenceStyle Style = FenceStyle::Auto;
  std::vector<std::string> DisabledRules;
  /// --mbarrier-init-proxy-fence=require: fence.proxy.async between an
  /// mbarrier's init and its first async-proxy use (older guide examples).
  bool RequireInitProxyFence = false;
  VerifyOptions Verify;               // --verify, --run, --run-timeout
  /// --header-filter: headers whose (absolute) path matches may be reported
  /// and edited; empty: every header outside the system and CUDA headers.
  std::string HeaderFilter;
  unsigned Jobs = 0;                  // -j: files analysed at once; 0: one per core
  /// --max-errors: the front end stops after this many errors (0: never).
  unsigned MaxErrors = 200;
  /// --shard=K/N: only the inputs at positions K-1, K-1+N, ... (N=0: all).
  unsigned ShardIndex = 0, ShardCount = 0;
  /// Launcher mode: the build's compile command of the one input, used
  /// as a database entry would be (run in the current directory).
  std::vector<std::string> LaunchCommand;
  /// Also write the findings as SARIF to this file (launcher mode).
  std::string SarifFile;
  /// Results of unchanged inputs come from the cache (--no-cache: off).
  bool UseCache = true;
  /// --timeout: seconds for the parse and analysis of one input (0: none).
  unsigned Timeout = 300;
  OutputFormat Format = OutputFormat::Text;
  /// --exit-non-zero-on-fix: with --fix, exit 1 when a file was written.
  bool ExitNonZeroOnFix = false;
  /// Set for a header analysed inside a database entry that includes it
  /// (HeaderTU.h): only the header's findings are reported, and its
  /// templates are analysed as written where the entry instantiates none.
  std::string FocusHeader;
  /// For --stats: how a header's translation unit was chosen.
  std::string HeaderContextNote;
  /// Effects of bodiless functions, from a configuration file (Config.h).
  VocabularyTable Vocabulary;
  /// Options the command line gave (its values win over a configuration
  /// file's); --arch and --header-filter count as given when not empty.
  struct {
    bool Style = false;
    bool RequireInitProxyFence = false;
    bool HeaderFilter = false;
  } Given;
};

/// Exit status: 0 nothing left to report, 1 findings remain, 2 bad input.
enum ExitCode { ExitClean = 0, ExitFindings = 1, ExitInputError = 2 };

/// An input file (absolute path) and the compile command it is parsed with.
using InputCommand = std::pair<std::string, std::vector<std::string>>;

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
};
std::vector<InputCommand> inputCommands(const DriverOptions &Opts,
                                        std::string &Why,
                                        std::vector<HeaderJob> *Headers = nullptr);

/// \p P made absolute, with `.` and `..` removed.
std::string absolutePath(llvm::StringRef P);

int runDriver(const DriverOptions &Opts, llvm::raw_ostream &Out,
              llvm::raw_ostream &Err);

/// Writes \p Content to \p Path atomically: a temporary file in the same
/// directory, synced, with the original's permissions and owner, then a
/// rename over the original (over the file a symlink names, not the link).
/// Fails, writing nothing, for the reasons whyNotRewritable gives.
llvm::Error writeFileAtomically(llvm::StringRef Path, llvm::StringRef Expected,
                                llvm::StringRef Content);

/// Writes \p Content to \p Path whole or not at all (a temporary file
/// renamed over it): readers never see a half-written file.
llvm::Error writeNewFile(llvm::StringRef Path, llvm::StringRef Content);

/// Why --fix must not replace \p Path: it is not a regular file, is
/// read-only (no write permission bit, or not writable by this user: a
/// rename would bypass its mode), or has several hard links. Empty if none.
std::string whyNotWritable(llvm::StringRef Path);

/// whyNotWritable, or \p Path no longer holds \p Expected (it changed on
/// disk since it was read). Empty if it can be rewritten.
std::string whyNotRewritable(llvm::StringRef Path, llvm::StringRef Expected);

} // namespace proxyfence

#endif
