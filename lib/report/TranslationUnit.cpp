//===- TranslationUnit.cpp - every rule over one parsed translation unit ---===//
#include "proxyfence/TranslationUnit.h"
#include "analysis/ProxyDataflow.h"
#include "rules/FenceClobber.h"
#include "rules/MbarrierInit.h"
#include "report/Output.h"
#include "frontend/ProjectFiles.h"
#include "proxyfence/Rules.h"
#include "report/Suppressions.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <map>
#include <optional>
#include <tuple>

using namespace clang;

namespace proxyfence {

namespace {

/// Identifies a finding by where its statements are written (expansion and
/// spelling locations), so that the copies produced by each instantiation of
/// a template, or by each input that includes the same header, are reported
/// and fixed once.
std::string placeKey(const SourceManager &SM, SourceLocation L) {
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
/// in project headers (never system or CUDA headers). A device function
/// template, or a member of a class template, written in the main file and
/// never instantiated there is analysed as written (its pattern); one with
/// instantiations is analysed through those.
class RootCollector : public RecursiveASTVisitor<RootCollector> {
public:
  RootCollector(SourceManager &SM, std::function<bool(SourceLocation)> Editable,
                std::function<bool(SourceLocation)> PatternScope)
      : SM(SM), Editable(std::move(Editable)),
        PatternScope(std::move(PatternScope)) {}
  std::vector<const FunctionDecl *> Roots;

  bool shouldVisitTemplateInstantiations() const { return true; }
  bool TraverseDecl(Decl *D) {
    if (D && !isa<TranslationUnitDecl>(D) && D->getLocation().isValid() &&
        SM.isInSystemHeader(SM.getExpansionLoc(D->getLocation())))
      return true;
    return RecursiveASTVisitor::TraverseDecl(D);
  }
  bool VisitFunctionDecl(FunctionDecl *FD) {
    if (!FD->doesThisDeclarationHaveABody() || FD->isInvalidDecl())
      return true;
    if (!FD->hasAttr<CUDAGlobalAttr>() && !FD->hasAttr<CUDADeviceAttr>())
      return true;
    SourceLocation L = SM.getExpansionLoc(FD->getLocation());
    if (FD->isDependentContext()) {
      // A lambda is analysed where it is called.
      const auto *MD = dyn_cast<CXXMethodDecl>(FD);
      if (!(MD && MD->getParent()->isLambda()) && Editable(L) &&
          PatternScope(L))
        Patterns.push_back(FD);
      return true;
    }
    if (const FunctionDecl *Pattern = FD->getTemplateInstantiationPattern())
      Instantiated.insert(Pattern);
    // A library's kernel template instantiated for this file's code
    // (`cutlass::device_kernel<Op>`): the entry that binds what the file's
    // functions receive; its findings are shown in the file's code.
    if (Editable(L) || (FD->hasAttr<CUDAGlobalAttr>() &&
                        FD->isTemplateInstantiation()))
      Roots.push_back(FD);
    return true;
  }
  /// Adds the patterns that no instantiation stands for (with \p Every,
  /// all of them); call once, after the traversal.
  /// Returns how many of them no instantiation stands for.
  unsigned addPatterns(bool Every) {
    unsigned Alone = 0;
    for (const FunctionDecl *P : Patterns) {
      bool Instantiation = Instantiated.count(P);
      Alone += !Instantiation;
      if (Every || !Instantiation)
        Roots.push_back(P);
    }
    return Alone;
  }

private:
  SourceManager &SM;
  std::function<bool(SourceLocation)> Editable;
  std::function<bool(SourceLocation)> PatternScope;
  std::vector<const FunctionDecl *> Patterns;
  llvm::DenseSet<const FunctionDecl *> Instantiated;
};

/// Which headers (never system headers) may be reported and edited: those
/// whose absolute path matches --header-filter, or without one, those of
/// the input's project (ProjectFiles.h), outside the CUDA installation and
/// /usr.
class HeaderFilter {
public:
  HeaderFilter(const AnalysisOptions &Opts, const SourceManager &SM)
      : CudaPrefix(Opts.CudaPath), Custom(!Opts.HeaderFilter.empty()),
        Filter(Opts.HeaderFilter), Project(mainFile(SM), Opts.CudaPath) {}

  bool selects(const SourceManager &SM, SourceLocation L) const {
    llvm::StringRef Name = SM.getFilename(L);
    if (Name.empty())
      return false;
    // Relative names are relative to the command's -working-directory.
    llvm::SmallString<256> Path(Name);
    SM.getFileManager().makeAbsolutePath(Path);
    llvm::sys::path::remove_dots(Path, /*remove_dot_dot=*/true);
    if (Custom)
      return Filter.match(Path);
    return !Name.starts_with(CudaPrefix) && !Name.starts_with("/usr/") &&
           Project.contains(Path);
  }

private:
  static std::string mainFile(const SourceManager &SM) {
    OptionalFileEntryRef FE = SM.getFileEntryRefForID(SM.getMainFileID());
    if (!FE)
      return ".";
    llvm::SmallString<256> Path(FE->getName());
    SM.getFileManager().makeAbsolutePath(Path);
    return std::string(Path);
  }

  std::string CudaPrefix;
  bool Custom;
  llvm::Regex Filter;
  ProjectFiles Project;
};

/// The same for a proxyfence-mbarrier-init finding: the hazard at an init.
std::string initFindingKey(const SourceManager &SM, const InitFinding &F) {
  return std::string(MbarrierInitRule.Name) + "|" +
         std::to_string(int(F.Kind)) + "|" +
         placeKey(SM, F.Init.At.S->getBeginLoc()) + "|" +
         placeKey(SM, F.Init.Loc);
}

/// Whether a NOLINT or `proxyfence: ignore` comment silences a warning of
/// \p Check at \p Loc (the line where the statement is written); each
/// file's comments are read once.
class Suppressions {
public:
  explicit Suppressions(const SourceManager &SM) : SM(SM) {}
  bool at(SourceLocation Loc, llvm::StringRef Check) {
    Loc = SM.getExpansionLoc(Loc);
    if (Loc.isInvalid())
      return false;
    FileID F = SM.getFileID(Loc);
    auto It = Files.find(F);
    if (It == Files.end()) {
      bool Invalid = false;
      llvm::StringRef Text = SM.getBufferData(F, &Invalid);
      It = Files.try_emplace(F, Invalid ? "" : Text).first;
    }
    return It->second.suppressed(SM.getExpansionLineNumber(Loc), Check);
  }

private:
  const SourceManager &SM;
  std::map<FileID, SuppressionIndex> Files;
};

} // namespace

TranslationUnitResult
analyzeTranslationUnit(ASTContext &Ctx, const AnalysisOptions &Opts,
                       const std::set<std::string> &Reported, bool Colors,
                       llvm::ArrayRef<SourceLocation> Errors) {
  TranslationUnitResult R;
  SourceManager &SM = Ctx.getSourceManager();
  Suppressions Suppressed(SM);
  for (const Decl *D : Ctx.getTranslationUnitDecl()->decls())
    if (!D->isImplicit() && !D->isInvalidDecl() &&
        SM.isWrittenInMainFile(SM.getExpansionLoc(D->getLocation())))
      ++R.ValidDecls;

  HeaderFilter Headers(Opts, SM);
  // A header analysed in an entry that includes it: that header only.
  std::optional<FileID> Focus;
  if (!Opts.FocusHeader.empty()) {
    Focus = FileID();
    if (auto FE = SM.getFileManager().getOptionalFileRef(Opts.FocusHeader))
      Focus = SM.translateFile(*FE);
  }
  auto inFocus = [&SM, &Focus](SourceLocation L) {
    return Focus ? SM.getFileID(L) == *Focus : SM.isWrittenInMainFile(L);
  };
  auto Editable = [&SM, &Headers, &Focus, &inFocus](SourceLocation L) {
    L = SM.getExpansionLoc(L);
    if (L.isInvalid())
      return false;
    if (Focus)
      return inFocus(L);
    if (SM.isWrittenInMainFile(L))
      return true;
    if (SM.isInSystemHeader(L))
      return false;
    return Headers.selects(SM, L);
  };

  std::vector<const Rule *> Rules;
  for (const Rule *Ru : proxyRules())
    if (llvm::find(Opts.DisabledRules, Ru->Name) == Opts.DisabledRules.end())
      Rules.push_back(Ru);

  // Patterns of the file named, not of every library header it includes.
  auto PatternScope = [&inFocus](SourceLocation L) { return inFocus(L); };
  RootCollector RC(SM, Editable, PatternScope);
  RC.TraverseDecl(Ctx.getTranslationUnitDecl());
  // A header analysed in a file that instantiates it: as instantiated
  // there, and as written too, for what those instantiations do not reach
  // (a configuration the file does not use, roles its runtime barrier ids
  // do not pair); a finding seen both ways is reported once.
  R.PatternsOnly = RC.addPatterns(/*Every=*/Focus.has_value());
  Analyzer A(Ctx, Rules);
  A.events().setUserVocabulary(&Opts.Vocabulary);
  for (const FunctionDecl *FD : RC.Roots)
    A.analyze(FD);
  A.pairSiblingRoles(RC.Roots);
  A.reportUncalledRoots(RC.Roots);
  R.Blind = findBlindSpots(Ctx, Editable, Errors);

  // Every rule's findings: once per place in the source (not again for
  // another instantiation, nor for a header an earlier input already
  // reported); a suppressed one is neither reported nor fixed, but counted.
  std::set<std::string> Keys;
  enum class Admit { Repeat, Suppressed, Kept };
  auto admit = [&](std::string Key, SourceLocation At, llvm::StringRef Rule) {
    if (Reported.count(Key)) {
      R.SkippedKeys.push_back(std::move(Key));
      return Admit::Repeat;
    }
    if (!Keys.insert(Key).second)
      return Admit::Repeat;
    R.Keys.push_back(std::move(Key));
    return Suppressed.at(At, Rule) ? Admit::Suppressed : Admit::Kept;
  };

  std::vector<Finding> Findings;
  std::set<std::tuple<const Rule *, const Stmt *, unsigned, const Stmt *>>
      SuppressedWarnings;
  // Hazards inside library code (outside the project, not selected by
  // --header-filter): counted once per async operation, not reported.
  std::set<std::string> InLibrary;
  // A template pattern analysed only for a caller's summary (a library
  // helper the file calls) reports nothing itself: its parameters are
  // resolved where it is called.
  llvm::DenseSet<const FunctionDecl *> RootSet(RC.Roots.begin(), RC.Roots.end());
  auto calleeOnlyPattern = [&RootSet](const FunctionDecl *Fn) {
    return Fn && Fn->isDependentContext() && !RootSet.count(Fn);
  };
  for (Finding F : A.findings()) {
    if (calleeOnlyPattern(F.Async.At.Fn))
      continue;
    // Found in a library entry (`cutlass::device_kernel<Op>`) but made of
    // this file's statements: reported where they are.
    if (!Editable(F.Async.At.S->getBeginLoc()) && F.Async.Origin &&
        Editable(F.Async.Origin.S->getBeginLoc()) && F.Access.Origin &&
        Editable(F.Access.Origin.S->getBeginLoc())) {
      F.Async.At = F.Async.Origin;
      F.Async.Via = F.Async.OriginVia;
      F.Access.At = F.Access.Origin;
      F.Access.Via = F.Access.OriginVia;
    }
    if (!Editable(F.Async.At.S->getBeginLoc())) {
      InLibrary.insert(std::string(F.R->Name) + "|" +
                       placeKey(SM, F.Async.At.S->getBeginLoc()) + "|" +
                       placeKey(SM, F.Async.Loc));
      continue;
    }
    Admit Verdict = admit(findingKey(SM, F), F.Async.At.S->getBeginLoc(),
                          F.R->Name);
    if (Verdict == Admit::Kept) {
      Findings.push_back(F);
      // A role function in library code: shown at the call here instead.
      for (Event *E : {&Findings.back().Access, &Findings.back().Async})
        if (E->Origin && !Editable(E->Origin.S->getBeginLoc()))
          E->Origin = StmtRef();
    }
    // Suppressed ones count once per warning, grouped as reportFindings
    // groups them.
    else if (Verdict == Admit::Suppressed)
      SuppressedWarnings.insert(std::make_tuple(
          F.R, F.Async.At.S, F.Async.Loc.getRawEncoding(), F.Handoff.S));
  }
  R.Suppressed = SuppressedWarnings.size();
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
      if (calleeOnlyPattern(F.Init.At.Fn))
        continue;
      if (!Editable(F.Init.At.S->getBeginLoc())) {
        InLibrary.insert(initFindingKey(SM, F));
        continue;
      }
      Admit Verdict = admit(initFindingKey(SM, F), F.Init.At.S->getBeginLoc(),
                            MbarrierInitRule.Name);
      if (Verdict == Admit::Kept)
        InitFindings.push_back(F);
      R.Suppressed += Verdict == Admit::Suppressed;
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

  R.InLibrary = InLibrary.size();
  // Both analyses' unresolved template calls are in the stats.
  R.Stats = A.stats();
  if (!Opts.HeaderContextNote.empty())
    R.Stats.HeaderContexts.push_back(Opts.HeaderContextNote);

  // proxyfence-fence-clobber: fence wrappers the compiler may reorder.
  std::vector<ClobberFinding> ClobberFindings;
  if (!llvm::is_contained(Opts.DisabledRules, FenceClobberRule.Name))
    for (ClobberFinding &F : findClobberlessFences(Ctx, A.memory(), RC.Roots, Editable)) {
      Admit Verdict = admit(std::string(FenceClobberRule.Name) + "|" +
                                placeKey(SM, F.Asm->getBeginLoc()),
                            F.Asm->getBeginLoc(), FenceClobberRule.Name);
      if (Verdict == Admit::Kept)
        ClobberFindings.push_back(std::move(F));
      R.Suppressed += Verdict == Admit::Suppressed;
    }

  // proxyfence-tcgen05-order and proxyfence-tensormap.
  std::vector<OrderFinding> OrderFindings;
  for (const StandaloneRule *Rule : {&Tcgen05OrderRule, &TensormapRule}) {
    if (llvm::is_contained(Opts.DisabledRules, Rule->Name))
      continue;
    for (OrderFinding &F :
         Rule == &Tcgen05OrderRule
             ? findTcgen05Order(Ctx, A.events(), RC.Roots)
             : findTensormapOrder(Ctx, A.events(), RC.Roots)) {
      SourceLocation At = F.At.At.S->getBeginLoc();
      if (!Editable(At))
        continue;
      Admit Verdict = admit(std::string(Rule->Name) + "|" + placeKey(SM, At) +
                                "|" + placeKey(SM, F.At.Loc) + "|" + F.Message,
                            At, Rule->Name);
      if (Verdict == Admit::Kept)
        OrderFindings.push_back(std::move(F));
      R.Suppressed += Verdict == Admit::Suppressed;
    }
  }
  std::stable_sort(OrderFindings.begin(), OrderFindings.end(),
                   [&SM](const OrderFinding &X, const OrderFinding &Y) {
                     auto Off = [&SM](const OrderFinding &F) {
                       return SM.getFileOffset(
                           SM.getExpansionLoc(F.At.At.S->getBeginLoc()));
                     };
                     return Off(X) < Off(Y);
                   });

  FixPlanner Planner(Ctx, Opts.Style, Editable);
  std::vector<PlannedFix> Fixes = Planner.plan(Findings);
  std::vector<InitFix> InitFixes = planInitFixes(Planner, M, InitFindings);
  for (size_t I = 0; I < Findings.size(); ++I)
    R.Sites.push_back(makeVerifySite(SM, Findings[I], Fixes[I].Ok));
  for (size_t I = 0; I < InitFindings.size(); ++I)
    addInitVerifySites(R.Sites, SM, InitFindings[I], InitFixes[I].Ok);
  llvm::raw_string_ostream OS(R.Report);
  R.Diags = reportFindings(Ctx, Findings, Fixes, Planner, OS, Colors);
  for (tooling::Diagnostic &D :
       reportInitFindings(Ctx, InitFindings, InitFixes, Planner, OS, Colors))
    R.Diags.push_back(std::move(D));
  for (tooling::Diagnostic &D :
       reportClobberFindings(Ctx, ClobberFindings, OS, Colors))
    R.Diags.push_back(std::move(D));
  std::vector<PlannedFix> OrderFixes = planOrderFixes(Planner, OrderFindings);
  for (tooling::Diagnostic &D : reportOrderFindings(
           Ctx, OrderFindings, OrderFixes, Planner, OS, Colors))
    R.Diags.push_back(std::move(D));
  for (const tooling::Diagnostic &D : R.Diags)
    R.Unfixable += D.Message.Fix.empty();
  // All edits at once: insertions at one point are joined in order.
  for (const InitFix &F : InitFixes)
    Fixes.insert(Fixes.end(), F.Edits.begin(), F.Edits.end());
  for (const PlannedFix &P : OrderFixes)
    if (P.Ok)
      Fixes.push_back(P);
  Planner.addReplacements(Fixes, R.Edits);
  for (const ClobberFinding &F : ClobberFindings)
    if (F.Fix)
      llvm::consumeError(R.Edits[F.Fix->getFilePath().str()].add(*F.Fix));
  for (const auto &[Path, Repls] : R.Edits) {
    (void)Repls;
    if (auto FE = SM.getFileManager().getOptionalFileRef(Path))
      if (auto Buf = SM.getMemoryBufferForFileOrNone(*FE))
        R.Originals[Path] = Buf->getBuffer().str();
  }
  return R;
}

} // namespace proxyfence
