//===- Launcher.cpp - proxyfence inside the build: launcher, SARIF merge ---===//
#include "support/Files.h"
#include "proxyfence/Launcher.h"
#include "proxyfence/Driver.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SHA256.h"
#include "llvm/ADT/StringExtras.h"
#include <algorithm>

namespace proxyfence {

/// Wrappers a build puts in front of the compiler: the analysis reads the
/// compiler's own command after them.
static bool isCompilerWrapper(llvm::StringRef Arg) {
  llvm::StringRef Name = llvm::sys::path::filename(Arg);
  return Name == "ccache" || Name == "sccache" || Name == "distcc" ||
         Name == "icecc" || Name == "buildcache";
}

/// The CUDA source a compile command compiles, or empty.
static std::string cudaSource(const std::vector<std::string> &Cmd) {
  bool CudaLanguage = false;
  for (size_t I = 1; I < Cmd.size(); ++I) {
    llvm::StringRef A = Cmd[I];
    if ((A == "-x" || A == "--x") && I + 1 < Cmd.size())
      CudaLanguage = Cmd[I + 1] == "cu" || Cmd[I + 1] == "cuda";
    if (A.starts_with("-"))
      continue;
    llvm::StringRef Ext = llvm::sys::path::extension(A);
    if (Ext == ".cu" || (CudaLanguage && (Ext == ".cpp" || Ext == ".cc")))
      return A.str();
  }
  return "";
}

/// Runs \p Cmd with this process's standard streams; its exit status.
static int runCommand(const std::vector<std::string> &Cmd,
                      llvm::raw_ostream &Err) {
  std::string Program = Cmd.front();
  if (!llvm::StringRef(Program).contains('/')) {
    auto Found = llvm::sys::findProgramByName(Program);
    if (!Found) {
      Err << "proxyfence: error: --launch: cannot find '" << Program
          << "' on PATH\n";
      return 127;
    }
    Program = *Found;
  }
  std::vector<llvm::StringRef> Args(Cmd.begin(), Cmd.end());
  std::string Why;
  int RC = llvm::sys::ExecuteAndWait(Program, Args, std::nullopt, {}, 0, 0,
                                     &Why);
  if (RC < 0) {
    Err << "proxyfence: error: --launch: cannot run '" << Program
        << "': " << Why << "\n";
    return 127;
  }
  return RC;
}

/// A file name in \p Dir for \p Source's log: readable, and unique per
/// source path (two targets may compile files of one name).
static std::string logPath(llvm::StringRef Dir, llvm::StringRef Source,
                           llvm::StringRef Object) {
  std::string Id = llvm::toHex(
      llvm::SHA256::hash(llvm::arrayRefFromStringRef((Source + "\n" + Object).str())),
      /*LowerCase=*/true);
  llvm::SmallString<256> P(Dir);
  llvm::sys::path::append(P, (llvm::sys::path::filename(Source) + "." +
                              Id.substr(0, 16) + ".sarif").str());
  return std::string(P);
}

int runLauncher(DriverOptions Opts, const LaunchOptions &Launch,
                llvm::raw_ostream &Err) {
  if (Launch.Command.empty()) {
    Err << "proxyfence: error: --launch needs the compile command after it\n";
    return ExitInputError;
  }
  size_t First = 0;
  while (First < Launch.Command.size() &&
         isCompilerWrapper(Launch.Command[First]))
    ++First;
  std::vector<std::string> Compile(Launch.Command.begin() + First,
                                   Launch.Command.end());
  std::string Source = Compile.empty() ? "" : cudaSource(Compile);
  int Analysis = ExitClean;
  if (!Source.empty()) {
    Opts.Files = {Source};
    Opts.LaunchCommand = Compile;
    Opts.Quiet = true; // one summary per compile step is noise
    std::string Object;
    for (size_t I = 0; I + 1 < Compile.size(); ++I)
      if (Compile[I] == "-o")
        Object = Compile[I + 1];
    std::string Sarif;
    if (!Launch.OutputDir.empty()) {
      if (std::error_code EC =
              llvm::sys::fs::create_directories(Launch.OutputDir)) {
        Err << "proxyfence: error: cannot create '" << Launch.OutputDir
            << "': " << EC.message() << "\n";
        return ExitInputError;
      }
      Opts.SarifFile = logPath(Launch.OutputDir, absolutePath(Source), Object);
    }
    // Findings on stderr, where the build shows a compiler's warnings.
    Analysis = runDriver(Opts, Err, Err);
    Err.flush();
  }
  int RC = runCommand(Launch.Command, Err);
  if (RC != 0)
    return RC;
  if (Analysis == ExitInputError)
    Err << "proxyfence: warning: '" << Source
        << "' was not analysed (see above); the build goes on\n";
  return Launch.FailOnFindings && Analysis == ExitFindings ? ExitFindings
                                                            : ExitClean;
}

int runMergeSarif(const std::string &Dir, llvm::raw_ostream &Out,
                  llvm::raw_ostream &Err) {
  auto fail = [&](const std::string &Why) {
    Err << "proxyfence: error: merge-sarif: " << Why << "\n";
    return ExitInputError;
  };
  std::vector<std::string> Logs;
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC;
       It.increment(EC))
    if (llvm::sys::path::extension(It->path()) == ".sarif")
      Logs.push_back(It->path());
  if (EC)
    return fail("cannot read '" + Dir + "': " + EC.message());
  if (Logs.empty())
    return fail("no .sarif files in '" + Dir + "'");
  llvm::sort(Logs); // the same merged log whatever the directory order

  std::optional<llvm::json::Value> Merged;
  llvm::json::Array Results, Notifications;
  llvm::StringSet<> Seen;
  for (const std::string &Path : Logs) {
    auto Buf = llvm::MemoryBuffer::getFile(Path);
    if (!Buf)
      return fail("cannot read '" + Path + "': " + Buf.getError().message());
    llvm::Expected<llvm::json::Value> Log = llvm::json::parse((*Buf)->getBuffer());
    if (!Log)
      return fail("'" + Path + "' is not JSON: " + llvm::toString(Log.takeError()));
    llvm::json::Object *Root = Log->getAsObject();
    llvm::json::Array *Runs = Root ? Root->getArray("runs") : nullptr;
    if (!Runs || Runs->empty() || !(*Runs)[0].getAsObject())
      return fail("'" + Path + "' is not a SARIF log with a run");
    llvm::json::Object &Run = *(*Runs)[0].getAsObject();
    // A header's finding comes from every unit that includes it: once.
    if (llvm::json::Array *Rs = Run.getArray("results"))
      for (llvm::json::Value &R : *Rs) {
        std::string Key;
        llvm::raw_string_ostream(Key) << R;
        if (Seen.insert(Key).second)
          Results.push_back(std::move(R));
      }
    if (llvm::json::Array *Inv = Run.getArray("invocations"))
      for (llvm::json::Value &I : *Inv)
        if (llvm::json::Object *IO = I.getAsObject())
          if (llvm::json::Array *Ns = IO->getArray("toolExecutionNotifications"))
            for (llvm::json::Value &N : *Ns)
              Notifications.push_back(std::move(N));
    if (!Merged)
      Merged = std::move(*Log);
  }
  llvm::json::Object &Run =
      *(*Merged->getAsObject()->getArray("runs"))[0].getAsObject();
  Run["results"] = std::move(Results);
  Run["invocations"] = llvm::json::Array{llvm::json::Object{
      {"executionSuccessful", true},
      {"toolExecutionNotifications", std::move(Notifications)}}};
  Out << llvm::formatv("{0:2}", *Merged) << "\n";
  return ExitClean;
}

} // namespace proxyfence
