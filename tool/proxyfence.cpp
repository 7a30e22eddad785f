//===- proxyfence.cpp - the command line ----------------------------------===//
//
// Thin: parses options and hands over to the driver in lib/.
//
//===----------------------------------------------------------------------===//
#include "proxyfence/Config.h"
#include "proxyfence/Driver.h"
#include "proxyfence/DriverOptions.h"
#include "proxyfence/NvccView.h"
#include "proxyfence/Launcher.h"
#include "proxyfence/Subcommands.h"
#include "proxyfence/Rules.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace proxyfence;

static cl::OptionCategory Category("proxyfence options");
static cl::list<std::string> Files(cl::Positional, cl::desc("<file>..."),
                                   cl::cat(Category));
static cl::opt<bool> Fix("fix", cl::desc("Insert the missing fences in place"),
                         cl::cat(Category));
static cl::opt<std::string>
    BuildPath("p", cl::desc("Build directory holding compile_commands.json"),
              cl::value_desc("dir"), cl::cat(Category));
static cl::opt<std::string>
    Arch("arch", cl::desc("GPU architecture to analyse for (default: the "
                          "compile command's, else .proxyfence.yaml's, else "
                          "sm_90a)"),
         cl::value_desc("sm_XX"), cl::cat(Category));
static cl::opt<std::string> CudaPath("cuda-path",
                                     cl::desc("CUDA installation"),
                                     cl::init(PF_DEFAULT_CUDA_PATH),
                                     cl::cat(Category));
static cl::opt<std::string>
    ExportFixes("export-fixes",
                cl::desc("Write fixes as YAML for clang-apply-replacements"),
                cl::value_desc("file"), cl::cat(Category));
static cl::opt<std::string> FenceStyleOpt(
    "fence-style",
    cl::desc("Spelling of inserted fences: auto (follow the file), ptx, "
             "cuda-ptx, cuda-experimental, cutlass"),
    cl::init("auto"), cl::cat(Category));
static cl::opt<bool>
    Strict("strict", cl::desc("Treat front-end errors as input errors (exit 2)"),
           cl::cat(Category));
static cl::opt<bool> Quiet("quiet", cl::desc("No summary line on stderr"),
                           cl::cat(Category));
static cl::opt<std::string> TraceOpt(
    "trace",
    cl::desc("Say on stderr, for the async-proxy operations and mbarrier "
             "inits at this line (of the input, or of FILE), which generic "
             "accesses reached them and what ended each path"),
    cl::value_desc("[FILE:]LINE"), cl::cat(Category));
static cl::opt<bool> NoInstantiatingSource(
    "no-instantiating-source",
    cl::desc("Without -p, analyse a header alone, not in the project's CUDA "
             "source that includes it"),
    cl::cat(Category));
static cl::list<std::string>
    Disable("disable", cl::desc("Disable a rule (repeatable)"),
            cl::value_desc("rule"), cl::cat(Category));
static cl::opt<bool> PrintCommands(
    "print-command",
    cl::desc("Print the clang command used for each file (NUL-separated "
             "arguments, one file per line) and exit"),
    cl::cat(Category));
static cl::opt<bool> NoNvccView(
    "no-nvcc-view",
    cl::desc("Parse as plain clang: without nvcc's predefined macros "
             "(__CUDACC_VER_MAJOR__, __CUDA_ARCH_FEAT_SM90_ALL, ...), the "
             "builtin prelude and the undoing of library opt-outs of clang "
             "(see README, 'The nvcc view')"),
    cl::cat(Category));
static cl::opt<bool> PrintNvccPrelude(
    "print-nvcc-prelude",
    cl::desc("Print the in-memory prelude that --print-command's '-include' "
             "names, and exit"),
    cl::cat(Category));
static cl::opt<std::string> InitProxyFence(
    "mbarrier-init-proxy-fence",
    cl::desc("proxyfence-mbarrier-init: 'require' also demands "
             "fence.proxy.async.shared::cta between an mbarrier's init and its "
             "first async-proxy use (default: off; PTX does not need it)"),
    cl::value_desc("off|require"), cl::init("off"), cl::cat(Category));
static cl::opt<bool> DumpConfig(
    "dump-config",
    cl::desc("Print the effective configuration (.proxyfence.yaml merged "
             "with the command line) for the files, or the current directory, "
             "and exit"),
    cl::cat(Category));
static cl::opt<bool> ListRules("list-rules", cl::desc("List the rules and exit"),
                               cl::cat(Category));
static cl::opt<std::string>
    Explain("explain",
            cl::desc("Print a rule's documentation (docs/rules/<rule>.md) "
                     "and exit"),
            cl::value_desc("rule"), cl::cat(Category));
static cl::opt<bool> VerifyOpt(
    "verify",
    cl::desc("With --fix: recompile each fixed file with nvcc and check in "
             "its PTX that the fence is on every path (files already fixed: "
             "'proxyfence verify <file>...')"),
    cl::cat(Category));
static cl::opt<std::string>
    RunCmd("run",
           cl::desc("With --verify or 'verify': a harness run through /bin/sh "
                    "after the checks, exit 0 = pass, 77 = skipped (skipped "
                    "without a GPU)"),
           cl::value_desc("command"), cl::cat(Category));
static cl::opt<unsigned>
    RunTimeout("run-timeout",
               cl::desc("Wall-clock limit of --run in seconds (default 300)"),
               cl::value_desc("seconds"), cl::init(300), cl::cat(Category));

// A string, so that a bad value gets proxyfence's one-line error.
static cl::opt<std::string>
    JobsOpt("j",
            cl::desc("Files analysed in parallel (default: one per core; "
                     "output is the same as with -j 1)"),
            cl::value_desc("N"), cl::Prefix, cl::cat(Category));
static cl::opt<std::string> HeaderFilterOpt(
    "header-filter",
    cl::desc("Report and fix headers whose absolute path matches this "
             "regular expression (default: every header outside the system "
             "and CUDA headers; the input files always)"),
    cl::value_desc("regex"), cl::cat(Category));
static cl::opt<std::string>
    FormatOpt("format",
              cl::desc("Findings on stdout as: text (clang's format), sarif "
                       "(SARIF 2.1.0), json"),
              cl::value_desc("text|sarif|json"), cl::init("text"),
              cl::cat(Category));
static cl::opt<bool> ExitNonZeroOnFix(
    "exit-non-zero-on-fix",
    cl::desc("With --fix: exit 1 when a file was changed, even if nothing is "
             "left to report (pre-commit hooks)"),
    cl::cat(Category));

static cl::opt<unsigned> MaxErrors(
    "max-errors",
    cl::desc("Stop parsing a file after this many front-end errors and "
             "analyse what was parsed (default 200; 0: no limit)"),
    cl::value_desc("N"), cl::init(200), cl::cat(Category));
static cl::opt<unsigned> Timeout(
    "timeout",
    cl::desc("Seconds allowed for the parse and analysis of one file; a file "
             "over it is an input error (default 300; 0: no limit)"),
    cl::value_desc("seconds"), cl::init(300), cl::cat(Category));

static cl::opt<std::string> LaunchOutput(
    "launch-output",
    cl::desc("With --launch: write each translation unit's findings as SARIF "
             "into this directory (merge with 'proxyfence merge-sarif DIR')"),
    cl::value_desc("dir"), cl::cat(Category));
static cl::opt<bool> LaunchFail(
    "launch-fail",
    cl::desc("With --launch: findings fail the compile step (exit 1)"),
    cl::cat(Category));
static cl::opt<bool> NoCache(
    "no-cache",
    cl::desc("Analyse every file again: no results from, or to, the cache in "
             "$XDG_CACHE_HOME/proxyfence"),
    cl::cat(Category));
static cl::opt<std::string>
    ShardOpt("shard",
             cl::desc("Analyse the K-th of N shards: inputs K, K+N, K+2N, ... "
                      "(1-based), for splitting a database over CI machines"),
             cl::value_desc("K/N"), cl::cat(Category));

/// docs/rules/*.md, embedded at build time (cmake/EmbedRuleDocs.cmake).
struct RuleDoc {
  const char *Rule;
  const char *Text;
};
static const RuleDoc RuleDocs[] = {
#include "RuleDocs.inc"
};

/// --explain: the rule's documentation; the prefix may be left out.
static int explainRule(StringRef Name) {
  std::string Full = Name.starts_with("proxyfence-")
                         ? Name.str()
                         : ("proxyfence-" + Name).str();
  for (const RuleDoc &D : RuleDocs)
    if (Full == D.Rule) {
      outs() << D.Text;
      return ExitClean;
    }
  errs() << "proxyfence: error: "
         << (isKnownRule(Full) ? "no documentation for rule '"
                               : "unknown rule '")
         << Name << "' (see --list-rules)\n";
  return ExitInputError;
}

/// The command line after the subcommand, --launch and --stats are taken
/// out: what LLVM parses, and what the option builders read besides.
struct ParsedCommandLine {
  std::vector<const char *> Args; // argv as LLVM sees it
  int Split = 0;                  // the index of `--`, or Args.size()
  bool VerifyCmd = false, PtxCheckCmd = false, StatsOpt = false;
  std::optional<LaunchOptions> Launch;
};

/// Parses \p argv into the options above and \p CL; an exit code when the
/// command line is wrong.
static std::optional<int> parseCommandLine(int argc, const char **argv,
                                           ParsedCommandLine &CL) {
  std::vector<const char *> &Args = CL.Args;
  Args.assign(argv, argv + argc);
  StringRef Sub = argc > 1 ? StringRef(argv[1]) : "";
  // Launcher mode: everything after --launch is the build's compile step.
  for (size_t I = 1; I < Args.size() && StringRef(Args[I]) != "--"; ++I)
    if (StringRef(Args[I]) == "--launch") {
      CL.Launch.emplace();
      CL.Launch->Command.assign(Args.begin() + I + 1, Args.end());
      Args.resize(I);
      break;
    }
  CL.VerifyCmd = Sub == "verify";
  CL.PtxCheckCmd = Sub == "ptx-check";
  if (CL.VerifyCmd || CL.PtxCheckCmd)
    Args.erase(Args.begin() + 1);
  // LLVM registers -stats for counters of its own (and prints them at
  // exit); proxyfence's --stats is taken out before LLVM parses, and the
  // option is listed in --help with proxyfence's meaning.
  for (size_t I = 1; I < Args.size() && StringRef(Args[I]) != "--";)
    if (StringRef(Args[I]) == "--stats" || StringRef(Args[I]) == "-stats") {
      CL.StatsOpt = true;
      Args.erase(Args.begin() + I);
    } else {
      ++I;
    }
  argc = static_cast<int>(Args.size());
  argv = Args.data();
  if (cl::Option *LLVMStats = cl::getRegisteredOptions().lookup("stats")) {
    LLVMStats->setDescription("Print analysis statistics on stderr: functions "
                              "and asm analysed, role synchronisations "
                              "matched and unmatched");
    LLVMStats->addCategory(Category);
    LLVMStats->setHiddenFlag(cl::NotHidden);
  }
  // Arguments after `--` go to the compiler, as with clang-tidy.
  int Split = argc;
  for (int I = 1; I < argc; ++I)
    if (StringRef(argv[I]) == "--") {
      Split = I;
      break;
    }
  CL.Split = Split;
  // LLVM would print its own two lines for a -j without its number.
  if (Split > 1 && StringRef(argv[Split - 1]) == "-j") {
    errs() << "proxyfence: error: -j expects a number of files to analyse at "
              "once (1 or more)\n";
    return ExitInputError;
  }
  cl::HideUnrelatedOptions(Category);
  std::string ParseErrors;
  raw_string_ostream ErrOS(ParseErrors);
  if (!cl::ParseCommandLineOptions(
          Split, argv,
          "proxyfence: finds and fixes missing proxy fences in CUDA kernels\n"
          "\n  proxyfence [options] <file>... [-- <compiler args>]\n"
          "  proxyfence -p <build dir> [options]\n"
          "    (every CUDA file of <build dir>/compile_commands.json)\n"
          "  proxyfence verify [options] <file>... [-- <compiler args>]\n"
          "    (recompile with nvcc, check the fences in the PTX, --run)\n"
          "  proxyfence ptx-check <file.ptx>...\n",
          &ErrOS)) {
    StringRef First = StringRef(ParseErrors).trim().split('\n').first;
    // LLVM prefixes its messages with the program's file name.
    First.consume_front((sys::path::filename(argv[0]) + ": ").str());
    // "... argument '--x'.  Try: '<path> --help'": keep the reason only.
    First = First.split(".  Try:").first;
    errs() << "proxyfence: error: " << First.trim() << " (see --help)\n";
    return ExitInputError;
  }
  return std::nullopt;
}

/// The options every mode reads, up to what --dump-config prints; an exit
/// code on a bad value.
static std::optional<int> buildCommonOptions(const ParsedCommandLine &CL,
                                             DriverOptions &Opts) {
  int argc = static_cast<int>(CL.Args.size());
  const char *const *argv = CL.Args.data();
  Opts.Files.assign(Files.begin(), Files.end());
  Opts.BuildPath = BuildPath;
  Opts.HaveExtraArgs = CL.Split < argc;
  for (int I = CL.Split + 1; I < argc; ++I)
    Opts.ExtraArgs.push_back(argv[I]);
  Opts.Arch = Arch;
  Opts.CudaPath = CudaPath;
  Opts.Fix = Fix;
  Opts.Strict = Strict;
  Opts.Quiet = Quiet;
  Opts.Trace = TraceOpt;
  Opts.InstantiatingSource = !NoInstantiatingSource;
  Opts.Stats = CL.StatsOpt;
  Opts.PrintCommands = PrintCommands;
  Opts.NvccView = !NoNvccView;
  Opts.ExportFixes = ExportFixes;
  for (const std::string &R : Disable) {
    if (!isKnownRule(R)) {
      errs() << "proxyfence: error: unknown rule '" << R
             << "' (see --list-rules)\n";
      return ExitInputError;
    }
    Opts.DisabledRules.push_back(R);
  }
  auto Style = parseFenceStyle(FenceStyleOpt);
  if (!Style) {
    errs() << "proxyfence: error: unknown --fence-style '" << FenceStyleOpt
           << "' (expected auto, ptx, cuda-ptx, cuda-experimental or cutlass)\n";
    return ExitInputError;
  }
  Opts.Style = *Style;
  Opts.Given.Style = FenceStyleOpt.getNumOccurrences();
  if (InitProxyFence != "off" && InitProxyFence != "require") {
    errs() << "proxyfence: error: unknown --mbarrier-init-proxy-fence '"
           << InitProxyFence << "' (expected off or require)\n";
    return ExitInputError;
  }
  Opts.RequireInitProxyFence = InitProxyFence == "require";
  Opts.Given.RequireInitProxyFence = InitProxyFence.getNumOccurrences();
  return std::nullopt;
}

/// The options of a run over files (also those ptx-check reads): -j,
/// --shard, the cache, limits, output; an exit code on a bad value.
static std::optional<int> buildRunOptions(const ParsedCommandLine &CL,
                                          DriverOptions &Opts) {
  Opts.Verify = {VerifyOpt || CL.VerifyCmd, RunCmd, RunTimeout};
  if (JobsOpt.getNumOccurrences() &&
      (StringRef(JobsOpt).getAsInteger(10, Opts.Jobs) || Opts.Jobs == 0)) {
    errs() << "proxyfence: error: -j expects a number of files to analyse at "
              "once (1 or more), not '"
           << JobsOpt << "'\n";
    return ExitInputError;
  }
  if (ShardOpt.getNumOccurrences()) {
    auto [K, N] = StringRef(ShardOpt).split('/');
    unsigned Index = 0, Count = 0;
    if (K.getAsInteger(10, Index) || N.getAsInteger(10, Count) || Count == 0 ||
        Index == 0 || Index > Count) {
      errs() << "proxyfence: error: --shard expects K/N with 1 <= K <= N, not '"
             << ShardOpt << "'\n";
      return ExitInputError;
    }
    Opts.ShardIndex = Index - 1;
    Opts.ShardCount = Count;
  }
  if ((LaunchOutput.getNumOccurrences() || LaunchFail) && !CL.Launch) {
    errs() << "proxyfence: error: --launch-output and --launch-fail need "
              "--launch <compile command>\n";
    return ExitInputError;
  }
  Opts.UseCache = !NoCache;
  Opts.MaxErrors = MaxErrors;
  Opts.Timeout = Timeout;
  Opts.HeaderFilter = HeaderFilterOpt;
  Opts.Given.HeaderFilter = HeaderFilterOpt.getNumOccurrences();
  if (FormatOpt == "sarif")
    Opts.Format = OutputFormat::Sarif;
  else if (FormatOpt == "json")
    Opts.Format = OutputFormat::Json;
  else if (FormatOpt != "text") {
    errs() << "proxyfence: error: unknown --format '" << FormatOpt
           << "' (expected text, sarif or json)\n";
    return ExitInputError;
  }
  if (ExitNonZeroOnFix && !Fix) {
    errs() << "proxyfence: error: --exit-non-zero-on-fix needs --fix\n";
    return ExitInputError;
  }
  Opts.ExitNonZeroOnFix = ExitNonZeroOnFix;
  return std::nullopt;
}

/// --verify, 'verify', --run and --run-timeout together; an exit code when
/// they do not go together.
static std::optional<int> checkVerifyOptions(const ParsedCommandLine &CL,
                                             const DriverOptions &Opts) {
  if (CL.VerifyCmd && Fix) {
    errs() << "proxyfence: error: 'verify' checks files as they are; to fix "
              "and verify, use 'proxyfence --fix --verify <file>...'\n";
    return ExitInputError;
  }
  if (VerifyOpt && !Fix && !CL.VerifyCmd) {
    errs() << "proxyfence: error: --verify checks the fixes of --fix; to "
              "verify files already fixed, use 'proxyfence verify <file>...'\n";
    return ExitInputError;
  }
  if ((!RunCmd.empty() || RunTimeout.getNumOccurrences()) &&
      !Opts.Verify.Enabled) {
    errs() << "proxyfence: error: --run and --run-timeout need --fix --verify "
              "or 'proxyfence verify'\n";
    return ExitInputError;
  }
  if (RunTimeout == 0) {
    errs() << "proxyfence: error: --run-timeout must be at least 1 second\n";
    return ExitInputError;
  }
  return std::nullopt;
}

/// --launch: the file of the compile command after it, and nothing else.
static int runLaunchMode(const DriverOptions &Opts, LaunchOptions &Launch) {
  if (!Opts.Files.empty() || !Opts.BuildPath.empty() || Fix) {
    errs() << "proxyfence: error: --launch analyses the file of the compile "
              "command after it; give no files, -p or --fix\n";
    return ExitInputError;
  }
  Launch.OutputDir = LaunchOutput;
  Launch.FailOnFindings = LaunchFail;
  return runLauncher(Opts, Launch, errs());
}

int main(int argc, const char **argv) {
  InitLLVM X(argc, argv);
  // Subcommands: `proxyfence verify ...` and `proxyfence ptx-check ...`
  // take the same options as the main command.
  StringRef Sub = argc > 1 ? StringRef(argv[1]) : "";
  if (Sub == "merge-sarif") {
    if (argc != 3) {
      errs() << "proxyfence: error: usage: proxyfence merge-sarif <dir>\n";
      return ExitInputError;
    }
    return runMergeSarif(argv[2], outs(), errs());
  }
  ParsedCommandLine CL;
  if (std::optional<int> Exit = parseCommandLine(argc, argv, CL))
    return *Exit;
  if (Explain.getNumOccurrences())
    return explainRule(Explain);
  if (ListRules) {
    for (const StandaloneRule &R : allRules())
      outs() << R.Name << ": " << R.Summary << "\n";
    return ExitClean;
  }

  if (PrintNvccPrelude) {
    outs() << nvccPreludeText();
    return ExitClean;
  }

  DriverOptions Opts;
  if (std::optional<int> Exit = buildCommonOptions(CL, Opts))
    return *Exit;
  if (DumpConfig)
    return runDumpConfig(Opts, outs(), errs());
  if (std::optional<int> Exit = buildRunOptions(CL, Opts))
    return *Exit;
  if (CL.PtxCheckCmd)
    return runPtxCheck(Opts, outs(), errs());
  if (std::optional<int> Exit = checkVerifyOptions(CL, Opts))
    return *Exit;
  if (CL.VerifyCmd)
    return runVerifyCommand(Opts, outs(), errs());
  if (CL.Launch)
    return runLaunchMode(Opts, *CL.Launch);
  return runDriver(Opts, outs(), errs());
}
