//===- Driver.cpp - run the analysis on files, report, fix -----------------===//
#include "proxyfence/Driver.h"
#include "proxyfence/Analysis.h"
#include "proxyfence/CompileArgs.h"
#include "proxyfence/MbarrierInit.h"
#include "proxyfence/Output.h"
#include "proxyfence/Rules.h"
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
#include "llvm/Support/Signals.h"
#include "llvm/Support/VirtualFileSystem.h"
#include <algorithm>
#include <cstring>
#include <set>
#include <tuple>
#include <unistd.h>

using namespace clang;

namespace proxyfence {

namespace {

/// Collects the front end's errors instead of printing them: real kernels
/// use things clang rejects and nvcc accepts, and the analysis goes on over
/// the partial AST (as clang-tidy does).
class FrontEndErrors : public DiagnosticConsumer {
public:
  unsigned Count = 0;
  std::string First;
  /// Offsets in the main file of `%` escapes clang rejected in asm strings.
  std::vector<unsigned> AsmEscapes;

  void HandleDiagnostic(DiagnosticsEngine::Level L,
                        const Diagnostic &Info) override {
    DiagnosticConsumer::HandleDiagnostic(L, Info);
    if (L < DiagnosticsEngine::Error)
      return;
    ++Count;
    llvm::SmallString<128> Msg;
    Info.FormatDiagnostic(Msg);
    if (Info.getID() == diag::err_asm_invalid_escape && Info.hasSourceManager()) {
      const SourceManager &SM = Info.getSourceManager();
      SourceLocation L = Info.getLocation();
      if (L.isFileID() && SM.getFileID(L) == SM.getMainFileID())
        AsmEscapes.push_back(SM.getFileOffset(L));
    }
    if (!First.empty())
      return;
    if (Info.hasSourceManager() && Info.getLocation().isValid()) {
      PresumedLoc P =
          Info.getSourceManager().getPresumedLoc(Info.getLocation());
      if (P.isValid())
        First = std::string(P.getFilename()) + ":" + std::to_string(P.getLine()) +
                ":" + std::to_string(P.getColumn()) + ": ";
    }
    First += Msg.str();
  }
};

struct FileResult {
  std::string File;
  std::string Report; // diagnostics as printed
  bool Ran = false;   // the AST consumer ran
  unsigned ValidDecls = 0;
  unsigned Findings = 0;
  unsigned Unfixable = 0;
  AnalysisStats Stats;
  std::map<std::string, tooling::Replacements> Edits;
  std::map<std::string, std::string> Originals; // text analysed, per file
  std::vector<tooling::Diagnostic> Diags;
  /// Keys (findingKey) of the findings reported for this file.
  std::vector<std::string> Keys;
  std::vector<VerifySite> Sites; // the findings, for --verify
};

/// Identifies a finding by where its statements are written (expansion and
/// spelling locations), so that the copies produced by each instantiation of
/// a template, or by each input that includes the same header, are reported
/// and fixed once.
static std::string placeKey(const SourceManager &SM, SourceLocation L) {
  if (L.isInvalid())
    return std::string("-");
  SourceLocation E = SM.getExpansionLoc(L), S = SM.getSpellingLoc(L);
  return (SM.getFilename(E) + ":" + llvm::Twine(SM.getFileOffset(E)) + "/" +
          SM.getFilename(S) + ":" + llvm::Twine(SM.getFileOffset(S)))
      .str();
}

std::string findingKey(const SourceManager &SM, const Finding &F) {
  auto loc = [&SM](SourceLocation L) { return placeKey(SM, L); };
  return std::string(F.R->Name) + "|" + loc(F.Async.At.S->getBeginLoc()) +
         "|" + loc(F.Async.Loc) + "|" + loc(F.Access.At.S->getBeginLoc()) +
         "|" + loc(F.Access.Loc) + "|" + std::to_string(int(F.Access.Kind)) +
         "|" + (F.Handoff ? loc(F.Handoff.S->getBeginLoc()) : "-");
}

/// Functions whose findings are reported: device code in the main file or
/// in project headers (never system or CUDA headers).
class RootCollector : public RecursiveASTVisitor<RootCollector> {
public:
  RootCollector(SourceManager &SM, std::function<bool(SourceLocation)> Editable)
      : SM(SM), Editable(std::move(Editable)) {}
  std::vector<const FunctionDecl *> Roots;

  bool shouldVisitTemplateInstantiations() const { return true; }
  bool TraverseDecl(Decl *D) {
    if (D && !isa<TranslationUnitDecl>(D) && D->getLocation().isValid() &&
        SM.isInSystemHeader(SM.getExpansionLoc(D->getLocation())))
      return true;
    return RecursiveASTVisitor::TraverseDecl(D);
  }
  bool VisitFunctionDecl(FunctionDecl *FD) {
    if (!FD->doesThisDeclarationHaveABody() || FD->isDependentContext() ||
        FD->isInvalidDecl())
      return true;
    if (!FD->hasAttr<CUDAGlobalAttr>() && !FD->hasAttr<CUDADeviceAttr>())
      return true;
    if (Editable(SM.getExpansionLoc(FD->getLocation())))
      Roots.push_back(FD);
    return true;
  }

private:
  SourceManager &SM;
  std::function<bool(SourceLocation)> Editable;
};

/// The same for a proxyfence-mbarrier-init finding: the hazard at an init.
std::string initFindingKey(const SourceManager &SM, const InitFinding &F) {
  return std::string(MbarrierInitRule.Name) + "|" +
         std::to_string(int(F.Kind)) + "|" +
         placeKey(SM, F.Init.At.S->getBeginLoc()) + "|" +
         placeKey(SM, F.Init.Loc);
}

class AnalysisConsumer : public ASTConsumer {
public:
  AnalysisConsumer(const DriverOptions &Opts, FileResult &R,
                   const std::set<std::string> &Reported)
      : Opts(Opts), R(R), Reported(Reported) {}

  void HandleTranslationUnit(ASTContext &Ctx) override {
    R.Ran = true;
    SourceManager &SM = Ctx.getSourceManager();
    for (const Decl *D : Ctx.getTranslationUnitDecl()->decls())
      if (!D->isImplicit() && !D->isInvalidDecl() &&
          SM.isWrittenInMainFile(SM.getExpansionLoc(D->getLocation())))
        ++R.ValidDecls;

    std::string CudaPrefix = Opts.CudaPath;
    auto Editable = [&SM, CudaPrefix](SourceLocation L) {
      L = SM.getExpansionLoc(L);
      if (L.isInvalid())
        return false;
      if (SM.isWrittenInMainFile(L))
        return true;
      if (SM.isInSystemHeader(L))
        return false;
      llvm::StringRef Name = SM.getFilename(L);
      return !Name.empty() && !Name.starts_with(CudaPrefix) &&
             !Name.starts_with("/usr/");
    };

    std::vector<const Rule *> Rules;
    for (const Rule *Ru : proxyRules())
      if (llvm::find(Opts.DisabledRules, Ru->Name) == Opts.DisabledRules.end())
        Rules.push_back(Ru);

    RootCollector RC(SM, Editable);
    RC.TraverseDecl(Ctx.getTranslationUnitDecl());
    Analyzer A(Ctx, Rules);
    for (const FunctionDecl *FD : RC.Roots)
      A.analyze(FD);
    R.Stats = A.stats();

    std::vector<Finding> Findings;
    std::set<std::string> Keys;
    for (const Finding &F : A.findings()) {
      if (!Editable(F.Async.At.S->getBeginLoc()))
        continue;
      // Once per place in the source: not again for another instantiation,
      // nor for a header an earlier input already reported.
      std::string K = findingKey(SM, F);
      if (Reported.count(K) || !Keys.insert(K).second)
        continue;
      R.Keys.push_back(K);
      Findings.push_back(F);
    }
    auto Key = [&SM](const Finding &F) {
      return std::make_tuple(
          SM.getFileOffset(SM.getExpansionLoc(F.Async.At.S->getBeginLoc())),
          SM.getFileOffset(SM.getExpansionLoc(F.Access.Loc)));
    };
    std::stable_sort(Findings.begin(), Findings.end(),
                     [&](const Finding &X, const Finding &Y) {
                       return Key(X) < Key(Y);
                     });

    // proxyfence-mbarrier-init: its own dataflow over the same events.
    MbarrierAnalyzer M(Ctx, A.events(), Opts.RequireInitProxyFence);
    std::vector<InitFinding> InitFindings;
    if (!llvm::is_contained(Opts.DisabledRules, MbarrierInitRule.Name)) {
      for (const FunctionDecl *FD : RC.Roots)
        M.analyze(FD);
      for (const InitFinding &F : M.findings()) {
        if (!Editable(F.Init.At.S->getBeginLoc()))
          continue;
        std::string K = initFindingKey(SM, F);
        if (Reported.count(K) || !Keys.insert(K).second)
          continue;
        R.Keys.push_back(K);
        InitFindings.push_back(F);
      }
      std::stable_sort(InitFindings.begin(), InitFindings.end(),
                       [&SM](const InitFinding &X, const InitFinding &Y) {
                         auto Off = [&SM](const InitFinding &F) {
                           return SM.getFileOffset(SM.getExpansionLoc(
                               F.Init.At.S->getBeginLoc()));
                         };
                         return Off(X) < Off(Y);
                       });
    }

    FixPlanner Planner(Ctx, Opts.Style, Editable);
    std::vector<PlannedFix> Fixes = Planner.plan(Findings);
    std::vector<InitFix> InitFixes = planInitFixes(Planner, M, InitFindings);
    for (size_t I = 0; I < Findings.size(); ++I)
      R.Sites.push_back(makeVerifySite(SM, Findings[I], Fixes[I].Ok));
    for (size_t I = 0; I < InitFindings.size(); ++I)
      addInitVerifySites(R.Sites, SM, InitFindings[I], InitFixes[I].Ok);
    llvm::raw_string_ostream OS(R.Report);
    R.Diags = reportFindings(Ctx, Findings, Fixes, Planner, OS,
                             llvm::outs().has_colors());
    for (tooling::Diagnostic &D :
         reportInitFindings(Ctx, InitFindings, InitFixes, Planner, OS,
                            llvm::outs().has_colors()))
      R.Diags.push_back(std::move(D));
    // Findings are counted as reported: one per warning.
    R.Findings = R.Diags.size();
    for (const tooling::Diagnostic &D : R.Diags)
      R.Unfixable += D.Message.Fix.empty();
    // All edits at once: insertions at one point are joined in order.
    for (const InitFix &F : InitFixes)
      Fixes.insert(Fixes.end(), F.Edits.begin(), F.Edits.end());
    Planner.addReplacements(Fixes, R.Edits);
    for (const auto &[Path, Repls] : R.Edits) {
      (void)Repls;
      if (auto FE = SM.getFileManager().getOptionalFileRef(Path))
        if (auto Buf = SM.getMemoryBufferForFileOrNone(*FE))
          R.Originals[Path] = Buf->getBuffer().str();
    }
  }

private:
  const DriverOptions &Opts;
  FileResult &R;
  const std::set<std::string> &Reported;
};

class AnalysisAction : public ASTFrontendAction {
public:
  AnalysisAction(const DriverOptions &Opts, FileResult &R,
                 const std::set<std::string> &Reported)
      : Opts(Opts), R(R), Reported(Reported) {}
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &,
                                                 llvm::StringRef) override {
    return std::make_unique<AnalysisConsumer>(Opts, R, Reported);
  }

private:
  const DriverOptions &Opts;
  FileResult &R;
  const std::set<std::string> &Reported;
};

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

/// Why \p Path (resolved: \p Target, its status \p St) must not be replaced:
/// a rename ignores the file's own mode and links, so both are checked here.
static std::string whyNotReplaceable(llvm::StringRef Path,
                                     llvm::StringRef Target,
                                     const llvm::sys::fs::file_status &St) {
  if (!llvm::sys::fs::is_regular_file(St))
    return "'" + Path.str() + "' is not a regular file";
  if ((St.permissions() & llvm::sys::fs::all_write) == 0 ||
      llvm::sys::fs::access(Target, llvm::sys::fs::AccessMode::Write))
    return "'" + Path.str() + "' is read-only";
  if (St.getLinkCount() > 1)
    return "'" + Path.str() + "' has " + std::to_string(St.getLinkCount()) +
           " hard links, which replacing it would split";
  return "";
}

std::string whyNotWritable(llvm::StringRef Path) {
  llvm::SmallString<256> Target;
  llvm::sys::fs::file_status St;
  if (std::error_code EC = llvm::sys::fs::real_path(Path, Target))
    return "cannot read '" + Path.str() + "': " + EC.message();
  if (std::error_code EC = llvm::sys::fs::status(Target, St))
    return "cannot read '" + Path.str() + "': " + EC.message();
  return whyNotReplaceable(Path, Target, St);
}

std::string whyNotRewritable(llvm::StringRef Path, llvm::StringRef Expected) {
  std::string Why = whyNotWritable(Path);
  if (!Why.empty())
    return Why;
  auto Now = llvm::MemoryBuffer::getFile(Path, /*IsText=*/false,
                                         /*RequiresNullTerminator=*/false);
  if (!Now)
    return "cannot read '" + Path.str() + "': " + Now.getError().message();
  if ((*Now)->getBuffer() != Expected)
    return "'" + Path.str() + "' changed on disk during the analysis";
  return "";
}

llvm::Error writeFileAtomically(llvm::StringRef Path, llvm::StringRef Expected,
                                llvm::StringRef Content) {
  auto fail = [&](const std::string &Why) {
    return llvm::createStringError(
        std::make_error_code(std::errc::operation_not_permitted),
        Why + "; not overwritten");
  };
  std::string Why = whyNotRewritable(Path, Expected);
  if (!Why.empty())
    return fail(Why);
  // Through a symlink the file it names is replaced; the link stays a link.
  llvm::SmallString<256> Target;
  llvm::sys::fs::file_status St;
  if (llvm::sys::fs::real_path(Path, Target) ||
      llvm::sys::fs::status(Target, St))
    return fail("cannot read '" + Path.str() + "'");
  llvm::SmallString<256> Model(Target);
  Model += ".proxyfence-%%%%%%.tmp";
  int FD;
  llvm::SmallString<256> Tmp;
  if (std::error_code EC = llvm::sys::fs::createUniqueFile(Model, FD, Tmp))
    return fail("cannot create a temporary file next to '" + Path.str() +
                "': " + EC.message());
  // An interrupt (not SIGKILL) leaves no temporary file behind.
  llvm::sys::RemoveFileOnSignal(Tmp);
  auto discard = [&](const std::string &Why) {
    llvm::sys::fs::remove(Tmp);
    llvm::sys::DontRemoveFileOnSignal(Tmp);
    return fail(Why);
  };
  {
    llvm::raw_fd_ostream OS(FD, /*shouldClose=*/true);
    OS << Content;
    OS.flush();
    if (OS.has_error()) {
      std::error_code EC = OS.error();
      OS.clear_error();
      return discard("cannot write '" + Tmp.str().str() + "': " + EC.message());
    }
    // The owner too: a file rewritten by root stays its owner's.
    llvm::sys::fs::file_status New;
    if (!llvm::sys::fs::status(FD, New) &&
        (New.getUser() != St.getUser() || New.getGroup() != St.getGroup()))
      if (std::error_code EC = llvm::sys::fs::changeFileOwnership(
              FD, St.getUser(), St.getGroup()))
        return discard("cannot keep the owner of '" + Path.str() +
                       "': " + EC.message());
    // On disk before the rename: a crash never leaves an empty file.
    if (::fsync(FD) != 0)
      return discard("cannot write '" + Tmp.str().str() +
                     "': " + std::strerror(errno));
  }
  if (std::error_code EC = llvm::sys::fs::setPermissions(Tmp, St.permissions()))
    return discard("cannot set the permissions of '" + Tmp.str().str() +
                   "': " + EC.message());
  if (std::error_code EC = llvm::sys::fs::rename(Tmp, Target))
    return discard("cannot replace '" + Path.str() + "': " + EC.message());
  llvm::sys::DontRemoveFileOnSignal(Tmp);
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

/// Runs the front end and the analysis on one file. \p Patched, when set,
/// replaces the main file's text (rejected asm escapes doubled).
static bool analyseFile(const DriverOptions &Opts,
                        const std::vector<std::string> &Cmd,
                        llvm::StringRef File, const std::string *Patched,
                        const std::set<std::string> &Reported, FileResult &R,
                        FrontEndErrors &Errors) {
  auto Overlay = llvm::makeIntrusiveRefCnt<llvm::vfs::OverlayFileSystem>(
      llvm::vfs::getRealFileSystem());
  if (Patched) {
    auto Mem = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
    Mem->addFile(File, 0, llvm::MemoryBuffer::getMemBufferCopy(*Patched));
    Overlay->pushOverlay(Mem);
  }
  auto Files = llvm::makeIntrusiveRefCnt<FileManager>(FileSystemOptions(),
                                                      Overlay);
  std::vector<std::string> Args =
      deviceCommand(Cmd, File, {Opts.Arch, Opts.CudaPath});
  // Front-end errors are collected, not printed: without this the compiler
  // would still print its own "N errors generated" line.
  Args.insert(Args.begin() + 1, "-fno-caret-diagnostics");
  tooling::ToolInvocation Inv(Args,
                              std::make_unique<AnalysisAction>(Opts, R, Reported),
                              Files.get());
  Inv.setDiagnosticConsumer(&Errors);
  Inv.run();
  return R.Ran;
}

/// Shifts offsets in the main file back from the patched text (one `%`
/// inserted before each offset in \p Inserted) to the original.
static void unpatchOffsets(FileResult &R, llvm::StringRef File,
                           const std::vector<unsigned> &Inserted) {
  auto Shift = [&](unsigned Off) {
    unsigned N = 0;
    for (unsigned I : Inserted)
      N += I < Off;
    return Off - N;
  };
  shiftSites(R.Sites, File, Shift);
  auto It = R.Edits.find(File.str());
  if (It == R.Edits.end())
    return;
  tooling::Replacements Fixed;
  for (const tooling::Replacement &Rep : It->second)
    llvm::consumeError(Fixed.add(tooling::Replacement(
        Rep.getFilePath(), Shift(Rep.getOffset()), Rep.getLength(),
        Rep.getReplacementText())));
  It->second = Fixed;
  for (tooling::Diagnostic &D : R.Diags) {
    if (D.Message.FilePath == File)
      D.Message.FileOffset = Shift(D.Message.FileOffset);
    auto F = D.Message.Fix.find(File);
    if (F != D.Message.Fix.end()) {
      tooling::Replacements Moved;
      for (const tooling::Replacement &Rep : F->second)
        llvm::consumeError(Moved.add(tooling::Replacement(
            Rep.getFilePath(), Shift(Rep.getOffset()), Rep.getLength(),
            Rep.getReplacementText())));
      F->second = Moved;
    }
  }
}

std::string absolutePath(llvm::StringRef P) {
  llvm::SmallString<256> S(P);
  llvm::sys::fs::make_absolute(S);
  llvm::sys::path::remove_dots(S, /*remove_dot_dot=*/true);
  return std::string(S);
}

std::vector<InputCommand> inputCommands(const DriverOptions &Opts,
                                        std::string &Why) {
  std::unique_ptr<tooling::CompilationDatabase> DB;
  if (!Opts.BuildPath.empty()) {
    std::string Msg;
    DB = tooling::CompilationDatabase::loadFromDirectory(Opts.BuildPath, Msg);
    if (!DB) {
      // One line: the loaders' reasons come one per line.
      std::string Reason = llvm::StringRef(Msg).trim().str();
      std::replace(Reason.begin(), Reason.end(), '\n', ' ');
      Why = "cannot load a compilation database from '" + Opts.BuildPath +
            "': " + Reason;
      return {};
    }
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
      if (CCs.empty()) {
        Why = "'" + F + "' is not in the compilation database in '" +
              Opts.BuildPath + "'";
        return {};
      }
      Cmd = CCs.front().CommandLine;
      // Relative -I paths in the database are relative to its directory.
      if (!CCs.front().Directory.empty())
        Cmd.insert(Cmd.begin() + 1, "-working-directory=" + CCs.front().Directory);
    }
    Cmd.insert(Cmd.end(), Opts.ExtraArgs.begin(), Opts.ExtraArgs.end());
    Jobs.push_back({Abs, Cmd});
  }
  return Jobs;
}

int runDriver(const DriverOptions &Opts, llvm::raw_ostream &Out,
              llvm::raw_ostream &Err) {
  auto fail = [&](const std::string &Msg) {
    Err << "proxyfence: error: " << Msg << "\n";
    return ExitInputError;
  };
  if (Opts.Files.empty())
    return fail("no input files (usage: proxyfence [options] <file>... "
                "[-- <compiler args>])");
  if (!Opts.Arch.empty() && !isKnownArch(Opts.Arch))
    return fail("unknown --arch '" + Opts.Arch +
                "' (expected a CUDA GPU architecture such as sm_90a or sm_100a)");
  if (!llvm::sys::fs::exists(Opts.CudaPath + "/include/cuda.h"))
    return fail("no CUDA installation at '" + Opts.CudaPath +
                "' (include/cuda.h not found); use --cuda-path");

  // Every input is checked before anything is analysed or written.
  std::string Why;
  std::vector<InputCommand> Jobs = inputCommands(Opts, Why);
  if (!Why.empty())
    return fail(Why);

  if (Opts.PrintCommands) {
    // The exact front-end command, for reproducing a parse (and bench/).
    for (const auto &[File, Cmd] : Jobs) {
      for (const std::string &A : deviceCommand(Cmd, File, {Opts.Arch, Opts.CudaPath}))
        Out << llvm::sys::path::convert_to_slash(A) << '\0';
      Out << '\n';
    }
    return ExitClean;
  }

  std::vector<FileResult> Results(Jobs.size());
  std::set<std::string> Reported; // findingKey of what earlier files reported
  unsigned InputErrors = 0, Degraded = 0;
  std::vector<std::string> DegradedFiles;
  for (size_t I = 0; I < Jobs.size(); ++I) {
    const auto &[File, Cmd] = Jobs[I];
    FileResult &R = Results[I];
    R.File = File;
    FrontEndErrors Errors;
    bool Ran = analyseFile(Opts, Cmd, File, nullptr, Reported, R, Errors);
    if (Ran && !Errors.AsmEscapes.empty()) {
      // clang rejects `%laneid` where nvcc accepts it; double the escapes and
      // analyse again so those asm statements are still read.
      auto Buf = llvm::MemoryBuffer::getFile(File);
      if (Buf) {
        std::string Text = (*Buf)->getBuffer().str();
        std::vector<unsigned> Offsets = Errors.AsmEscapes;
        llvm::sort(Offsets);
        Offsets.erase(std::unique(Offsets.begin(), Offsets.end()), Offsets.end());
        std::string Patched;
        size_t Prev = 0;
        std::vector<unsigned> Inserted;
        for (unsigned Off : Offsets) {
          if (Off >= Text.size() || Text[Off] != '%')
            continue;
          Patched.append(Text, Prev, Off - Prev);
          Inserted.push_back(Patched.size());
          Patched += '%';
          Prev = Off;
        }
        Patched.append(Text, Prev, std::string::npos);
        FileResult Second;
        Second.File = File;
        FrontEndErrors Ignored;
        if (!Inserted.empty() &&
            analyseFile(Opts, Cmd, File, &Patched, Reported, Second, Ignored)) {
          unpatchOffsets(Second, File, Inserted);
          // Edits must apply to the text on disk, not the patched one.
          Second.Originals[File] = Text;
          R = std::move(Second);
        }
      }
    }
    if (!R.Ran || (Errors.Count && R.ValidDecls == 0)) {
      Err << "proxyfence: error: cannot parse '" << Opts.Files[I]
          << "' as CUDA" << (Errors.First.empty() ? "" : ": ") << Errors.First
          << "\n";
      ++InputErrors;
      continue;
    }
    Reported.insert(R.Keys.begin(), R.Keys.end());
    keyEditsByRealPath(R);
    Out << R.Report;
    if (Errors.Count) {
      ++Degraded;
      DegradedFiles.push_back(Opts.Files[I]);
      Out << Opts.Files[I] << ": note: the clang front end rejected part of "
          << "this file (" << Errors.Count << " error"
          << (Errors.Count == 1 ? "" : "s") << "; first: " << Errors.First
          << "); findings cover what could be analysed [proxyfence]\n";
      if (Opts.Strict)
        Err << "proxyfence: error: '" << Opts.Files[I]
            << "' has front-end errors (first: " << Errors.First
            << ") and --strict is set\n";
    }
  }
  Out.flush();

  if (InputErrors || (Opts.Strict && Degraded))
    return ExitInputError; // nothing is written after an input error

  unsigned Findings = 0, Remaining = 0, Fixed = 0;
  bool VerifyFailed = false, WriteFailed = false;
  tooling::TranslationUnitDiagnostics TUD;
  TUD.MainSourceFile = Jobs.size() == 1 ? Jobs[0].first : "";
  // Merge the edits of every file (a header fixed from two files once).
  std::map<std::string, tooling::Replacements> Edits;
  std::map<std::string, std::string> Originals;
  // clang-apply-replacements applies every replacement of every diagnostic
  // of a translation unit, and two equal insertions at one offset add the
  // text twice: a fence point (or an include) shared by several findings is
  // exported with the first of them only.
  std::set<std::tuple<std::string, unsigned, unsigned, std::string>> Exported;
  for (FileResult &R : Results) {
    Findings += R.Findings;
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
      TUD.Diagnostics.push_back(std::move(D));
    }
    for (auto &[Path, Repls] : R.Edits)
      for (const tooling::Replacement &Rep : Repls) {
        // The same edit planned from two inputs (a header): apply it once.
        if (llvm::is_contained(Edits[Path], Rep))
          continue;
        if (llvm::Error E = Edits[Path].add(Rep)) {
          llvm::consumeError(std::move(E));
          Err << "proxyfence: warning: conflicting fixes in '" << Path
              << "'; one was dropped\n";
        }
      }
    for (auto &[Path, Text] : R.Originals)
      Originals.emplace(Path, Text);
  }

  if (!Opts.ExportFixes.empty())
    if (llvm::Error E = exportFixes(Opts.ExportFixes, TUD)) {
      Err << "proxyfence: error: " << llvm::toString(std::move(E)) << "\n";
      return ExitInputError;
    }

  Remaining = Findings;
  if (Opts.Fix) {
    // Every file is checked before any is written: a fix spread over a
    // kernel and its header is applied whole or not at all.
    bool Writable = true;
    for (const auto &[Path, Repls] : Edits) {
      auto Orig = Originals.find(Path);
      std::string Why = Orig == Originals.end()
                            ? ""
                            : whyNotRewritable(Path, Orig->second);
      if (!Why.empty()) {
        Err << "proxyfence: error: " << Why << "; nothing was written\n";
        Writable = false;
      }
    }
    if (!Writable)
      return ExitInputError;
    std::set<std::string> Failed;
    for (auto &[Path, Repls] : Edits) {
      auto Orig = Originals.find(Path);
      if (Orig == Originals.end())
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
      }
    }
    WriteFailed = !Failed.empty();
    // A finding is fixed when its fix was planned and its file written.
    Remaining = 0;
    for (const FileResult &R : Results) {
      Remaining += R.Unfixable;
      unsigned FixedHere = R.Findings - R.Unfixable;
      bool AllWritten = true;
      for (const auto &[Path, Repls] : R.Edits)
        AllWritten &= !Failed.count(Path);
      if (AllWritten)
        Fixed += FixedHere;
      else
        Remaining += FixedHere;
    }
    if (Opts.Verify.Enabled) {
      std::vector<VerifyUnit> Units;
      for (size_t I = 0; I < Results.size(); ++I) {
        VerifyUnit U;
        U.File = Results[I].File;
        U.Name = Opts.Files[I];
        U.Command = Jobs[I].second;
        U.Sites = Results[I].Sites;
        // What was written to each file, so that a rollback restores it.
        for (const auto &[Path, Repls] : Results[I].Edits)
          if (!Failed.count(Path) && Originals.count(Path)) {
            U.Originals[Path] = Originals[Path];
            U.Edits[Path] = Edits[Path];
          }
        Units.push_back(std::move(U));
      }
      VerifyTotals T = verifyFixes(Units, Opts, Out, Err);
      T.RolledBack = std::min(T.RolledBack, Fixed);
      Fixed -= T.RolledBack;
      Remaining += T.RolledBack;
      VerifyFailed = T.Failed;
    }
  }

  if (!Opts.Quiet) {
    Err << "proxyfence: " << Findings << " finding" << (Findings == 1 ? "" : "s")
        << " in " << Results.size() << " file" << (Results.size() == 1 ? "" : "s");
    if (Opts.Fix)
      Err << ", " << Fixed << " fixed, " << Remaining << " left";
    Err << "\n";
    if (!DegradedFiles.empty()) {
      Err << "proxyfence: not fully analysed (front-end errors):";
      for (const std::string &F : DegradedFiles)
        Err << " " << F;
      Err << "\n";
    }
  }
  if (WriteFailed)
    return ExitInputError;
  return Remaining || VerifyFailed ? ExitFindings : ExitClean;
}

} // namespace proxyfence
