//===- InputJob.cpp - the front end and the analysis of one input ----------===//
#include "support/ContentHash.h"
#include "driver/InputJob.h"
#include "frontend/CompileArgs.h"
#include "frontend/ProjectFiles.h"
#include "proxyfence/NvccView.h"
#include "frontend/SourceRecovery.h"
#include "clang/AST/ASTConsumer.h"
#include "clang/Basic/DiagnosticAST.h"
#include "clang/Basic/DiagnosticSema.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Lex/Lexer.h"
#include "clang/Lex/PPCallbacks.h"
#include "clang/Lex/Preprocessor.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/VirtualFileSystem.h"
#include "llvm/ADT/DenseMap.h"
#include <algorithm>
#include <optional>
#include <map>

using namespace clang;

namespace proxyfence {

namespace {

/// What one parse asks of the next: repairs that only its errors reveal.
struct RetryPlan {
  /// `%` escapes clang rejected where the source recovery did not look (an
  /// asm string spelled in a macro), by file.
  std::map<std::string, std::vector<unsigned>> AsmEscapes;
  /// Dependent type names used as template arguments without `typename`,
  /// which clang only rejects in the instantiation, by file.
  std::map<std::string, std::vector<unsigned>> Typenames;
  /// Constants read through a reference parameter (`dst.length`, with
  /// `length` static): nvcc accepts them in every dialect, clang only from
  /// C++23 on (P2280). Counted; the next parse reads them as C++23 does.
  unsigned UnknownReferences = 0;

  bool empty() const {
    return AsmEscapes.empty() && Typenames.empty() && !UnknownReferences;
  }
  /// Adds \p O; returns whether anything was new.
  bool merge(const RetryPlan &O) {
    bool New = O.UnknownReferences && !UnknownReferences;
    UnknownReferences = std::max(UnknownReferences, O.UnknownReferences);
    auto Add = [&New](std::map<std::string, std::vector<unsigned>> &To,
                      const std::map<std::string, std::vector<unsigned>> &From) {
      for (const auto &[Path, Offsets] : From)
        for (unsigned Off : Offsets) {
          auto &V = To[Path];
          if (!llvm::is_contained(V, Off)) {
            V.push_back(Off);
            New = true;
          }
        }
    };
    Add(AsmEscapes, O.AsmEscapes);
    Add(Typenames, O.Typenames);
    return New;
  }
};

/// The file offset of \p L's spelling, by the name the file was opened
/// with: the key the source recovery's file system gets it under.
void addSpelling(std::map<std::string, std::vector<unsigned>> &To,
                 const Diagnostic &Info) {
  if (!Info.hasSourceManager())
    return;
  const SourceManager &SM = Info.getSourceManager();
  SourceLocation L = SM.getSpellingLoc(Info.getLocation());
  if (L.isValid() && L.isFileID() && !SM.getFilename(L).empty())
    To[SM.getFilename(L).str()].push_back(SM.getFileOffset(L));
}

/// Whether \p Info is clang's note that a constant expression read a
/// reference parameter of unknown value (legal from C++23 on).
bool unknownReferenceNote(const Diagnostic &Info) {
  if (Info.getID() != diag::note_constexpr_function_param_value_unknown ||
      Info.getNumArgs() < 1 ||
      Info.getArgKind(0) != DiagnosticsEngine::ak_nameddecl)
    return false;
  auto *P = dyn_cast_or_null<ParmVarDecl>(
      reinterpret_cast<NamedDecl *>(Info.getRawArg(0)));
  return P && P->getType()->isReferenceType();
}

/// Collects the front end's errors instead of printing them: real kernels
/// use things clang rejects and nvcc accepts, and the analysis goes on over
/// the partial AST (as clang-tidy does).
class FrontEndErrors : public DiagnosticConsumer {
public:
  unsigned Count = 0;
  std::string First;
  /// clang stopped at its error limit (--max-errors).
  bool LimitHit = false;
  std::vector<SourceLocation> Locations; // of the errors, while parsing
  /// Repairs for another parse that these errors call for.
  RetryPlan Retry;
  /// Declarations nvcc accepts that clang's Sema rejects: their errors are
  /// recovered, not counted, nor counted towards --max-errors.
  SemaRecovery Recovery;
  unsigned MaxErrors = 0;
  unsigned Claimed = 0;
  /// Errors in files outside the input's project (a library the user does
  /// not own, which clang half-rejects): they do not use up the budget of
  /// --max-errors, up to ForeignCap of them (the time bound of a flood).
  unsigned Foreign = 0;
  std::optional<ProjectFiles> Project;
  /// `#include`s of files that do not exist, skipped: "name (at file:line)".
  std::vector<std::string> MissingHeaders;

  void HandleDiagnostic(DiagnosticsEngine::Level L,
                        const Diagnostic &Info) override {
    DiagnosticConsumer::HandleDiagnostic(L, Info);
    if (L == DiagnosticsEngine::Note && unknownReferenceNote(Info))
      ++Retry.UnknownReferences;
    if (L < DiagnosticsEngine::Error)
      return;
    if (Recovery.claim(Info)) {
      ++Claimed;
      moveLimit(Info);
      return;
    }
    if (Info.getID() == diag::fatal_too_many_errors) {
      LimitHit = true;
      return;
    }
    ++Count;
    if (isForeign(Info) && Foreign < ForeignCap) {
      ++Foreign;
      moveLimit(Info);
    }
    if (Info.hasSourceManager() && Info.getLocation().isValid())
      Locations.push_back(Info.getLocation());
    llvm::SmallString<128> Msg;
    Info.FormatDiagnostic(Msg);
    if (Info.getID() == diag::err_asm_invalid_escape)
      addSpelling(Retry.AsmEscapes, Info);
    if (Info.getID() == diag::err_ovl_no_viable_function_in_call &&
        Recovery.templateArgumentReadsReference(Info))
      ++Retry.UnknownReferences;
    // Not recovered by clang (SemaRecovery claims those it recovers).
    if (Info.getID() == diag::err_typename_missing ||
        Info.getID() == diag::err_typename_missing_template)
      addSpelling(Retry.Typenames, Info);
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

private:
  static constexpr unsigned ForeignCap = 20000;

  /// The engine discounted an error: clang's limit moves past it.
  void moveLimit(const Diagnostic &Info) {
    if (MaxErrors)
      const_cast<DiagnosticsEngine *>(Info.getDiags())
          ->setErrorLimit(MaxErrors + Claimed + Foreign);
  }

  bool isForeign(const Diagnostic &Info) {
    if (!Project || !Info.hasSourceManager() || Info.getLocation().isInvalid())
      return false;
    const SourceManager &SM = Info.getSourceManager();
    FileID F = SM.getFileID(SM.getFileLoc(Info.getLocation()));
    auto [It, New] = ForeignFiles.try_emplace(F, false);
    if (New) {
      OptionalFileEntryRef FE = SM.getFileEntryRefForID(F);
      llvm::SmallString<256> Path(FE ? FE->getName() : "");
      if (!Path.empty()) {
        SM.getFileManager().makeAbsolutePath(Path);
        It->second = F != SM.getMainFileID() && !Project->contains(Path);
      }
    }
    return It->second;
  }
  llvm::DenseMap<FileID, bool> ForeignFiles;
};

/// Skips an `#include` of a file that does not exist and goes on, as clangd
/// does: a host-only header the analysing machine lacks (<omp.h>) must not
/// end the parse before the code that launches the kernels.
class SkipMissingHeaders : public PPCallbacks {
public:
  SkipMissingHeaders(Preprocessor &PP, std::vector<std::string> &Missing)
      : PP(PP), Missing(Missing) {}
  bool FileNotFound(llvm::StringRef FileName) override {
    std::string Where;
    // Outside a macro expansion the current lexer is a raw-source Lexer.
    if (auto *L = static_cast<Lexer *>(PP.getCurrentLexer())) {
      // The lexer stands past the directive's end of line.
      PresumedLoc P = PP.getSourceManager().getPresumedLoc(
          L->getSourceLocation().getLocWithOffset(-1));
      if (P.isValid())
        Where = " (included at " + std::string(P.getFilename()) + ":" +
                std::to_string(P.getLine()) + ")";
    }
    Missing.push_back("'" + FileName.str() + "'" + Where);
    return true;
  }

private:
  Preprocessor &PP;
  std::vector<std::string> &Missing;
};

class AnalysisConsumer : public ASTConsumer {
public:
  AnalysisConsumer(const DriverOptions &Opts, FileResult &R,
                   const std::set<std::string> &Reported,
                   FrontEndErrors &Errors)
      : Opts(Opts), R(R), Reported(Reported), Errors(Errors) {}

  ASTMutationListener *GetASTMutationListener() override {
    return &Errors.Recovery;
  }

  bool HandleTopLevelDecl(DeclGroupRef Group) override {
    for (Decl *D : Group)
      Errors.Recovery.relaxConstexpr(D);
    return true;
  }
  /// A class's members, as soon as it is complete: a later member of an
  /// enclosing namespace may call them from host code.
  void HandleTagDeclDefinition(TagDecl *D) override {
    Errors.Recovery.relaxConstexpr(D);
  }

  void HandleTranslationUnit(ASTContext &Ctx) override {
    R.Ran = true;
    Errors.Recovery.finish();
    R.SemaRepairs = Errors.Recovery.counts();
    static_cast<TranslationUnitResult &>(R) = analyzeTranslationUnit(
        Ctx, Opts, Reported, llvm::outs().has_colors(), Errors.Locations);
    // Findings are counted as reported: one per warning.
    R.Findings = R.Diags.size();
    SourceManager &SM = Ctx.getSourceManager();
    for (auto It = SM.fileinfo_begin(); It != SM.fileinfo_end(); ++It)
      if (auto Buf = It->second->getBufferIfLoaded()) {
        llvm::SmallString<256> Path(It->first.getName());
        // `..` stays: removing it by hand is wrong across symlinks.
        SM.getFileManager().makeAbsolutePath(Path);
        // The nvcc prelude lives in memory only; the cache key holds it.
        if (!llvm::sys::fs::exists(Path))
          continue;
        R.Inputs.emplace_back(std::string(Path), contentHash(Buf->getBuffer()));
      }
    llvm::sort(R.Inputs);
  }

private:
  const DriverOptions &Opts;
  FileResult &R;
  const std::set<std::string> &Reported;
  FrontEndErrors &Errors;
};

/// Moves the lexer of the file being read to its end: the parser then sees
/// the end of each file on the include stack in turn, and the translation
/// unit ends with what was parsed so far.
void stopLexing(Preprocessor &PP) {
  // Outside a macro expansion the current lexer is always a raw-source
  // Lexer (clang has no other kind of file lexer since the PTH one left).
  if (auto *L = static_cast<Lexer *>(PP.getCurrentLexer()))
    L->seek(L->getBuffer().size(), /*IsAtStartOfLine=*/false);
}

class AnalysisAction : public ASTFrontendAction {
public:
  AnalysisAction(const DriverOptions &Opts, FileResult &R,
                 const std::set<std::string> &Reported, FrontEndErrors &Errors,
                 bool UnknownReferences)
      : Opts(Opts), R(R), Reported(Reported), Errors(Errors),
        UnknownReferences(UnknownReferences) {}
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &CI,
                                                 llvm::StringRef) override {
    if (Opts.NvccView)
      undoClangOptOuts(CI.getPreprocessor());
    Errors.Recovery.attach(CI);
    return std::make_unique<AnalysisConsumer>(Opts, R, Reported, Errors);
  }

  /// Past --max-errors clang only stops reporting: it would go on parsing
  /// (a file of repeated redefinitions costs minutes), so the parse stops
  /// there too and the analysis covers what came before.
  bool BeginSourceFileAction(CompilerInstance &CI) override {
    // C++23's constant evaluation of unknown references (P2280), as nvcc
    // reads every dialect; the predefined macros (__cplusplus) are already
    // those of the command's dialect, so headers take the same branches.
    if (UnknownReferences)
      CI.getLangOpts().CPlusPlus23 = true;
    CI.getDiagnostics().setErrorLimit(Opts.MaxErrors);
    Errors.MaxErrors = Opts.MaxErrors;
    Preprocessor &PP = CI.getPreprocessor();
    PP.addPPCallbacks(
        std::make_unique<SkipMissingHeaders>(PP, Errors.MissingHeaders));
    PP.setTokenWatcher([&PP, this](const Token &) {
      Errors.Recovery.tokenLexed();
      if (Errors.LimitHit)
        stopLexing(PP);
    });
    return true;
  }

private:
  const DriverOptions &Opts;
  FileResult &R;
  const std::set<std::string> &Reported;
  FrontEndErrors &Errors;
  bool UnknownReferences;
};

} // namespace

/// Makes the relative include paths of a command absolute (against its
/// -working-directory): headers then get absolute names, so that a header
/// reached from entries in two directories is one file to the
/// deduplication and the fixes, and is written where it is.
static void absoluteIncludePaths(std::vector<std::string> &Args) {
  std::string WorkDir;
  for (llvm::StringRef A : Args)
    if (A.consume_front("-working-directory="))
      WorkDir = A.str();
  if (WorkDir.empty())
    return;
  auto Fix = [&](std::string &P) {
    if (P.empty() || llvm::sys::path::is_absolute(P))
      return;
    llvm::SmallString<256> Abs(WorkDir);
    llvm::sys::path::append(Abs, P);
    llvm::sys::path::remove_dots(Abs, /*remove_dot_dot=*/true);
    P = std::string(Abs);
  };
  for (size_t I = 1; I < Args.size(); ++I)
    for (llvm::StringRef Flag :
         {"-isystem", "-iquote", "-idirafter", "-include", "-I"}) {
      if (!llvm::StringRef(Args[I]).starts_with(Flag))
        continue;
      if (Args[I].size() == Flag.size()) {
        if (I + 1 < Args.size())
          Fix(Args[++I]);
        break;
      }
      // Not -include-pch or -isystem-after: another flag.
      std::string Value = Args[I].substr(Flag.size());
      if (Value[0] == '-' || Value[0] == '=')
        continue;
      Fix(Value);
      Args[I] = Flag.str() + Value;
      break;
    }
}

/// Runs the front end and the analysis on one file. Every file is read
/// through the source recovery (SourceRecovery.h); \p Plan adds the repairs
/// an earlier run's front end errors called for. The results name the
/// files' texts on disk, which the recovery's edits leave the same length.
static bool analyseFile(const DriverOptions &Opts,
                        const std::vector<std::string> &Cmd,
                        llvm::StringRef File, const RetryPlan &Plan,
                        const std::set<std::string> &Reported, FileResult &R,
                        FrontEndErrors &Errors) {
  // A file system of its own: the driver applies the command's
  // -working-directory to it, which on the shared real one would change the
  // process's directory (for later relative paths, and for other threads).
  auto Recovering = llvm::makeIntrusiveRefCnt<RecoveringFileSystem>(
      llvm::vfs::createPhysicalFileSystem());
  for (const auto &[Path, Offsets] : Plan.AsmEscapes)
    Recovering->addEscapes(Path, Offsets);
  for (const auto &[Path, Offsets] : Plan.Typenames)
    Recovering->addTypenames(Path, Offsets);
  auto Overlay =
      llvm::makeIntrusiveRefCnt<llvm::vfs::OverlayFileSystem>(Recovering);
  // The nvcc view's prelude exists only here, never on disk.
  if (Opts.NvccView) {
    auto Mem = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
    Mem->addFile(nvccPreludePath(), 0,
                 llvm::MemoryBuffer::getMemBuffer(nvccPreludeText()));
    Overlay->pushOverlay(Mem);
  }
  auto Files = llvm::makeIntrusiveRefCnt<FileManager>(FileSystemOptions(),
                                                      Overlay);
  std::vector<std::string> Args =
      deviceCommand(Cmd, File, {Opts.Arch, Opts.CudaPath, Opts.NvccView});
  absoluteIncludePaths(Args);
  // Front-end errors are collected, not printed: without this the compiler
  // would still print its own "N errors generated" line.
  Args.insert(Args.begin() + 1, "-fno-caret-diagnostics");
  tooling::ToolInvocation Inv(Args,
                              std::make_unique<AnalysisAction>(
                                  Opts, R, Reported, Errors,
                                  Plan.UnknownReferences > 0),
                              Files.get());
  Inv.setDiagnosticConsumer(&Errors);
  Inv.run();
  // Edits and reports apply to the bytes on disk, and the cache checks
  // those bytes: a repaired file is hashed as it is on disk.
  for (auto &[Path, Text] : Recovering->originals()) {
    auto It = R.Originals.find(Path);
    if (It != R.Originals.end())
      It->second = Text;
    llvm::SmallString<256> Abs(Path);
    Files->makeAbsolutePath(Abs);
    for (auto &[Input, Hash] : R.Inputs)
      if (Input == Abs)
        Hash = contentHash(Text);
  }
  R.Repairs = Recovering->repairs();
  R.AsmLeft = Recovering->unrepaired();
  R.SemaRepairs.Typenames += Recovering->typenames();
  R.TypenamesLeft = Recovering->typenamesLeft();
  return R.Ran;
}

/// Parses and analyses one input, skipping the findings in \p Reported.
FileOutcome analyseInput(const DriverOptions &Opts, const InputCommand &Job,
                         const std::set<std::string> &Reported) {
  const auto &[File, Cmd] = Job;
  FileOutcome O;
  FileResult &R = O.R;
  R.File = File;
  FrontEndErrors Errors;
  Errors.Project.emplace(File, Opts.CudaPath, Opts.IncludeDirs,
                         Opts.DatabaseDir);
  RetryPlan Plan;
  bool Ran = analyseFile(Opts, Cmd, File, Plan, Reported, R, Errors);
  // What clang rejects and only its errors locate (an escape in a macro's
  // asm string, a `typename` an instantiation lacks, a constant read through
  // a reference parameter) is repaired in another parse, kept when it
  // rejects less; its repairs may uncover more (the instantiations they
  // let through), hence a second round.
  for (int Round = 0; Ran && Round < 2 && Plan.merge(Errors.Retry); ++Round) {
    FileResult Again;
    Again.File = File;
    FrontEndErrors AgainErrors;
    AgainErrors.Project.emplace(File, Opts.CudaPath, Opts.IncludeDirs,
                                Opts.DatabaseDir);
    if (!analyseFile(Opts, Cmd, File, Plan, Reported, Again, AgainErrors))
      break;
    bool Better = AgainErrors.Count < Errors.Count ||
                  (AgainErrors.Count == Errors.Count &&
                   Again.Repairs > R.Repairs);
    if (!Better)
      break;
    if (Plan.UnknownReferences)
      Again.SemaRepairs.UnknownReferences =
          Plan.UnknownReferences - std::min(Plan.UnknownReferences,
                                            AgainErrors.Retry.UnknownReferences);
    R = std::move(Again);
    Errors.Count = AgainErrors.Count;
    Errors.First = AgainErrors.First;
    Errors.LimitHit = AgainErrors.LimitHit;
    Errors.Foreign = AgainErrors.Foreign;
    Errors.MissingHeaders = std::move(AgainErrors.MissingHeaders);
    Errors.Retry = std::move(AgainErrors.Retry);
  }
  // The kept parse still lacks each `typename` it was rejected for, whether
  // or not a repair was tried.
  unsigned Rejected = 0;
  for (const auto &[Path, Offsets] : Errors.Retry.Typenames)
    Rejected += Offsets.size();
  R.TypenamesLeft = std::max(R.TypenamesLeft, Rejected);
  O.Errors = Errors.Count;
  O.FirstError = Errors.First;
  O.ErrorLimitHit = Errors.LimitHit;
  O.ForeignErrors = Errors.Foreign;
  O.MissingHeaders = std::move(Errors.MissingHeaders);
  return O;
}

} // namespace proxyfence
