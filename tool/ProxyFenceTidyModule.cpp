//===- ProxyFenceTidyModule.cpp - the rules as clang-tidy checks -----------===//
//
// A clang-tidy plugin (libProxyFenceTidy.so, loaded with --load): one check
// per rule, all backed by one run of analyzeTranslationUnit per translation
// unit, so findings and fixes are those of the standalone tool.
//
//===----------------------------------------------------------------------===//
#include "proxyfence/NvccView.h"
#include "proxyfence/Rules.h"
#include "proxyfence/TranslationUnit.h"
#include "clang-tidy/ClangTidyCheck.h"
#include "clang-tidy/ClangTidyModule.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "clang/Basic/Version.h"
#include "llvm/Support/raw_ostream.h"
#include <dlfcn.h>
#include <memory>
#include <optional>

using namespace clang;
using namespace clang::tidy;

namespace proxyfence {
namespace {

/// The analysis of the current translation unit, shared by the checks of one
/// clang-tidy context: the first check to run computes it for every enabled
/// proxyfence check, each check then reports its own rule's findings.
struct SharedAnalysis {
  std::optional<TranslationUnitResult> Result;
  /// Replacements of Result.Edits, indexed like Result.Diags: each edit goes
  /// to the first diagnostic that needs it, so that applying every
  /// diagnostic's fix writes exactly what `proxyfence --fix` writes.
  std::vector<std::map<std::string, tooling::Replacements>> FixOf;
  bool Tried = false;     // the options were read for this unit
  bool HostNoted = false; // the host-side remark was given

  void reset() {
    Result.reset();
    FixOf.clear();
    Tried = HostNoted = false;
  }
};

void assignEdits(SharedAnalysis &S) {
  const TranslationUnitResult &R = *S.Result;
  S.FixOf.assign(R.Diags.size(), {});
  for (const auto &[Path, Edits] : R.Edits)
    for (const tooling::Replacement &Edit : Edits)
      for (size_t I = 0; I < R.Diags.size(); ++I) {
        auto Own = R.Diags[I].Message.Fix.find(Path);
        if (Own == R.Diags[I].Message.Fix.end() ||
            llvm::none_of(Own->second, [&](const tooling::Replacement &O) {
              return O.getOffset() == Edit.getOffset();
            }))
          continue;
        llvm::consumeError(S.FixOf[I][Path].add(Edit));
        break;
      }
}

class ProxyFenceCheck : public ClangTidyCheck {
public:
  ProxyFenceCheck(StringRef Name, ClangTidyContext *Context,
                  std::shared_ptr<SharedAnalysis> Shared)
      : ClangTidyCheck(Name, Context), RuleName(Name.str()),
        TidyContext(Context), Shared(std::move(Shared)),
        // One setting for all proxyfence checks (one analysis serves them):
        // proxyfence.<Option>.
        Common("proxyfence", Context->getOptions().CheckOptions, Context) {}

  bool isLanguageVersionSupported(const LangOptions &LO) const override {
    return LO.CUDA;
  }

  /// The nvcc view, as the standalone tool parses by default: nvcc's macros
  /// and the prelude go into the predefines, before the file is read.
  void registerPPCallbacks(const SourceManager &, Preprocessor *PP,
                           Preprocessor *) override {
    if (Common.get("NvccView", "on") == "on")
      enterNvccView(*PP, Common.get("CudaPath", PF_DEFAULT_CUDA_PATH));
  }

  void registerMatchers(ast_matchers::MatchFinder *Finder) override {
    Finder->addMatcher(ast_matchers::translationUnitDecl(), this);
  }

  void onStartOfTranslationUnit() override { Shared->reset(); }

  void check(const ast_matchers::MatchFinder::MatchResult &Result) override {
    ASTContext &Ctx = *Result.Context;
    SourceManager &SM = Ctx.getSourceManager();
    if (!getLangOpts().CUDAIsDevice) {
      // clang-tidy parses the device side unless told --cuda-host-only;
      // the host side has no device code (__CUDA_ARCH__ is undefined).
      if (!std::exchange(Shared->HostNoted, true))
        diag(SM.getLocForStartOfFile(SM.getMainFileID()),
             "proxyfence: not analysed: this is the host-side compilation of "
             "a CUDA file; drop --cuda-host-only (or pass --cuda-device-only)",
             DiagnosticIDs::Remark);
      return;
    }
    if (!std::exchange(Shared->Tried, true)) {
      // An invalid option is reported once, and nothing is analysed.
      std::optional<AnalysisOptions> Opts = options();
      if (!Opts)
        return;
      Shared->Result = analyzeTranslationUnit(Ctx, *Opts, {}, false);
      assignEdits(*Shared);
    }
    if (!Shared->Result)
      return;
    const TranslationUnitResult &R = *Shared->Result;
    for (size_t I = 0; I < R.Diags.size(); ++I)
      if (R.Diags[I].DiagnosticName == RuleName)
        report(SM, R.Diags[I], Shared->FixOf[I]);
  }

private:
  /// The analysis options the shared options stand for; none (after a
  /// configuration error) when one is invalid.
  std::optional<AnalysisOptions> options() {
    AnalysisOptions O;
    StringRef Style = Common.get("FenceStyle", "auto");
    auto S = parseFenceStyle(Style);
    if (!S) {
      configurationDiag("invalid proxyfence.FenceStyle '%0' (expected auto, "
                        "ptx, cuda-ptx, cuda-experimental or cutlass)")
          << Style;
      return std::nullopt;
    }
    O.Style = *S;
    StringRef Init = Common.get("MbarrierInitProxyFence", "off");
    if (Init != "off" && Init != "require") {
      configurationDiag("invalid proxyfence.MbarrierInitProxyFence '%0' "
                        "(expected off or require)")
          << Init;
      return std::nullopt;
    }
    O.RequireInitProxyFence = Init == "require";
    // The view itself is entered before parsing (above); checked here so
    // that a bad value is a configuration error like the others.
    StringRef View = Common.get("NvccView", "on");
    if (View != "on" && View != "off") {
      configurationDiag("invalid proxyfence.NvccView '%0' (expected on or off)")
          << View;
      return std::nullopt;
    }
    O.CudaPath = Common.get("CudaPath", PF_DEFAULT_CUDA_PATH).str();
    for (const StandaloneRule &Ru : allRules())
      if (!TidyContext->isCheckEnabled(Ru.Name))
        O.DisabledRules.push_back(Ru.Name);
    return O;
  }

  static SourceLocation locationOf(SourceManager &SM, StringRef Path,
                                   unsigned Offset) {
    auto File = SM.getFileManager().getOptionalFileRef(Path);
    if (!File)
      return {};
    FileID ID = SM.translateFile(*File);
    if (ID.isInvalid())
      return {};
    return SM.getComposedLoc(ID, Offset);
  }

  void report(SourceManager &SM, const tooling::Diagnostic &D,
              const std::map<std::string, tooling::Replacements> &Fix) {
    const tooling::DiagnosticMessage &M = D.Message;
    {
      DiagnosticBuilder Warning =
          diag(locationOf(SM, M.FilePath, M.FileOffset), "%0") << M.Message;
      for (const auto &[Path, Edits] : Fix)
        for (const tooling::Replacement &E : Edits) {
          SourceLocation At = locationOf(SM, Path, E.getOffset());
          Warning << FixItHint::CreateReplacement(
              CharSourceRange::getCharRange(At,
                                            At.getLocWithOffset(E.getLength())),
              E.getReplacementText());
        }
    }
    for (const tooling::DiagnosticMessage &N : D.Notes)
      diag(locationOf(SM, N.FilePath, N.FileOffset), "%0", DiagnosticIDs::Note)
          << N.Message;
  }

  std::string RuleName;
  ClangTidyContext *TidyContext;
  std::shared_ptr<SharedAnalysis> Shared;
  OptionsView Common;
};

class ProxyFenceModule : public ClangTidyModule {
public:
  void addCheckFactories(ClangTidyCheckFactories &Factories) override {
    auto Shared = std::make_shared<SharedAnalysis>();
    for (const StandaloneRule &R : allRules())
      Factories.registerCheckFactory(
          R.Name, [Shared](StringRef Name, ClangTidyContext *Context) {
            return std::make_unique<ProxyFenceCheck>(Name, Context, Shared);
          });
  }
};

/// "22.1" from "... clang version 22.1.8 (...)"; empty if absent.
std::string majorMinor(StringRef FullVersion) {
  size_t At = FullVersion.find("version ");
  if (At == StringRef::npos)
    return "";
  StringRef V = FullVersion.substr(At + 8);
  auto [Major, Rest] = V.split('.');
  StringRef Minor = Rest.take_while([](char C) { return C >= '0' && C <= '9'; });
  if (Major.empty() || Minor.empty())
    return "";
  return (Major + "." + Minor).str();
}

/// Registers the checks unless the clang-tidy that loads the plugin is
/// another release than the one it was built against: then the plugin's
/// clang and the running one would be two copies with different layouts.
bool registerIfCompatible() {
  // The running clang-tidy's own copy: the process's first definition, not
  // the (versioned) one this plugin links to.
  using VersionFn = std::string (*)();
  auto Running = reinterpret_cast<VersionFn>(
      dlsym(RTLD_DEFAULT, "_ZN5clang19getClangFullVersionB5cxx11Ev"));
  std::string Host = Running ? majorMinor(Running()) : "";
  std::string Built = std::to_string(CLANG_VERSION_MAJOR) + "." +
                      std::to_string(CLANG_VERSION_MINOR);
  if (Host != Built) {
    llvm::errs() << "proxyfence: error: libProxyFenceTidy.so was built for "
                    "clang-tidy "
                 << Built << " but is loaded by clang-tidy "
                 << (Host.empty() ? "of an unknown version" : Host)
                 << "; the proxyfence checks are not registered (use "
                    "clang-tidy-"
                 << CLANG_VERSION_MAJOR << " or rebuild the plugin)\n";
    return false;
  }
  static ClangTidyModuleRegistry::Add<ProxyFenceModule> Module(
      "proxyfence-module", "Missing proxy fences in CUDA kernels.");
  return true;
}

[[maybe_unused]] const bool Registered = registerIfCompatible();

} // namespace
} // namespace proxyfence
