//===- proxyfence.cpp - the command line ----------------------------------===//
//
// Thin: parses options and hands over to the driver in lib/.
//
//===----------------------------------------------------------------------===//
#include "proxyfence/Driver.h"
#include "proxyfence/PtxCheck.h"
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
                          "compile command's, else sm_90a)"),
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
static cl::list<std::string>
    Disable("disable", cl::desc("Disable a rule (repeatable)"),
            cl::value_desc("rule"), cl::cat(Category));
static cl::opt<bool> PrintCommands(
    "print-command",
    cl::desc("Print the clang command used for each file (NUL-separated "
             "arguments, one file per line) and exit"),
    cl::cat(Category));
static cl::opt<std::string> InitProxyFence(
    "mbarrier-init-proxy-fence",
    cl::desc("proxyfence-mbarrier-init: 'require' also demands "
             "fence.proxy.async.shared::cta between an mbarrier's init and its "
             "first async-proxy use (default: off; PTX does not need it)"),
    cl::value_desc("off|require"), cl::init("off"), cl::cat(Category));
static cl::opt<bool> ListRules("list-rules", cl::desc("List the rules and exit"),
                               cl::cat(Category));
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

int main(int argc, const char **argv) {
  InitLLVM X(argc, argv);
  // Subcommands: `proxyfence verify ...` and `proxyfence ptx-check ...`
  // take the same options as the main command.
  std::vector<const char *> Args(argv, argv + argc);
  StringRef Sub = argc > 1 ? StringRef(argv[1]) : "";
  bool VerifyCmd = Sub == "verify", PtxCheckCmd = Sub == "ptx-check";
  if (VerifyCmd || PtxCheckCmd)
    Args.erase(Args.begin() + 1);
  argc = static_cast<int>(Args.size());
  argv = Args.data();
  // LLVM registers -stats for counters of its own (and prints them at
  // exit); proxyfence's --stats is taken out before LLVM parses, and the
  // option is listed in --help with proxyfence's meaning.
  bool StatsOpt = false;
  for (size_t I = 1; I < Args.size() && StringRef(Args[I]) != "--";)
    if (StringRef(Args[I]) == "--stats" || StringRef(Args[I]) == "-stats") {
      StatsOpt = true;
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
  cl::HideUnrelatedOptions(Category);
  std::string ParseErrors;
  raw_string_ostream ErrOS(ParseErrors);
  if (!cl::ParseCommandLineOptions(
          Split, argv,
          "proxyfence: finds and fixes missing proxy fences in CUDA kernels\n"
          "\n  proxyfence [options] <file>... [-- <compiler args>]\n"
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
  if (ListRules) {
    for (const StandaloneRule &R : allRules())
      outs() << R.Name << ": " << R.Summary << "\n";
    return ExitClean;
  }

  DriverOptions Opts;
  Opts.Files.assign(Files.begin(), Files.end());
  Opts.BuildPath = BuildPath;
  Opts.HaveExtraArgs = Split < argc;
  for (int I = Split + 1; I < argc; ++I)
    Opts.ExtraArgs.push_back(argv[I]);
  Opts.Arch = Arch;
  Opts.CudaPath = CudaPath;
  Opts.Fix = Fix;
  Opts.Strict = Strict;
  Opts.Quiet = Quiet;
  Opts.Stats = StatsOpt;
  Opts.PrintCommands = PrintCommands;
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
  if (InitProxyFence != "off" && InitProxyFence != "require") {
    errs() << "proxyfence: error: unknown --mbarrier-init-proxy-fence '"
           << InitProxyFence << "' (expected off or require)\n";
    return ExitInputError;
  }
  Opts.RequireInitProxyFence = InitProxyFence == "require";
  Opts.Verify = {VerifyOpt || VerifyCmd, RunCmd, RunTimeout};
  if (PtxCheckCmd)
    return runPtxCheck(Opts, outs(), errs());
  if (VerifyCmd && Fix) {
    errs() << "proxyfence: error: 'verify' checks files as they are; to fix "
              "and verify, use 'proxyfence --fix --verify <file>...'\n";
    return ExitInputError;
  }
  if (VerifyOpt && !Fix && !VerifyCmd) {
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
  if (VerifyCmd)
    return runVerifyCommand(Opts, outs(), errs());
  return runDriver(Opts, outs(), errs());
}
