//===- Subcommands.cpp - `proxyfence verify` and `proxyfence ptx-check` ----===//
#include "proxyfence/Subcommands.h"
#include "frontend/CompileArgs.h"
#include "proxyfence/Config.h"
#include "proxyfence/Driver.h"
#include "proxyfence/Rules.h"
#include "verify/PtxCheck.h"
#include "verify/Verify.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

namespace proxyfence {

int runVerifyCommand(const DriverOptions &Opts, llvm::raw_ostream &Out,
                     llvm::raw_ostream &Err) {
  auto fail = [&](const std::string &Msg) {
    Err << "proxyfence: error: " << Msg << "\n";
    return ExitInputError;
  };
  if (Opts.Files.empty())
    return fail("no input files (usage: proxyfence verify [options] <file>... "
                "[-- <compiler args>])");
  if (!Opts.Arch.empty() && !isKnownArch(Opts.Arch))
    return fail(
        "unknown --arch '" + Opts.Arch +
        "' (expected a CUDA GPU architecture such as sm_90a or sm_100a)");
  if (cudaTool(verifyOptions(Opts), "nvcc").empty())
    return fail("nvcc not found (in '" + Opts.CudaPath +
                "/bin' or PATH); verification compiles with nvcc");
  std::string Why;
  std::vector<InputCommand> Inputs = inputCommands(Opts, Why);
  if (!Why.empty())
    return fail(Why);
  std::vector<DriverOptions> FileOpts = optionsPerInput(Opts, Inputs, Why);
  if (!Why.empty())
    return fail(Why);
  std::vector<VerifyOptions> Verify;
  for (const DriverOptions &O : FileOpts)
    Verify.push_back(verifyOptions(O));
  std::vector<VerifyUnit> Units;
  for (size_t I = 0; I < Inputs.size(); ++I) {
    VerifyUnit U;
    U.File = Inputs[I].first;
    U.Name = Opts.Files[I];
    U.Command = std::move(Inputs[I].second);
    U.Options = &Verify[I];
    Units.push_back(std::move(U));
  }
  VerifyTotals T = verifyFixes(Units, verifyOptions(Opts), Out, Err);
  return T.Failed ? ExitFindings : ExitClean;
}

int runPtxCheck(const DriverOptions &Opts, llvm::raw_ostream &Out,
                llvm::raw_ostream &Err) {
  auto fail = [&](const llvm::Twine &Msg) {
    Err << "proxyfence: error: " << Msg << "\n";
    return ExitInputError;
  };
  if (Opts.Files.empty())
    return fail("no input files (usage: proxyfence ptx-check <file.ptx>...)");
  // Every input (and its .proxyfence.yaml, for the rules disabled there)
  // is read before anything is reported.
  std::vector<ptx::Module> Modules;
  std::vector<std::vector<std::string>> Disabled;
  ConfigFinder Configs;
  for (const std::string &F : Opts.Files) {
    if (llvm::sys::fs::is_directory(F))
      return fail("'" + F + "' is a directory, not a PTX file");
    auto C = Configs.forPath(F);
    if (!C)
      return fail(llvm::toString(C.takeError()));
    Disabled.push_back(applyConfig(Opts, **C, {}).DisabledRules);
    auto Buf = llvm::MemoryBuffer::getFile(F, /*IsText=*/true);
    if (!Buf)
      return fail("cannot read '" + F + "': " + Buf.getError().message());
    auto Mod = ptx::parseModule((*Buf)->getBuffer());
    if (!Mod)
      return fail("'" + F + "': " + llvm::toString(Mod.takeError()));
    Modules.push_back(std::move(*Mod));
  }

  unsigned Findings = 0;
  for (size_t I = 0; I < Modules.size(); ++I) {
    PtxCheckOptions Check;
    for (const Rule *R : proxyRules())
      if (!llvm::is_contained(Disabled[I], R->Name))
        Check.Rules.push_back(R);
    bool InitRule = !llvm::is_contained(Disabled[I], MbarrierInitRule.Name);
    if (!Check.Rules.empty())
      Findings += printHazards(Modules[I], Opts.Files[I],
                               checkModule(Modules[I], Check), Out);
    // Only uses by other CTAs can be told apart in PTX: the init thread's
    // own uses need no CTA barrier, and threads are not known here.
    if (InitRule)
      Findings += printInitHazards(
          Modules[I], Opts.Files[I],
          checkInitPublication(Modules[I], InitCheckOptions{}), true, Out);
  }
  Out.flush();
  if (!Opts.Quiet)
    Err << "proxyfence: " << Findings << " finding"
        << (Findings == 1 ? "" : "s") << " in " << Modules.size() << " PTX file"
        << (Modules.size() == 1 ? "" : "s") << "\n";
  return Findings ? ExitFindings : ExitClean;
}

} // namespace proxyfence
