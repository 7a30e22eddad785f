//===- Driver.cpp - run the analysis on files, report, fix -----------------===//
#include "support/Files.h"
#include "proxyfence/Driver.h"
#include "analysis/ProxyDataflow.h"
#include "frontend/CompileArgs.h"
#include "proxyfence/Config.h"
#include "report/Formats.h"
#include "frontend/HeaderTU.h"
#include "frontend/ProjectFiles.h"
#include "driver/InputJob.h"
#include "driver/IsolatedJob.h"
#include "driver/ResultCache.h"
#include "rules/MbarrierInit.h"
#include "report/Output.h"
#include "proxyfence/Rules.h"
#include "proxyfence/TranslationUnit.h"
#include "clang/AST/ASTConsumer.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/DiagnosticAST.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "clang/Tooling/Core/Replacement.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/thread.h"
#include "clang/Basic/Stack.h"
#include "llvm/Support/VirtualFileSystem.h"
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include "llvm/Support/Signals.h"
#include <cstring>
#include <set>
#include <tuple>
#include <unistd.h>

using namespace clang;

namespace proxyfence {

namespace {

/// A clear reason why \p Path cannot be analysed (or, with \p ForFix,
/// rewritten), or empty.
std::string checkInputFile(llvm::StringRef Path, bool ForFix) {
  llvm::sys::fs::file_status St;
  if (std::error_code EC = llvm::sys::fs::status(Path, St))
    return "cannot read '" + Path.str() + "': " + EC.message();
  if (llvm::sys::fs::is_directory(St))
    return "'" + Path.str() + "' is a directory, not a source file";
  // A FIFO or a device would block the front end or read as nothing.
  if (!llvm::sys::fs::is_regular_file(St))
    return "'" + Path.str() + "' is not a regular file";
  auto Buf = llvm::MemoryBuffer::getFile(Path);
  if (!Buf)
    return "cannot read '" + Path.str() + "': " + Buf.getError().message();
  llvm::StringRef Text = (*Buf)->getBuffer().take_front(1 << 16);
  if (Text.contains('\0'))
    return "'" + Path.str() + "' is not a CUDA or C++ source file (binary data)";
  if (ForFix) {
    std::string Why = whyNotWritable(Path);
    if (!Why.empty())
      return Why + "; --fix cannot rewrite it";
  }
  return "";
}

} // namespace


llvm::Error writeNewFile(llvm::StringRef Path, llvm::StringRef Content) {
  llvm::SmallString<256> Model(Path);
  Model += ".%%%%%%.tmp";
  int FD;
  llvm::SmallString<256> Tmp;
  if (std::error_code EC = llvm::sys::fs::createUniqueFile(Model, FD, Tmp))
    return llvm::createStringError(EC, "cannot create a file next to '" +
                                           Path.str() + "': " + EC.message());
  llvm::sys::RemoveFileOnSignal(Tmp);
  std::error_code EC;
  {
    llvm::raw_fd_ostream OS(FD, /*shouldClose=*/true);
    OS << Content;
    OS.flush();
    EC = OS.error();
    OS.clear_error();
  }
  if (!EC)
    EC = llvm::sys::fs::rename(Tmp, Path);
  if (EC)
    llvm::sys::fs::remove(Tmp);
  llvm::sys::DontRemoveFileOnSignal(Tmp);
  if (EC)
    return llvm::createStringError(EC, "cannot write '" + Path.str() +
                                           "': " + EC.message());
  return llvm::Error::success();
}


/// Keys the edits of \p R by the file they land in (symlinks resolved), so
/// that a file reached under two names is written once.
static void keyEditsByRealPath(FileResult &R) {
  std::map<std::string, tooling::Replacements> Edits;
  std::map<std::string, std::string> Originals;
  for (auto &[Path, Repls] : R.Edits) {
    llvm::SmallString<256> Real;
    if (llvm::sys::fs::real_path(Path, Real))
      Real = Path; // gone: writing it fails later, with a message
    std::string Key(Real);
    for (const tooling::Replacement &Rep : Repls)
      llvm::consumeError(Edits[Key].add(tooling::Replacement(
          Key, Rep.getOffset(), Rep.getLength(), Rep.getReplacementText())));
    auto Orig = R.Originals.find(Path);
    if (Orig != R.Originals.end())
      Originals[Key] = std::move(Orig->second);
  }
  R.Edits = std::move(Edits);
  R.Originals = std::move(Originals);
}


/// The compilation database in \p BuildPath, or null and a one-line \p Why.
static std::unique_ptr<tooling::CompilationDatabase>
loadDatabase(const std::string &BuildPath, std::string &Why) {
  std::string Msg;
  auto DB = tooling::CompilationDatabase::loadFromDirectory(BuildPath, Msg);
  if (!DB) {
    // One line: the loaders' reasons come one per line.
    std::string Reason = llvm::StringRef(Msg).trim().str();
    std::replace(Reason.begin(), Reason.end(), '\n', ' ');
    Why = "cannot load a compilation database from '" + BuildPath +
          "': " + Reason;
  }
  return DB;
}

/// Whether a database entry compiles CUDA: a .cu/.cuh file, or a command
/// that says so with clang's `-x cuda` or nvcc's `-x cu`.
static bool isCudaEntry(const tooling::CompileCommand &C) {
  llvm::StringRef Ext = llvm::sys::path::extension(C.Filename);
  if (Ext == ".cu" || Ext == ".cuh")
    return true;
  const std::vector<std::string> &Args = C.CommandLine;
  for (size_t I = 1; I < Args.size(); ++I) {
    llvm::StringRef A = Args[I], Lang;
    if ((A == "-x" || A == "--x" || A == "--language") && I + 1 < Args.size())
      Lang = Args[I + 1];
    else if (!A.consume_front("-x=") && !A.consume_front("--x=") &&
             !A.consume_front("--language=") && !A.consume_front("-x"))
      continue;
    else
      Lang = A;
    if (Lang == "cuda" || Lang == "cu")
      return true;
  }
  return false;
}

std::vector<std::string> cudaDatabaseFiles(const std::string &BuildPath,
                                           std::string &Why) {
  auto DB = loadDatabase(BuildPath, Why);
  if (!DB)
    return {};
  std::vector<tooling::CompileCommand> All = DB->getAllCompileCommands();
  if (All.empty()) {
    Why = "the compilation database in '" + BuildPath + "' has no entries";
    return {};
  }
  std::vector<std::string> Files;
  std::set<std::string> Seen;
  for (const tooling::CompileCommand &C : All) {
    if (!isCudaEntry(C))
      continue;
    llvm::SmallString<256> Path(C.Filename);
    if (llvm::sys::path::is_relative(Path)) {
      Path = C.Directory;
      llvm::sys::path::append(Path, C.Filename);
    }
    // A file built twice (two targets) is analysed once, with its first
    // entry, as when it is named on the command line.
    std::string Abs = absolutePath(Path);
    if (Seen.insert(Abs).second)
      Files.push_back(Abs);
  }
  if (Files.empty())
    Why = "the compilation database in '" + BuildPath +
          "' has no CUDA entries (.cu/.cuh files or -x cuda commands); name "
          "the files to analyse";
  return Files;
}

/// Calls left unresolved above which a file analysed as uninstantiated
/// templates is said to be barely seen.
constexpr unsigned BlindUnresolvedCalls = 20;

/// The one line telling a user that a clean result means "not seen": the
/// file's templates were analysed as written, with most calls unknown.
static std::string patternBlindness(const FileResult &R) {
  if (!R.PatternsOnly || R.PatternCalls < BlindUnresolvedCalls)
    return "";
  std::string Templates =
      std::to_string(R.PatternsOnly) + " device function template" +
      (R.PatternsOnly == 1 ? "" : "s");
  // Most of the file seen as instantiated: say which part was not.
  std::string What =
      R.PatternsOnly < R.Templates
          ? Templates + " of " + std::to_string(R.Templates) +
                " not instantiated in this translation unit, analysed as "
                "written: " +
                std::to_string(R.PatternCalls) + " calls unresolved in them"
          : "analysed as an uninstantiated pattern (" + Templates +
                " that nothing instantiates): " +
                std::to_string(R.PatternCalls) + " calls unresolved";
  return What + "; run it through a file that instantiates it (-p build/, "
                "or a .cu of the project that includes it and instantiates "
                "its templates)";
}

std::vector<InputCommand> inputCommands(const DriverOptions &Opts,
                                        std::string &Why,
                                        std::vector<HeaderJob> *Headers) {
  std::unique_ptr<tooling::CompilationDatabase> DB;
  if (!Opts.BuildPath.empty()) {
    DB = loadDatabase(Opts.BuildPath, Why);
    if (!DB)
      return {};
  }
  std::vector<InputCommand> Jobs;
  for (const std::string &F : Opts.Files) {
    Why = checkInputFile(F, Opts.Fix);
    if (!Why.empty())
      return {};
    std::string Abs = absolutePath(F);
    std::vector<std::string> Cmd{"clang++"};
    if (DB) {
      std::vector<tooling::CompileCommand> CCs = DB->getCompileCommands(Abs);
      // A command guessed from another file's (clang's interpolation for
      // files the database does not list) is not the file's own.
      llvm::erase_if(CCs, [](const tooling::CompileCommand &C) {
        return !C.Heuristic.empty();
      });
      HeaderJob Header;
      if (CCs.empty()) {
        std::optional<HeaderContext> H;
        if (isHeaderName(Abs))
          H = headerContext(*DB, Abs);
        if (!H) {
          Why = "'" + F + "' is not in the compilation database in '" +
                Opts.BuildPath + "'";
          return {};
        }
        Header.Note = describeHeaderContext(Abs, *H);
        if (H->Includes) {
          Header.Focus = Abs;
          Header.AloneOnFailure = true;
          Abs = H->EntryFile;
        }
        CCs = {H->Command};
      }
      if (Headers)
        Headers->push_back(Header);
      Cmd = CCs.front().CommandLine;
      // Relative -I paths in the database are relative to its directory.
      if (!CCs.front().Directory.empty())
        Cmd.insert(Cmd.begin() + 1, "-working-directory=" + CCs.front().Directory);
    } else if (Headers) {
      HeaderJob Header;
      if (Opts.InstantiatingSource && isHeaderName(Abs)) {
        ProjectFiles Project(Abs, Opts.CudaPath);
        if (std::optional<HeaderContext> P = includingHeaderInTree(
                Abs, Project.root(), Project.isGitWorkTree(), Opts.ExtraArgs))
          Header.IncluderHeader = P->EntryFile;
        if (std::optional<HeaderContext> H = includingSourceInTree(
                Abs, Project.root(), Project.isGitWorkTree(), Opts.ExtraArgs)) {
          Header.Note = describeHeaderContext(Abs, *H);
          Header.Focus = Abs;
          Header.AloneOnFailure = true;
          Header.SecondSource = H->SecondEntryFile;
          Abs = H->EntryFile;
        }
      }
      Headers->push_back(Header);
    }
    if (!Opts.LaunchCommand.empty()) {
      Cmd = Opts.LaunchCommand;
      llvm::SmallString<256> Cwd;
      if (!llvm::sys::fs::current_path(Cwd))
        Cmd.insert(Cmd.begin() + 1, "-working-directory=" + Cwd.str().str());
    }
    Cmd.insert(Cmd.end(), Opts.ExtraArgs.begin(), Opts.ExtraArgs.end());
    Jobs.push_back({Abs, Cmd});
  }
  return Jobs;
}

namespace {
/// "[12/340] file.cu" on one line of stderr while files are analysed, only
/// on a terminal; erased before anything else is printed.
class ProgressLine {
public:
  ProgressLine(llvm::raw_ostream &Err, size_t Total)
      : Err(Err), Total(Total),
        Enabled(Total > 1 && llvm::sys::Process::StandardErrIsDisplayed()) {}
  /// Callers hold Lock.
  void started(size_t Index, llvm::StringRef Name) {
    if (!Enabled)
      return;
    Err << "\r\x1b[K[" << Index + 1 << "/" << Total << "] " << Name;
    Err.flush();
    Shown = true;
  }
  void clear() {
    if (!Shown)
      return;
    Err << "\r\x1b[K";
    Err.flush();
    Shown = false;
  }
  std::mutex Lock;

private:
  llvm::raw_ostream &Err;
  size_t Total;
  bool Enabled, Shown = false;
};
} // namespace
/// One input analysed within --timeout: in a child process that can be
/// killed, or with --timeout=0 here. A result cache hit (unless
/// --no-cache) skips both.
using JobRunner =
    llvm::function_ref<FileOutcome(const DriverOptions &, const InputCommand &)>;
/// The same, skipping the findings whose keys it is given (already reported).
using SkippingRunner = llvm::function_ref<FileOutcome(
    const DriverOptions &, const InputCommand &, const std::set<std::string> &)>;

/// A header analysed as its own translation unit (\p Job names it). One
/// that is not self-contained (it uses what the header including it
/// included first) loses code to front-end errors there: it is then read
/// through that header too, and the run that lost fewer functions is kept.
static FileOutcome analyseHeaderAlone(const DriverOptions &Opts,
                                      const InputCommand &Job, JobRunner run) {
  FileOutcome A = run(Opts, Job);
  if (Opts.IncluderHeader.empty() || !A.accepted() ||
      A.R.Blind.Dropped.empty())
    return A;
  DriverOptions Through = Opts;
  Through.FocusHeader = Job.first;
  Through.FocusAloneOnFailure = false;
  std::string Lost = std::to_string(A.R.Blind.Dropped.size()) +
                     " of its functions lost code to front-end errors";
  Through.HeaderContextNote =
      Opts.HeaderContextNote.empty()
          ? "header " + Job.first + " analysed through " +
                Opts.IncluderHeader + ", which includes it: alone, " + Lost
          : Opts.HeaderContextNote + "; alone, " + Lost +
                ", so it was read through " + Opts.IncluderHeader;
  FileOutcome I = run(Through, {Opts.IncluderHeader, Job.second});
  if (I.accepted() && !I.R.FocusNotIncluded &&
      I.R.Blind.Dropped.size() < A.R.Blind.Dropped.size())
    return I;
  return A;
}

/// Adds the findings of the focus header's second instantiation \p From
/// (which skipped those of \p Into) to \p Into: reported, counted and
/// fixed with them. The counts of what was not seen stay the first's.
static void addInstantiation(FileOutcome &Into, FileOutcome &&From) {
  FileResult &R = Into.R, &F = From.R;
  R.Report += F.Report;
  R.Findings += F.Findings;
  R.Suppressed += F.Suppressed;
  R.Unfixable += F.Unfixable;
  // The same library hazards are met in both: counted once.
  R.InLibrary = std::max(R.InLibrary, F.InLibrary);
  R.OutsideFocus = std::max(R.OutsideFocus, F.OutsideFocus);
  auto append = [](auto &To, auto &Items) {
    To.insert(To.end(), std::make_move_iterator(Items.begin()),
              std::make_move_iterator(Items.end()));
  };
  append(R.Diags, F.Diags);
  append(R.Keys, F.Keys);
  append(R.SkippedKeys, F.SkippedKeys);
  append(R.Sites, F.Sites);
  append(R.TraceLines, F.TraceLines);
  append(R.Inputs, F.Inputs);
  for (std::string &H : F.Stats.HeaderContexts)
    if (!llvm::is_contained(R.Stats.HeaderContexts, H))
      R.Stats.HeaderContexts.push_back(std::move(H));
  for (auto &[Path, Repls] : F.Edits)
    for (const tooling::Replacement &Rep : Repls)
      if (!llvm::is_contained(R.Edits[Path], Rep))
        llvm::consumeError(R.Edits[Path].add(Rep));
  for (auto &[Path, Text] : F.Originals)
    R.Originals.emplace(Path, std::move(Text));
}

/// A header placed in a first including source \p O (analysed with
/// \p Through's options) is also analysed in the second source the project
/// search chose, configured unlike the first, in the time the header alone
/// would have had: it reaches the arms of the header's templates that the
/// first compiled away. Its findings are added to \p O's, each once.
static void addSecondInstantiation(const DriverOptions &Opts,
                                   const DriverOptions &Through,
                                   const InputCommand &Job,
                                   const std::set<std::string> &Reported,
                                   SkippingRunner run, FileOutcome &O) {
  DriverOptions Second = Through;
  Second.Timeout = Opts.Timeout ? Opts.Timeout - Through.Timeout : 0;
  Second.HeaderContextNote =
      "header " + Opts.FocusHeader + " also analysed in translation unit " +
      Opts.FocusSecondSource +
      " (a second instantiation, configured unlike the first)";
  std::set<std::string> Skip = Reported;
  Skip.insert(O.R.Keys.begin(), O.R.Keys.end());
  FileOutcome S = run(Second, {Opts.FocusSecondSource, Job.second}, Skip);
  if (S.accepted() && !S.ErrorLimitHit && !S.R.FocusNotIncluded) {
    addInstantiation(O, std::move(S));
    return;
  }
  O.R.Stats.HeaderContexts.push_back(
      "header " + Opts.FocusHeader + " not analysed in a second translation "
      "unit " + Opts.FocusSecondSource + ": " +
      (!S.Failure.empty()      ? S.Failure
       : S.ErrorLimitHit       ? "its parse stopped at --max-errors"
       : S.R.FocusNotIncluded  ? "its #include of the header is compiled out"
                               : "it could not be parsed"));
}

/// The input as its job says; a header the project search placed in an
/// including source gets half of --timeout there and, if that source
/// cannot be analysed in it or parsed, is analysed alone in the rest: the
/// instantiation is a bonus, never the reason a header goes unseen.
static FileOutcome analyseInstantiatingSource(const DriverOptions &Opts,
                                              const InputCommand &Job,
                                              const std::set<std::string> &Reported) {
  auto runSkipping = [&](const DriverOptions &O, const InputCommand &J,
                         const std::set<std::string> &Skip) {
    return O.Timeout ? analyseInputIsolated(O, J, Skip)
                     : analyseInput(O, J, Skip);
  };
  auto run = [&](const DriverOptions &O, const InputCommand &J) {
    return runSkipping(O, J, Reported);
  };
  if (!Opts.FocusAloneOnFailure)
    return Opts.FocusHeader.empty() ? analyseHeaderAlone(Opts, Job, run)
                                    : run(Opts, Job);
  // Most of the time for the instantiating source: parsing a project's TU
  // costs more than the header alone, which is the fallback.
  DriverOptions Through = Opts;
  Through.Timeout = Opts.Timeout ? std::max(1u, Opts.Timeout * 3 / 4) : 0;
  FileOutcome O = run(Through, Job);
  // A source whose parse stopped at the error limit (a JIT project's source
  // that includes a generated file the checkout lacks) may stop before the
  // header's code: the header alone is analysed too, and the run that
  // reached more of its device functions is kept.
  bool Stopped = O.accepted() && O.ErrorLimitHit;
  // Its `#include` of the header compiled out with these flags (`#ifdef
  // ENABLE_X` around it): the source shows nothing of the header.
  bool NotIncluded = O.accepted() && O.R.FocusNotIncluded;
  if (O.accepted() && !Stopped && !NotIncluded) {
    if (!Opts.FocusSecondSource.empty())
      addSecondInstantiation(Opts, Through, Job, Reported, runSkipping, O);
    return O;
  }
  std::string Why =
      Stopped ? "its parse stopped at --max-errors=" +
                    std::to_string(Opts.MaxErrors)
      : NotIncluded ? "its #include of the header is compiled out with "
                      "these flags (#if)"
      : O.Failure.empty() ? "it could not be parsed"
                          : O.Failure;
  DriverOptions Alone = Opts;
  Alone.Timeout = Opts.Timeout ? Opts.Timeout - Through.Timeout : 0;
  Alone.FocusHeader.clear();
  Alone.FocusAloneOnFailure = false;
  Alone.HeaderContextNote = "header " + Opts.FocusHeader +
                            " analysed alone: its including source " +
                            Job.first + " failed (" + Why + ")";
  FileOutcome A = analyseHeaderAlone(Alone, {Opts.FocusHeader, Job.second}, run);
  if (Stopped && !(A.accepted() && A.R.Blind.DeviceFunctions >
                                       O.R.Blind.DeviceFunctions))
    return O;
  if (!O.Failure.empty())
    A.IncluderFailed = Job.first + " (" + O.Failure + ": its share of " +
                       "--timeout=" + std::to_string(Opts.Timeout) + ")";
  return A;
}

/// A command built for several architectures with the async proxy
/// (`-gencode sm_90a -gencode sm_100a`) compiles device code for each, and
/// `#if __CUDA_ARCH__ == 900` keeps some of it to one: \p O, analysed for
/// the first, is joined by an analysis for each other one. Its findings are
/// added to \p O's, each once; a function is a stub only if it is one in
/// every pass. --arch names one architecture and turns this off.
static void addOtherArchitectures(const DriverOptions &Opts,
                                  const InputCommand &Job,
                                  const std::set<std::string> &Reported,
                                  FileOutcome &O) {
  if (!Opts.Arch.empty() || !O.accepted())
    return;
  std::string First = targetArch(Job.second, "");
  for (const std::string &Arch : otherAsyncProxyArchs(Job.second, First)) {
    DriverOptions Other = Opts;
    Other.Arch = Arch;
    std::set<std::string> Skip = Reported;
    Skip.insert(O.R.Keys.begin(), O.R.Keys.end());
    FileOutcome A = analyseInstantiatingSource(Other, Job, Skip);
    if (!A.accepted()) {
      O.R.Stats.HeaderContexts.push_back(
          "not analysed for " + Arch + ", the command's other target: " +
          (A.Failure.empty() ? "it could not be parsed" : A.Failure));
      continue;
    }
    O.R.Blind.addArchitecture(A.R.Blind);
    // A template compiled out for one target is instantiated for another.
    if (A.R.PatternsOnly < O.R.PatternsOnly) {
      O.R.PatternsOnly = A.R.PatternsOnly;
      O.R.PatternCalls = A.R.PatternCalls;
      O.R.Templates = A.R.Templates;
    }
    addInstantiation(O, std::move(A));
    O.R.Stats.HeaderContexts.push_back("also analysed for " + Arch +
                                       ", the command's other target (after " +
                                       First + ")");
  }
}

static FileOutcome analyseWithinLimit(const DriverOptions &Opts,
                                      const InputCommand &Job,
                                      const std::set<std::string> &Reported) {
  static ResultCache Cache;
  // A traced run says what the analysis sees: never from the cache.
  bool Cached = Opts.UseCache && Cache.enabled() && Opts.Trace.empty();
  if (Cached)
    if (std::optional<FileOutcome> Hit = Cache.lookup(Opts, Job, Reported)) {
      Hit->FromCache = true;
      return std::move(*Hit);
    }
  FileOutcome O = analyseInstantiatingSource(Opts, Job, Reported);
  addOtherArchitectures(Opts, Job, Reported, O);
  if (Cached)
    Cache.store(Opts, Job, O);
  return O;
}

namespace {
/// What one run carries from step to step: the inputs, what their analysis
/// gave, the merged findings and edits, and the totals of --fix that the
/// summary and the exit code read.
struct DriverRun {
  DriverRun(const DriverOptions &Opts, llvm::raw_ostream &Out,
            llvm::raw_ostream &Err)
      : Opts(Opts), Out(Out), Err(Err) {}
  const DriverOptions &Opts;
  llvm::raw_ostream &Out, &Err;

  // collectJobs
  std::vector<std::string> Names; // the inputs as the user sees them
  std::vector<InputCommand> Jobs;
  std::vector<DriverOptions> FileOpts; // each input's, with its config file

  // analyseAll
  std::vector<FileResult> Results;
  unsigned InputErrors = 0, Degraded = 0, CacheHits = 0;
  std::vector<std::string> DegradedFiles;
  std::vector<std::pair<std::string, std::string>> Incomplete;

  // mergeResults
  unsigned Findings = 0, Suppressed = 0, InLibrary = 0, OutsideFocus = 0;
  tooling::TranslationUnitDiagnostics TUD;
  std::map<std::string, tooling::Replacements> Edits;
  std::map<std::string, std::string> Originals;
  RunFindings Machine; // --format=sarif/json
  BlindSpots Blind;    // over every input

  // fixAndVerify
  unsigned Remaining = 0, Fixed = 0, Written = 0;
  bool VerifyFailed = false, WriteFailed = false;
};
} // namespace

static int inputError(llvm::raw_ostream &Err, const std::string &Msg) {
  Err << "proxyfence: error: " << Msg << "\n";
  return ExitInputError;
}

/// The options that no input can make right; an exit code when one is
/// wrong.
static std::optional<int> checkRunOptions(const DriverOptions &Opts,
                                          llvm::raw_ostream &Err) {
  if (Opts.Files.empty() && Opts.BuildPath.empty())
    return inputError(Err,
                      "no input files (usage: proxyfence [options] <file>... "
                      "[-- <compiler args>], or proxyfence -p <build dir>)");
  if (!Opts.Arch.empty() && !isKnownArch(Opts.Arch))
    return inputError(
        Err, "unknown --arch '" + Opts.Arch +
                 "' (expected a CUDA GPU architecture such as sm_90a or sm_100a)");
  if (!llvm::sys::fs::exists(Opts.CudaPath + "/include/cuda.h"))
    return inputError(Err, "no CUDA installation at '" + Opts.CudaPath +
                               "' (include/cuda.h not found); use --cuda-path");
  TraceTarget Traced;
  std::string TraceWhy;
  if (!Opts.Trace.empty() && !TraceTarget::parse(Opts.Trace, Traced, TraceWhy))
    return inputError(Err, TraceWhy);
  std::string RegexError;
  if (!Opts.HeaderFilter.empty() &&
      !llvm::Regex(Opts.HeaderFilter).isValid(RegexError))
    return inputError(Err, "invalid --header-filter '" + Opts.HeaderFilter +
                               "': " + RegexError);
  return std::nullopt;
}

/// The inputs, their commands and their options into \p Run; an exit code
/// when the run ends here (a bad input, an empty shard).
static std::optional<int> collectJobs(DriverRun &Run) {
  const DriverOptions &Opts = Run.Opts;
  llvm::raw_ostream &Err = Run.Err;
  // Every input is checked before anything is analysed or written. With -p
  // and no files: every CUDA entry of the database.
  std::string Why;
  DriverOptions Inputs = Opts;
  if (Inputs.Files.empty()) {
    Inputs.Files = cudaDatabaseFiles(Opts.BuildPath, Why);
    if (!Why.empty())
      return inputError(Err, Why);
  }
  if (Opts.ShardCount) {
    // Every N-th input from the K-th: a CI matrix splits a database the
    // same way on every machine, and the shards' union is the whole.
    std::vector<std::string> Shard;
    for (size_t I = Opts.ShardIndex; I < Inputs.Files.size(); I += Opts.ShardCount)
      Shard.push_back(Inputs.Files[I]);
    Inputs.Files = std::move(Shard);
    if (Inputs.Files.empty()) {
      if (!Opts.Quiet)
        Err << "proxyfence: 0 findings in 0 files (shard " << Opts.ShardIndex + 1
            << "/" << Opts.ShardCount << " is empty)\n";
      return ExitClean;
    }
  }
  std::vector<HeaderJob> Headers;
  Run.Jobs = inputCommands(Inputs, Why, &Headers);
  if (!Why.empty())
    return inputError(Err, Why);
  // Each input's options: its .proxyfence.yaml under the command line.
  Run.FileOpts = optionsPerInput(Opts, Run.Jobs, Why);
  if (!Why.empty())
    return inputError(Err, Why);
  for (size_t I = 0; I < Run.Jobs.size(); ++I) {
    Run.FileOpts[I].FocusHeader = Headers[I].Focus;
    Run.FileOpts[I].HeaderContextNote = Headers[I].Note;
    Run.FileOpts[I].FocusAloneOnFailure = Headers[I].AloneOnFailure;
    Run.FileOpts[I].IncluderHeader = Headers[I].IncluderHeader;
    Run.FileOpts[I].FocusSecondSource = Headers[I].SecondSource;
    Run.FileOpts[I].IncludeDirs = userIncludeDirs(Run.Jobs[I].second);
    if (!Opts.BuildPath.empty())
      Run.FileOpts[I].DatabaseDir = absolutePath(Opts.BuildPath);
  }
  Run.Names = std::move(Inputs.Files);
  return std::nullopt;
}

/// --print-command: the exact front-end command, for reproducing a parse
/// (and bench/).
static void printCommands(const DriverRun &Run) {
  for (size_t I = 0; I < Run.Jobs.size(); ++I) {
    const auto &[File, Cmd] = Run.Jobs[I];
    for (const std::string &A :
         deviceCommand(Cmd, File,
                       {Run.FileOpts[I].Arch, Run.Opts.CudaPath,
                        Run.Opts.NvccView}))
      Run.Out << llvm::sys::path::convert_to_slash(A) << '\0';
    Run.Out << '\n';
  }
}

/// Takes input \p I's outcome into \p Run in input order: its messages,
/// its report (text) and what it adds to the totals. Callers hold the
/// progress line's lock.
static void takeOutcome(DriverRun &Run, size_t I, FileOutcome &O,
                        std::set<std::string> &Reported) {
  const DriverOptions &Opts = Run.Opts;
  llvm::raw_ostream &Out = Run.Out, &Err = Run.Err;
  const std::string &Name = Run.Names[I];
  FileResult &R = Run.Results[I];
  if (!O.Failure.empty()) {
    Err << "proxyfence: error: cannot analyse '" << Name << "': "
        << O.Failure << "\n";
    ++Run.InputErrors;
    return;
  }
  if (!O.accepted()) {
    Err << "proxyfence: error: cannot parse '" << Name << "' as CUDA"
        << (O.FirstError.empty() ? "" : ": ") << O.FirstError
        << (O.ErrorLimitHit ? "; parsing stopped at --max-errors=" +
                                  std::to_string(Opts.MaxErrors) +
                                  " (raise it, or 0 for no limit)"
                            : std::string())
        << "\n";
    ++Run.InputErrors;
    return;
  }
  for (const std::string &H : O.MissingHeaders)
    Err << "proxyfence: " << (Opts.Strict ? "error" : "warning") << ": '"
        << Name << "': header " << H
        << " not found; skipped, and the analysis went on without what it "
           "declares"
        << (Opts.Strict ? " (--strict)" : " (code that needs it is seen in "
                                          "part; --strict makes this an "
                                          "error)")
        << "\n";
  if (Opts.Strict && !O.MissingHeaders.empty())
    ++Run.Degraded;
  Reported.insert(R.Keys.begin(), R.Keys.end());
  keyEditsByRealPath(R);
  if (R.Blind.mostlyStubs() && !Opts.Quiet)
    Err << "proxyfence: note: '" << Name << "': " << R.Blind.Stubs.size()
        << " of " << R.Blind.DeviceFunctions
        << " device functions are stubs for "
        << targetArch(Run.Jobs[I].second, Run.FileOpts[I].Arch)
        << " (code preprocessed away, or only a trap); check --arch and "
           "the -D flags of the build (--stats lists them)\n";
  // The report goes to stdout and the notes after it to stderr: flushed
  // first, so that a terminal or `2>&1` never shows one inside the other.
  if (Opts.Format == OutputFormat::Text)
    Out << R.Report;
  Out.flush();
  for (const std::string &L : R.TraceLines)
    Err << L << "\n";
  if (!O.IncluderFailed.empty()) {
    std::string Why = "analysed alone, not through its including source " +
                      O.IncluderFailed + "; what only the instantiation "
                      "shows was not seen (raise --timeout)";
    if (Opts.Format != OutputFormat::Text)
      Run.Incomplete.emplace_back(Name, Why);
    else if (!Opts.Quiet)
      Err << "proxyfence: note: '" << Name << "': " << Why << "\n";
  }
  if (std::string Why = patternBlindness(R); !Why.empty()) {
    if (Opts.Format == OutputFormat::Text) {
      if (!Opts.Quiet)
        Err << "proxyfence: note: '" << Name << "': " << Why << "\n";
    } else {
      Run.Incomplete.emplace_back(Name, Why);
    }
  }
  if (O.Errors) {
    ++Run.Degraded;
    Run.DegradedFiles.push_back(Name);
    std::string Why =
        "the clang front end rejected part of this file (" +
        std::to_string(O.Errors) + " error" + (O.Errors == 1 ? "" : "s") +
        "; first: " + O.FirstError + ")" +
        (O.ForeignErrors ? "; " + std::to_string(O.ForeignErrors) +
                               " in files outside the project"
                         : std::string()) +
        (O.ErrorLimitHit ? "; parsing stopped at --max-errors=" +
                               std::to_string(Opts.MaxErrors) +
                               ": the rest of the file was not analysed"
                         : std::string()) +
        "; findings cover what could be analysed";
    if (Opts.Format == OutputFormat::Text)
      Out << Name << ": note: " << Why << " [proxyfence]\n";
    else
      Run.Incomplete.emplace_back(Name, Why);
    if (Opts.Strict)
      Err << "proxyfence: error: '" << Name
          << "' has front-end errors (first: " << O.FirstError
          << ") and --strict is set\n";
  }
}

/// Analyses every input, with -j workers, and takes the outcomes in input
/// order.
static void analyseAll(DriverRun &Run) {
  const std::vector<InputCommand> &Jobs = Run.Jobs;
  const std::vector<std::string> &Names = Run.Names;
  // -j: workers take the files in input order, each skipping the findings
  // of earlier files that have finished. Results are then taken in input
  // order; one that repeats a finding an earlier file reported (a shared
  // header that file had not finished yet) is analysed again with all of
  // them, so that output, deduplication and fixes are the serial run's.
  ProgressLine Progress(Run.Err, Jobs.size());
  size_t Threads = Run.Opts.Jobs
                       ? Run.Opts.Jobs
                       : llvm::hardware_concurrency().compute_thread_count();
  Threads = std::min(Threads, Jobs.size());
  std::vector<FileOutcome> Outcomes(Jobs.size());
  std::vector<std::vector<std::string>> FinishedKeys(Jobs.size());
  std::vector<char> Finished(Jobs.size(), 0);
  std::condition_variable FinishedCV;
  std::atomic<size_t> Next{0};
  std::vector<llvm::thread> Workers;
  if (Threads > 1) {
    // Colours are looked up (and cached) once, not by each thread.
    (void)llvm::outs().has_colors();
    for (size_t T = 0; T < Threads; ++T)
      Workers.emplace_back(std::optional<unsigned>(clang::DesiredStackSize), [&] {
        clang::noteBottomOfStack();
        for (size_t I; (I = Next++) < Jobs.size();) {
          std::set<std::string> Earlier;
          {
            std::lock_guard<std::mutex> G(Progress.Lock);
            Progress.started(I, Names[I]);
            for (size_t J = 0; J < I; ++J)
              Earlier.insert(FinishedKeys[J].begin(), FinishedKeys[J].end());
          }
          FileOutcome O = analyseWithinLimit(Run.FileOpts[I], Jobs[I], Earlier);
          std::lock_guard<std::mutex> G(Progress.Lock);
          if (O.accepted())
            FinishedKeys[I] = O.R.Keys;
          Outcomes[I] = std::move(O);
          Finished[I] = 1;
          FinishedCV.notify_all();
        }
      });
  }

  Run.Results.resize(Jobs.size());
  std::set<std::string> Reported; // findingKey of what earlier files reported
  for (size_t I = 0; I < Jobs.size(); ++I) {
    FileOutcome O;
    if (Workers.empty()) {
      {
        std::lock_guard<std::mutex> G(Progress.Lock);
        Progress.started(I, Names[I]);
      }
      O = analyseWithinLimit(Run.FileOpts[I], Jobs[I], Reported);
    } else {
      {
        std::unique_lock<std::mutex> L(Progress.Lock);
        FinishedCV.wait(L, [&] { return Finished[I] != 0; });
      }
      O = std::move(Outcomes[I]);
      if (llvm::any_of(O.R.Keys,
                       [&](const std::string &K) { return Reported.count(K); }))
        O = analyseWithinLimit(Run.FileOpts[I], Jobs[I], Reported);
    }
    Run.Results[I] = std::move(O.R);
    Run.CacheHits += O.FromCache;
    std::lock_guard<std::mutex> G(Progress.Lock);
    Progress.clear();
    takeOutcome(Run, I, O, Reported);
  }
  for (llvm::thread &W : Workers)
    W.join();
  Run.Out.flush();
}

/// Merges every input's findings, diagnostics and edits (a header fixed
/// from two files once).
static void mergeResults(DriverRun &Run) {
  const DriverOptions &Opts = Run.Opts;
  Run.TUD.MainSourceFile = Run.Jobs.size() == 1 ? Run.Jobs[0].first : "";
  // clang-apply-replacements applies every replacement of every diagnostic
  // of a translation unit, and two equal insertions at one offset add the
  // text twice: a fence point (or an include) shared by several findings is
  // exported with the first of them only.
  std::set<std::tuple<std::string, unsigned, unsigned, std::string>> Exported;
  for (FileResult &R : Run.Results) {
    Run.Blind.add(R.Blind);
    Run.Findings += R.Findings;
    Run.Suppressed += R.Suppressed;
    Run.InLibrary += R.InLibrary;
    Run.OutsideFocus += R.OutsideFocus;
    if (Opts.Format != OutputFormat::Text || !Opts.SarifFile.empty())
      Run.Machine.Diags.insert(Run.Machine.Diags.end(), R.Diags.begin(),
                               R.Diags.end());
    for (tooling::Diagnostic D : R.Diags) {
      std::vector<std::string> Emptied;
      for (auto &[Path, Repls] : D.Message.Fix) {
        tooling::Replacements Kept;
        for (const tooling::Replacement &Rep : Repls)
          if (Exported
                  .insert({Rep.getFilePath().str(), Rep.getOffset(),
                           Rep.getLength(), Rep.getReplacementText().str()})
                  .second)
            llvm::consumeError(Kept.add(Rep));
        if (Kept.empty())
          Emptied.push_back(Path.str());
        Repls = std::move(Kept);
      }
      for (const std::string &Path : Emptied)
        D.Message.Fix.erase(Path);
      Run.TUD.Diagnostics.push_back(std::move(D));
    }
    for (auto &[Path, Repls] : R.Edits)
      for (const tooling::Replacement &Rep : Repls) {
        // The same edit planned from two inputs (a header): apply it once.
        if (llvm::is_contained(Run.Edits[Path], Rep))
          continue;
        if (llvm::Error E = Run.Edits[Path].add(Rep)) {
          llvm::consumeError(std::move(E));
          Run.Err << "proxyfence: warning: conflicting fixes in '" << Path
                  << "'; one was dropped\n";
        }
      }
    for (auto &[Path, Text] : R.Originals)
      Run.Originals.emplace(Path, Text);
  }
}

/// --sarif-file, --format and --export-fixes; an exit code when one cannot
/// be written.
static std::optional<int> writeOutputs(DriverRun &Run) {
  const DriverOptions &Opts = Run.Opts;
  // Before --fix writes: lines and columns are those of the analysed text.
  Run.Machine.Texts = Run.Originals;
  Run.Machine.Incomplete = Run.Incomplete;
  if (!Opts.SarifFile.empty()) {
    std::string Log;
    llvm::raw_string_ostream LogOS(Log);
    writeSarif(Run.Machine, LogOS);
    if (llvm::Error E = writeNewFile(Opts.SarifFile, Log))
      return inputError(Run.Err, llvm::toString(std::move(E)));
  }
  if (Opts.Format != OutputFormat::Text) {
    if (Opts.Format == OutputFormat::Sarif)
      writeSarif(Run.Machine, Run.Out);
    else
      writeJson(Run.Machine, Run.Out);
    Run.Out.flush();
  }

  if (!Opts.ExportFixes.empty())
    if (llvm::Error E = exportFixes(Opts.ExportFixes, Run.TUD))
      return inputError(Run.Err, llvm::toString(std::move(E)));
  return std::nullopt;
}

/// --fix --verify: recompiles and checks what was written to the files not
/// in \p Failed, rolling back what fails.
static void verifyWrittenFixes(DriverRun &Run,
                               const std::set<std::string> &Failed,
                               const std::optional<HarnessRun> &Baseline) {
  const DriverOptions &Opts = Run.Opts;
  std::vector<VerifyOptions> VerifyOpts;
  for (const DriverOptions &O : Run.FileOpts)
    VerifyOpts.push_back(verifyOptions(O));
  std::vector<VerifyUnit> Units;
  for (size_t I = 0; I < Run.Results.size(); ++I) {
    VerifyUnit U;
    U.File = Run.Results[I].File;
    U.Name = Run.Names[I];
    U.Command = Run.Jobs[I].second;
    U.Sites = Run.Results[I].Sites;
    U.Options = &VerifyOpts[I];
    // What was written to each file, so that a rollback restores it.
    for (const auto &[Path, Repls] : Run.Results[I].Edits)
      if (!Failed.count(Path) && Run.Originals.count(Path)) {
        U.Originals[Path] = Run.Originals[Path];
        U.Edits[Path] = Run.Edits[Path];
      }
    Units.push_back(std::move(U));
  }
  // Verification reports on stdout in text mode only: a SARIF or JSON
  // document there must stay one document.
  VerifyTotals T = verifyFixes(
      Units, verifyOptions(Opts),
      Opts.Format == OutputFormat::Text ? Run.Out : Run.Err, Run.Err,
      Baseline ? &*Baseline : nullptr);
  T.RolledBack = std::min(T.RolledBack, Run.Fixed);
  Run.Fixed -= T.RolledBack;
  Run.Remaining += T.RolledBack;
  Run.VerifyFailed = T.Failed;
}

/// --fix: writes every file whole or none, counts what was fixed, then
/// verifies; an exit code when a file cannot be rewritten.
static std::optional<int> fixAndVerify(DriverRun &Run) {
  const DriverOptions &Opts = Run.Opts;
  llvm::raw_ostream &Err = Run.Err;
  Run.Remaining = Run.Findings;
  if (!Opts.Fix)
    return std::nullopt;
  // Every file is checked before any is written: a fix spread over a
  // kernel and its header is applied whole or not at all.
  bool Writable = true;
  for (const auto &[Path, Repls] : Run.Edits) {
    auto Orig = Run.Originals.find(Path);
    std::string Why = Orig == Run.Originals.end()
                          ? ""
                          : whyNotRewritable(Path, Orig->second);
    if (!Why.empty()) {
      Err << "proxyfence: error: " << Why << "; nothing was written\n";
      Writable = false;
    }
  }
  if (!Writable)
    return ExitInputError;
  std::optional<HarnessRun> Baseline;
  if (!Run.Edits.empty())
    Baseline = runBaseline(verifyOptions(Opts), Err);
  std::set<std::string> Failed;
  for (auto &[Path, Repls] : Run.Edits) {
    auto Orig = Run.Originals.find(Path);
    if (Orig == Run.Originals.end())
      continue;
    auto NewText = tooling::applyAllReplacements(Orig->second, Repls);
    if (!NewText) {
      Err << "proxyfence: error: cannot apply fixes to '" << Path
          << "': " << llvm::toString(NewText.takeError()) << "\n";
      Failed.insert(Path);
      continue;
    }
    if (llvm::Error E = writeFileAtomically(Path, Orig->second, *NewText)) {
      Err << "proxyfence: error: " << llvm::toString(std::move(E)) << "\n";
      Failed.insert(Path);
    } else {
      ++Run.Written;
    }
  }
  Run.WriteFailed = !Failed.empty();
  // A finding is fixed when its fix was planned and its file written.
  Run.Remaining = 0;
  for (const FileResult &R : Run.Results) {
    Run.Remaining += R.Unfixable;
    unsigned FixedHere = R.Findings - R.Unfixable;
    bool AllWritten = true;
    for (const auto &[Path, Repls] : R.Edits)
      AllWritten &= !Failed.count(Path);
    if (AllWritten)
      Run.Fixed += FixedHere;
    else
      Run.Remaining += FixedHere;
  }
  if (Opts.Verify.Enabled)
    verifyWrittenFixes(Run, Failed, Baseline);
  return std::nullopt;
}

/// The summary lines on stderr (unless --quiet).
static void printSummary(const DriverRun &Run) {
  const DriverOptions &Opts = Run.Opts;
  llvm::raw_ostream &Err = Run.Err;
  const BlindSpots &Blind = Run.Blind;
  size_t Files = Run.Results.size();
  Err << "proxyfence: " << Run.Findings << " finding"
      << (Run.Findings == 1 ? "" : "s") << " in " << Files << " file"
      << (Files == 1 ? "" : "s");
  if (Opts.Fix)
    Err << ", " << Run.Fixed << " fixed, " << Run.Remaining << " left";
  if (Run.Suppressed)
    Err << " (" << Run.Suppressed << " suppressed)";
  if (Run.InLibrary)
    Err << "; " << Run.InLibrary << " in library code, not reported "
        << "(--header-filter selects headers to report)";
  if (Run.OutsideFocus)
    Err << "; " << Run.OutsideFocus
        << " in the including source's other files, not reported (name "
           "them to check them)";
  Err << "\n";
  if (Blind.Stubs.size() || Blind.Dropped.size())
    Err << "proxyfence: not seen: " << Blind.Stubs.size()
        << " stub device function" << (Blind.Stubs.size() == 1 ? "" : "s")
        << ", " << Blind.Dropped.size() << " with code dropped by "
        << "front-end errors, of " << Blind.DeviceFunctions
        << " (see --stats)\n";
  if (!Run.DegradedFiles.empty()) {
    Err << "proxyfence: not fully analysed (front-end errors):";
    for (const std::string &F : Run.DegradedFiles)
      Err << " " << F;
    Err << "\n";
  }
}

/// --stats over every input, on stderr.
static void printRunStats(const DriverRun &Run) {
  llvm::raw_ostream &Err = Run.Err;
  const BlindSpots &Blind = Run.Blind;
  AnalysisStats Total;
  for (const FileResult &R : Run.Results)
    Total.add(R.Stats);
  printStats(Total, Err);
  Err << "proxyfence: stats: template calls resolved through an "
         "instantiation: "
      << Blind.ResolvedCalls << "\n";
  unsigned Repairs = 0;
  for (const FileResult &R : Run.Results)
    Repairs += R.Repairs;
  Err << "proxyfence: stats: device functions: " << Blind.DeviceFunctions
      << ", stubs: " << Blind.Stubs.size()
      << ", code dropped by front-end errors: " << Blind.Dropped.size()
      << "; asm rejections repaired for clang: " << Repairs << "\n";
  SemaRecoveryCounts Sema;
  unsigned AsmLeft = 0, TypenamesLeft = 0;
  for (const FileResult &R : Run.Results) {
    Sema.add(R.SemaRepairs);
    AsmLeft += R.AsmLeft;
    TypenamesLeft += R.TypenamesLeft;
  }
  Err << "proxyfence: stats: also recovered for clang: " << Sema.SharedObjects
      << " __shared__ object" << (Sema.SharedObjects == 1 ? "" : "s")
      << " declared with a constructor, " << Sema.Alignas
      << " under-aligned alignas, " << Sema.ExternShared
      << " extern __shared__ non-array" << (Sema.ExternShared == 1 ? "" : "s")
      << "; asm rejections left unrepaired: "
      << AsmLeft << "\n";
  Err << "proxyfence: stats: asm in that code:";
  if (Blind.AsmKinds.empty())
    Err << " none";
  for (const auto &[Kind, N] : Blind.AsmKinds)
    Err << (&Kind == &Blind.AsmKinds.begin()->first ? " " : ", ") << Kind
        << " " << N;
  Err << "\n";
  for (const std::string &S : Blind.Stubs)
    Err << "proxyfence: stats: stub: " << S << "\n";
  for (const std::string &S : Blind.Dropped)
    Err << "proxyfence: stats: dropped: " << S << "\n";
  Err << "proxyfence: stats: nvcc's leniency recovered for clang: "
      << Sema.Typenames << " missing 'typename', " << Sema.TemplateKeywords
      << " missing 'template', " << Sema.UnknownReferences
      << " constant" << (Sema.UnknownReferences == 1 ? "" : "s")
      << " read through a reference parameter; 'typename' left missing: "
      << TypenamesLeft << "\n";
  Err << "proxyfence: stats: __device__ constexpr functions made callable "
         "from host code (nvcc --expt-relaxed-constexpr): "
      << Sema.RelaxedConstexpr << "\n";
  Err << "proxyfence: stats: result cache: " << Run.CacheHits << " of "
      << Run.Results.size() << " files reused\n";
}

int runDriver(const DriverOptions &Opts, llvm::raw_ostream &Out,
              llvm::raw_ostream &Err) {
  if (std::optional<int> Exit = checkRunOptions(Opts, Err))
    return *Exit;
  DriverRun Run(Opts, Out, Err);
  if (std::optional<int> Exit = collectJobs(Run))
    return *Exit;
  if (Opts.PrintCommands) {
    printCommands(Run);
    return ExitClean;
  }
  analyseAll(Run);
  if (Run.InputErrors || (Opts.Strict && Run.Degraded))
    return ExitInputError; // nothing is written after an input error
  mergeResults(Run);
  if (std::optional<int> Exit = writeOutputs(Run))
    return *Exit;
  if (std::optional<int> Exit = fixAndVerify(Run))
    return *Exit;
  if (!Opts.Quiet)
    printSummary(Run);
  if (Opts.Stats)
    printRunStats(Run);
  if (Run.WriteFailed)
    return ExitInputError;
  // --exit-non-zero-on-fix: a changed file fails the run, as formatters
  // fail a pre-commit hook, so that the change is reviewed and staged.
  bool FailOnWrite = Opts.ExitNonZeroOnFix && Run.Written;
  return Run.Remaining || Run.VerifyFailed || FailOnWrite ? ExitFindings
                                                          : ExitClean;
}

} // namespace proxyfence
