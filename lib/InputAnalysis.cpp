//===- InputAnalysis.cpp - the front end and the analysis of one input -----===//
#include "proxyfence/InputAnalysis.h"
#include "proxyfence/CompileArgs.h"
#include "proxyfence/ResultCache.h"
#include "proxyfence/Verify.h"
#include "clang/AST/ASTConsumer.h"
#include "clang/Basic/DiagnosticAST.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Lex/Lexer.h"
#include "clang/Lex/Preprocessor.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/VirtualFileSystem.h"
#include <algorithm>

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
  /// clang stopped at its error limit (--max-errors).
  bool LimitHit = false;
  /// Offsets in the main file of `%` escapes clang rejected in asm strings.
  std::vector<unsigned> AsmEscapes;

  void HandleDiagnostic(DiagnosticsEngine::Level L,
                        const Diagnostic &Info) override {
    DiagnosticConsumer::HandleDiagnostic(L, Info);
    if (L < DiagnosticsEngine::Error)
      return;
    if (Info.getID() == diag::fatal_too_many_errors) {
      LimitHit = true;
      return;
    }
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

class AnalysisConsumer : public ASTConsumer {
public:
  AnalysisConsumer(const DriverOptions &Opts, FileResult &R,
                   const std::set<std::string> &Reported)
      : Opts(Opts), R(R), Reported(Reported) {}

  void HandleTranslationUnit(ASTContext &Ctx) override {
    R.Ran = true;
    static_cast<TranslationUnitResult &>(R) = analyzeTranslationUnit(
        Ctx, Opts, Reported, llvm::outs().has_colors());
    // Findings are counted as reported: one per warning.
    R.Findings = R.Diags.size();
    SourceManager &SM = Ctx.getSourceManager();
    for (auto It = SM.fileinfo_begin(); It != SM.fileinfo_end(); ++It)
      if (auto Buf = It->second->getBufferIfLoaded()) {
        llvm::SmallString<256> Path(It->first.getName());
        // `..` stays: removing it by hand is wrong across symlinks.
        SM.getFileManager().makeAbsolutePath(Path);
        R.Inputs.emplace_back(std::string(Path), contentHash(Buf->getBuffer()));
      }
    llvm::sort(R.Inputs);
  }

private:
  const DriverOptions &Opts;
  FileResult &R;
  const std::set<std::string> &Reported;
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
                 const std::set<std::string> &Reported, FrontEndErrors &Errors)
      : Opts(Opts), R(R), Reported(Reported), Errors(Errors) {}
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &,
                                                 llvm::StringRef) override {
    return std::make_unique<AnalysisConsumer>(Opts, R, Reported);
  }

  /// Past --max-errors clang only stops reporting: it would go on parsing
  /// (a file of repeated redefinitions costs minutes), so the parse stops
  /// there too and the analysis covers what came before.
  bool BeginSourceFileAction(CompilerInstance &CI) override {
    CI.getDiagnostics().setErrorLimit(Opts.MaxErrors);
    if (Opts.MaxErrors) {
      Preprocessor &PP = CI.getPreprocessor();
      PP.setTokenWatcher([&PP, this](const Token &) {
        if (Errors.LimitHit)
          stopLexing(PP);
      });
    }
    return true;
  }

private:
  const DriverOptions &Opts;
  FileResult &R;
  const std::set<std::string> &Reported;
  FrontEndErrors &Errors;
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

/// Runs the front end and the analysis on one file. \p Patched, when set,
/// replaces the main file's text (rejected asm escapes doubled).
static bool analyseFile(const DriverOptions &Opts,
                        const std::vector<std::string> &Cmd,
                        llvm::StringRef File, const std::string *Patched,
                        const std::set<std::string> &Reported, FileResult &R,
                        FrontEndErrors &Errors) {
  // A file system of its own: the driver applies the command's
  // -working-directory to it, which on the shared real one would change the
  // process's directory (for later relative paths, and for other threads).
  auto Overlay = llvm::makeIntrusiveRefCnt<llvm::vfs::OverlayFileSystem>(
      llvm::vfs::createPhysicalFileSystem());
  if (Patched) {
    auto Mem = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
    Mem->addFile(File, 0, llvm::MemoryBuffer::getMemBufferCopy(*Patched));
    Overlay->pushOverlay(Mem);
  }
  auto Files = llvm::makeIntrusiveRefCnt<FileManager>(FileSystemOptions(),
                                                      Overlay);
  std::vector<std::string> Args =
      deviceCommand(Cmd, File, {Opts.Arch, Opts.CudaPath});
  absoluteIncludePaths(Args);
  // Front-end errors are collected, not printed: without this the compiler
  // would still print its own "N errors generated" line.
  Args.insert(Args.begin() + 1, "-fno-caret-diagnostics");
  tooling::ToolInvocation Inv(Args,
                              std::make_unique<AnalysisAction>(Opts, R, Reported, Errors),
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

/// Parses and analyses one input, skipping the findings in \p Reported.
FileOutcome analyseInput(const DriverOptions &Opts, const InputCommand &Job,
                         const std::set<std::string> &Reported) {
  const auto &[File, Cmd] = Job;
  FileOutcome O;
  FileResult &R = O.R;
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
        // The cache checks the files on disk, not the patched text.
        Second.Inputs = std::move(R.Inputs);
        R = std::move(Second);
      }
    }
  }
  O.Errors = Errors.Count;
  O.FirstError = Errors.First;
  O.ErrorLimitHit = Errors.LimitHit;
  return O;
}

} // namespace proxyfence
