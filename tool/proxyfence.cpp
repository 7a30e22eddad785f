//===- proxyfence.cpp - the command line ----------------------------------===//
//
// Thin: parses options and hands over to the driver in lib/.
//
//===----------------------------------------------------------------------===//
#include "proxyfence/Driver.h"
#include "proxyfence/Rules.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
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
static cl::opt<bool> ListRules("list-rules", cl::desc("List the rules and exit"),
                               cl::cat(Category));

int main(int argc, const char **argv) {
  InitLLVM X(argc, argv);
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
          "proxyfence: finds and fixes missing proxy fences in CUDA kernels\n",
          &ErrOS)) {
    StringRef First = StringRef(ParseErrors).trim().split('\n').first;
    std::string Prog = std::string(argv[0]) + ": ";
    First.consume_front(Prog);
    errs() << "proxyfence: error: " << First.trim() << "\n";
    return ExitInputError;
  }
  if (ListRules) {
    for (const Rule *R : proxyRules())
      outs() << R->Name << ": " << R->Summary << "\n";
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
  Opts.ExportFixes = ExportFixes;
  for (const std::string &R : Disable) {
    if (!findRule(R)) {
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
  return runDriver(Opts, outs(), errs());
}
