//===- TranslationUnit.cpp - every rule over one parsed translation unit ---===//
#include "proxyfence/TranslationUnit.h"
#include "analysis/ProxyDataflow.h"
#include "rules/FenceClobber.h"
#include "rules/MbarrierInit.h"
#include "report/Output.h"
#include "report/ProjectCodeVisitor.h"
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

/// Across input files (a header analysed through each file that
/// instantiates it) the async operation counts where it is shown: two
/// instantiations of one call that reach different wgmma shapes are one
/// finding. Within a file they are one warning anyway, each form a note.
std::string crossFileKey(const SourceManager &SM, const Finding &F) {
  auto loc = [&SM](SourceLocation L) { return placeKey(SM, L); };
  return std::string(F.R->Name) + "|" + loc(F.Async.At.S->getBeginLoc()) +
         "|" + loc(F.Access.At.S->getBeginLoc()) + "|" + loc(F.Access.Loc) +
         "|" + std::to_string(int(F.Access.Kind)) + "|" +
         (F.Handoff ? loc(F.Handoff.S->getBeginLoc()) : "-");
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
class RootCollector : public ProjectCodeVisitor<RootCollector> {
public:
  RootCollector(SourceManager &SM, std::function<bool(SourceLocation)> Editable,
                std::function<bool(SourceLocation)> PatternScope)
      : ProjectCodeVisitor(SM), Editable(std::move(Editable)),
        PatternScope(std::move(PatternScope)) {}
  std::vector<const FunctionDecl *> Roots;

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
    for (const FunctionDecl *P : Patterns) {
      bool Instantiation = Instantiated.count(P);
      if (!Instantiation)
        Uninstantiated.push_back(P);
      if (Every || !Instantiation)
        Roots.push_back(P);
    }
    return Uninstantiated.size();
  }
  /// Device function templates of the file, instantiated or not.
  unsigned templates() const { return Patterns.size(); }
  /// How many of \p Calls lie in the bodies of templates nothing
  /// instantiates.
  unsigned callsInUninstantiated(
      const llvm::DenseSet<const clang::Stmt *> &Calls) const {
    unsigned N = 0;
    for (const Stmt *C : Calls) {
      SourceLocation L = SM.getExpansionLoc(C->getBeginLoc());
      N += llvm::any_of(Uninstantiated, [&](const FunctionDecl *P) {
        SourceRange B = P->getBody()->getSourceRange();
        return SM.isPointWithin(L, SM.getExpansionLoc(B.getBegin()),
                                SM.getExpansionLoc(B.getEnd()));
      });
    }
    return N;
  }

private:
  std::function<bool(SourceLocation)> Editable;
  std::function<bool(SourceLocation)> PatternScope;
  std::vector<const FunctionDecl *> Patterns, Uninstantiated;
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
        Filter(Opts.HeaderFilter), Project(mainFile(SM), Opts.CudaPath, Opts.IncludeDirs,
                Opts.DatabaseDir) {}

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

/// Declarations written in the main file that clang accepted.
unsigned validMainFileDecls(ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  unsigned Valid = 0;
  for (const Decl *D : Ctx.getTranslationUnitDecl()->decls())
    if (!D->isImplicit() && !D->isInvalidDecl() &&
        SM.isWrittenInMainFile(SM.getExpansionLoc(D->getLocation())))
      ++Valid;
  return Valid;
}

/// What one unit may report and edit: the main file and the headers the
/// header filter selects or, for a header analysed in an entry that
/// includes it, that header only.
class UnitScope {
public:
  UnitScope(const AnalysisOptions &Opts, SourceManager &SM)
      : SM(SM), Headers(Opts, SM) {
    if (!Opts.FocusHeader.empty()) {
      Focus = FileID();
      if (auto FE = SM.getFileManager().getOptionalFileRef(Opts.FocusHeader))
        Focus = SM.translateFile(*FE);
    }
  }
  UnitScope(const UnitScope &) = delete; // Editable points at this one
  UnitScope &operator=(const UnitScope &) = delete;

  bool focused() const { return Focus.has_value(); }
  /// A header in focus that the parse never entered.
  bool focusNotIncluded() const { return Focus && Focus->isInvalid(); }
  bool inFocus(SourceLocation L) const {
    return Focus ? SM.getFileID(L) == *Focus : SM.isWrittenInMainFile(L);
  }
  bool editable(SourceLocation L) const {
    L = SM.getExpansionLoc(L);
    if (L.isInvalid())
      return false;
    if (Focus)
      return inFocus(L);
    return inProject(L);
  }
  /// The main file or a header the filter selects (the project's, by
  /// default): editable when no header is in focus.
  bool inProject(SourceLocation L) const {
    L = SM.getExpansionLoc(L);
    if (L.isInvalid() || SM.isInSystemHeader(L))
      return false;
    return SM.isWrittenInMainFile(L) || Headers.selects(SM, L);
  }

private:
  SourceManager &SM;
  HeaderFilter Headers;
  std::optional<FileID> Focus;

public:
  /// editable(), for the interfaces that take a callback.
  const std::function<bool(SourceLocation)> Editable =
      [this](SourceLocation L) { return editable(L); };
};

/// Every rule family's findings of one unit, admitted and in source order.
struct UnitFindings {
  std::vector<Finding> Proxy;
  std::vector<InitFinding> Init;
  std::vector<ClobberFinding> Clobber;
  std::vector<OrderFinding> Order;
};

enum class Admit { Repeat, Suppressed, Kept };

/// Collects each rule family's findings through one admission: once per
/// place in the source (not again for another instantiation, nor for a
/// header an earlier input already reported); a suppressed one is neither
/// reported nor fixed, but counted. Keys are recorded in collection order.
class FindingCollector {
public:
  FindingCollector(ASTContext &Ctx, const AnalysisOptions &Opts,
                   const UnitScope &Scope,
                   const std::set<std::string> &Reported,
                   const std::vector<const FunctionDecl *> &Roots,
                   TranslationUnitResult &R)
      : Ctx(Ctx), SM(Ctx.getSourceManager()), Opts(Opts), Scope(Scope),
        Reported(Reported), Roots(Roots), RootSet(Roots.begin(), Roots.end()),
        R(R), Suppressed(SM) {}

  std::vector<Finding> proxyFindings(Analyzer &A) {
    std::vector<Finding> Findings, AtAccess;
    std::set<std::tuple<const Rule *, const Stmt *, unsigned, const Stmt *>>
        SuppressedWarnings;
    for (Finding F : A.findings()) {
      if (calleeOnlyPattern(F.Async.At.Fn))
        continue;
      // Found in a library entry (`cutlass::device_kernel<Op>`) but made of
      // this file's statements: reported where they are.
      if (!editable(F.Async.At.S->getBeginLoc()) && F.Async.Origin &&
          editable(F.Async.Origin.S->getBeginLoc()) && F.Access.Origin &&
          editable(F.Access.Origin.S->getBeginLoc())) {
        F.Async.At = F.Async.Origin;
        F.Async.Via = F.Async.OriginVia;
        F.Access.At = F.Access.Origin;
        F.Access.Via = F.Access.OriginVia;
      }
      showInScope(F.Async);
      showInScope(F.Access);
      if (editable(F.Async.At.S->getBeginLoc())) {
        admitProxy(F, Findings, SuppressedWarnings);
      } else if (fixedAtAccess(F)) {
        F.ShownAtAccess = true;
        AtAccess.push_back(F);
      } else {
        unreported(F.Async.At.S->getBeginLoc(),
                   std::string(F.R->Name) + "|" +
                       placeKey(SM, F.Async.At.S->getBeginLoc()) + "|" +
                       placeKey(SM, F.Async.Loc));
      }
    }
    // At the access only where no warning at an async operation of this
    // unit already names the same access and hand-off.
    std::set<std::tuple<const Rule *, unsigned, const Stmt *>> Named;
    for (const Finding &F : Findings)
      Named.insert({F.R, F.Access.Loc.getRawEncoding(), F.Handoff.S});
    for (const Finding &F : AtAccess)
      if (!Named.count({F.R, F.Access.Loc.getRawEncoding(), F.Handoff.S}))
        admitProxy(F, Findings, SuppressedWarnings);
    R.Suppressed = SuppressedWarnings.size();
    auto Key = [this](const Finding &F) {
      return std::make_tuple(
          SM.getFileOffset(SM.getExpansionLoc(F.Async.At.S->getBeginLoc())),
          SM.getFileOffset(SM.getExpansionLoc(F.Access.Loc)));
    };
    std::stable_sort(Findings.begin(), Findings.end(),
                     [&](const Finding &X, const Finding &Y) {
                       return Key(X) < Key(Y);
                     });
    return Findings;
  }

  /// proxyfence-mbarrier-init: its own dataflow over the same events.
  std::vector<InitFinding> initFindings(MbarrierAnalyzer &M) {
    std::vector<InitFinding> InitFindings;
    if (llvm::is_contained(Opts.DisabledRules, MbarrierInitRule.Name))
      return InitFindings;
    // A helper is judged in its callers' context (their block size, their
    // barriers around the call), as their summaries see it.
    for (const FunctionDecl *FD : entryRoots(Roots))
      M.analyze(FD);
    for (const InitFinding &F : M.findings()) {
      if (calleeOnlyPattern(F.Init.At.Fn))
        continue;
      if (!editable(F.Init.At.S->getBeginLoc())) {
        unreported(F.Init.At.S->getBeginLoc(), initFindingKey(SM, F));
        continue;
      }
      Admit Verdict = admit(initFindingKey(SM, F), F.Init.At.S->getBeginLoc(),
                            MbarrierInitRule.Name);
      if (Verdict == Admit::Kept)
        InitFindings.push_back(F);
      R.Suppressed += Verdict == Admit::Suppressed;
    }
    std::stable_sort(InitFindings.begin(), InitFindings.end(),
                     [this](const InitFinding &X, const InitFinding &Y) {
                       auto Off = [this](const InitFinding &F) {
                         return SM.getFileOffset(SM.getExpansionLoc(
                             F.Init.At.S->getBeginLoc()));
                       };
                       return Off(X) < Off(Y);
                     });
    return InitFindings;
  }

  /// One proxy finding through the shared admission: kept (once), or
  /// counted as suppressed once per warning, as reportFindings groups them.
  void admitProxy(
      const Finding &F, std::vector<Finding> &Findings,
      std::set<std::tuple<const Rule *, const Stmt *, unsigned, const Stmt *>>
          &SuppressedWarnings) {
    // Suppressed where it is shown too (inside a lambda, see warningAt).
    SourceLocation Shown = primaryStmt(SM, F).S->getBeginLoc();
    Admit Verdict =
        admit(findingKey(SM, F),
              F.ShownAtAccess ? Shown : F.Async.At.S->getBeginLoc(),
              F.R->Name, Shown, crossFileKey(SM, F));
    if (Verdict == Admit::Kept) {
      Findings.push_back(F);
      // A role function in library code: shown at the call here instead.
      for (Event *E : {&Findings.back().Access, &Findings.back().Async})
        if (E->Origin && !editable(E->Origin.S->getBeginLoc()))
          E->Origin = StmtRef();
    } else if (Verdict == Admit::Suppressed) {
      SuppressedWarnings.insert(std::make_tuple(
          F.R, F.Async.At.S, F.Async.Loc.getRawEncoding(), F.Handoff.S));
    }
  }

  /// A write-after-read (or -write) whose async load is in code this unit
  /// does not report, while the access and the barrier its role crosses
  /// are in code it does: reported at the access, where the writers' fence
  /// goes (a header's epilogue reading a buffer that another file's
  /// producer refills).
  bool fixedAtAccess(const Finding &F) const {
    return F.R == &AsyncOverwriteRule && F.Handoff &&
           editable(F.Handoff.S->getBeginLoc()) &&
           editable(shownAt(F.Access).S->getBeginLoc());
  }

  /// \p E, shown outside what this unit reports (for a header, the kernel
  /// of another file that calls into it) but performed through a statement
  /// inside it: shown at the outermost such statement, as if the function
  /// holding it had been analysed on its own.
  void showInScope(Event &E) {
    StmtRef Shown = shownAt(E);
    if (!Shown || editable(Shown.S->getBeginLoc()))
      return;
    for (const CallFrame *C = E.Origin ? E.OriginInside : E.Inside; C;
         C = C->Inner)
      if (editable(C->At.S->getBeginLoc())) {
        E.At = C->At;
        E.Via = C->Via;
        E.Inside = C->Inner;
        E.Origin = StmtRef();
        E.OriginVia = nullptr;
        E.OriginInside = nullptr;
        return;
      }
  }

  /// Hazards inside library code (outside the project, not selected by
  /// --header-filter): counted once per async operation, not reported.
  unsigned inLibrary() const { return InLibrary.size(); }
  /// With a header in focus: hazards in the project's other files of the
  /// unit (the source that includes it), counted apart from library code.
  unsigned outsideFocus() const { return OutsideFocus.size(); }

  /// proxyfence-fence-clobber: fence wrappers the compiler may reorder.
  std::vector<ClobberFinding> clobberFindings(Analyzer &A) {
    std::vector<ClobberFinding> ClobberFindings;
    if (llvm::is_contained(Opts.DisabledRules, FenceClobberRule.Name))
      return ClobberFindings;
    for (ClobberFinding &F :
         findClobberlessFences(Ctx, A.memory(), Roots, Scope.Editable)) {
      Admit Verdict = admit(std::string(FenceClobberRule.Name) + "|" +
                                placeKey(SM, F.Asm->getBeginLoc()),
                            F.Asm->getBeginLoc(), FenceClobberRule.Name);
      if (Verdict == Admit::Kept)
        ClobberFindings.push_back(std::move(F));
      R.Suppressed += Verdict == Admit::Suppressed;
    }
    return ClobberFindings;
  }

  /// proxyfence-tcgen05-order and proxyfence-tensormap.
  std::vector<OrderFinding> orderFindings(Analyzer &A) {
    std::vector<OrderFinding> OrderFindings;
    for (const StandaloneRule *Rule : {&Tcgen05OrderRule, &TensormapRule}) {
      if (llvm::is_contained(Opts.DisabledRules, Rule->Name))
        continue;
      for (OrderFinding &F :
           Rule == &Tcgen05OrderRule
               ? findTcgen05Order(Ctx, A.events(), Roots)
               : findTensormapOrder(Ctx, A.events(), Roots)) {
        SourceLocation At = F.At.At.S->getBeginLoc();
        if (!editable(At))
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
                     [this](const OrderFinding &X, const OrderFinding &Y) {
                       auto Off = [this](const OrderFinding &F) {
                         return SM.getFileOffset(
                             SM.getExpansionLoc(F.At.At.S->getBeginLoc()));
                       };
                       return Off(X) < Off(Y);
                     });
    return OrderFindings;
  }

private:
  bool editable(SourceLocation L) const { return Scope.editable(L); }

  /// \p AcrossFiles: the key earlier input files reported it under, when
  /// coarser than \p Key (which tells this file's findings apart).
  Admit admit(std::string Key, SourceLocation At, llvm::StringRef Rule,
              SourceLocation AlsoShownAt = SourceLocation(),
              std::string AcrossFiles = std::string()) {
    if (AcrossFiles.empty())
      AcrossFiles = Key;
    if (Reported.count(AcrossFiles)) {
      R.SkippedKeys.push_back(std::move(AcrossFiles));
      return Admit::Repeat;
    }
    if (!Keys.insert(Key).second)
      return Admit::Repeat;
    if (CrossFileKeys.insert(AcrossFiles).second)
      R.Keys.push_back(std::move(AcrossFiles));
    bool Off = Suppressed.at(At, Rule) ||
               (AlsoShownAt.isValid() && Suppressed.at(AlsoShownAt, Rule));
    return Off ? Admit::Suppressed : Admit::Kept;
  }

  /// A template pattern analysed only for a caller's summary (a library
  /// helper the file calls) reports nothing itself: its parameters are
  /// resolved where it is called.
  bool calleeOnlyPattern(const FunctionDecl *Fn) const {
    return Fn && Fn->isDependentContext() && !RootSet.count(Fn);
  }

  ASTContext &Ctx;
  SourceManager &SM;
  const AnalysisOptions &Opts;
  const UnitScope &Scope;
  const std::set<std::string> &Reported;
  const std::vector<const FunctionDecl *> &Roots;
  llvm::DenseSet<const FunctionDecl *> RootSet;
  TranslationUnitResult &R;
  Suppressions Suppressed;
  std::set<std::string> Keys, CrossFileKeys;
  std::set<std::string> InLibrary, OutsideFocus;
  void unreported(SourceLocation At, std::string Key) {
    (Scope.focused() && Scope.inProject(At) ? OutsideFocus : InLibrary)
        .insert(std::move(Key));
  }
};

/// Plans the fixes of \p F, reports them family by family (the report text
/// and the diagnostics) and records the edits with the texts they apply to.
void reportAndPlanFixes(ASTContext &Ctx, const AnalysisOptions &Opts,
                        const UnitScope &Scope, MbarrierAnalyzer &M,
                        const UnitFindings &F, bool Colors,
                        TranslationUnitResult &R) {
  SourceManager &SM = Ctx.getSourceManager();
  FixPlanner Planner(Ctx, Opts.Style, Scope.Editable);
  std::vector<PlannedFix> Fixes = Planner.plan(F.Proxy);
  std::vector<InitFix> InitFixes = planInitFixes(Planner, M, F.Init);
  for (size_t I = 0; I < F.Proxy.size(); ++I)
    R.Sites.push_back(makeVerifySite(SM, F.Proxy[I], Fixes[I].Ok));
  for (size_t I = 0; I < F.Init.size(); ++I)
    addInitVerifySites(R.Sites, SM, F.Init[I], InitFixes[I].Ok);
  llvm::raw_string_ostream OS(R.Report);
  R.Diags = reportFindings(Ctx, F.Proxy, Fixes, Planner, OS, Colors);
  for (tooling::Diagnostic &D :
       reportInitFindings(Ctx, F.Init, InitFixes, Planner, OS, Colors))
    R.Diags.push_back(std::move(D));
  for (tooling::Diagnostic &D :
       reportClobberFindings(Ctx, F.Clobber, OS, Colors))
    R.Diags.push_back(std::move(D));
  std::vector<PlannedFix> OrderFixes = planOrderFixes(Planner, F.Order);
  for (tooling::Diagnostic &D : reportOrderFindings(
           Ctx, F.Order, OrderFixes, Planner, OS, Colors))
    R.Diags.push_back(std::move(D));
  for (const tooling::Diagnostic &D : R.Diags)
    R.Unfixable += D.Message.Fix.empty();
  // All edits at once: insertions at one point are joined in order.
  for (const InitFix &IF : InitFixes)
    Fixes.insert(Fixes.end(), IF.Edits.begin(), IF.Edits.end());
  for (const PlannedFix &P : OrderFixes)
    if (P.Ok)
      Fixes.push_back(P);
  Planner.addReplacements(Fixes, R.Edits);
  for (const ClobberFinding &C : F.Clobber)
    if (C.Fix)
      llvm::consumeError(R.Edits[C.Fix->getFilePath().str()].add(*C.Fix));
  for (const auto &[Path, Repls] : R.Edits) {
    (void)Repls;
    if (auto FE = SM.getFileManager().getOptionalFileRef(Path))
      if (auto Buf = SM.getMemoryBufferForFileOrNone(*FE))
        R.Originals[Path] = Buf->getBuffer().str();
  }
}

/// --trace's target, in the file in focus when none is named.
std::optional<Trace> traceOf(const AnalysisOptions &Opts,
                             const SourceManager &SM) {
  TraceTarget T;
  std::string Why; // the driver has checked the value already
  if (Opts.Trace.empty() || !TraceTarget::parse(Opts.Trace, T, Why))
    return std::nullopt;
  T.Focus = Opts.FocusHeader;
  return std::optional<Trace>(std::in_place, SM, std::move(T));
}

/// The trace's lines, or the one line saying that nothing there was seen.
std::vector<std::string> traceLines(const Trace &T) {
  if (!T.empty())
    return T.lines();
  return {"proxyfence: trace: line " + std::to_string(T.target().Line) +
          (T.target().File.empty() ? "" : " of " + T.target().File) +
          ": no async-proxy operation or mbarrier init there was analysed "
          "(not device code, a template nothing instantiates, or code the "
          "front end dropped: see --stats)"};
}

} // namespace

TranslationUnitResult
analyzeTranslationUnit(ASTContext &Ctx, const AnalysisOptions &Opts,
                       const std::set<std::string> &Reported, bool Colors,
                       llvm::ArrayRef<SourceLocation> Errors) {
  TranslationUnitResult R;
  SourceManager &SM = Ctx.getSourceManager();
  R.ValidDecls = validMainFileDecls(Ctx);
  UnitScope Scope(Opts, SM);
  R.FocusNotIncluded = Scope.focusNotIncluded();

  std::vector<const Rule *> Rules;
  for (const Rule *Ru : proxyRules())
    if (llvm::find(Opts.DisabledRules, Ru->Name) == Opts.DisabledRules.end())
      Rules.push_back(Ru);

  // Patterns of the file named, not of every library header it includes.
  auto PatternScope = [&Scope](SourceLocation L) { return Scope.inFocus(L); };
  RootCollector RC(SM, Scope.Editable, PatternScope);
  RC.TraverseDecl(Ctx.getTranslationUnitDecl());
  // A header analysed in a file that instantiates it: as instantiated
  // there, and as written too, for what those instantiations do not reach
  // (a configuration the file does not use, roles its runtime barrier ids
  // do not pair); a finding seen both ways is reported once.
  R.PatternsOnly = RC.addPatterns(/*Every=*/Scope.focused());
  Analyzer A(Ctx, Rules);
  A.events().setUserVocabulary(&Opts.Vocabulary);
  std::optional<Trace> Tracer = traceOf(Opts, SM);
  if (Tracer)
    A.setTrace(&*Tracer);
  for (const FunctionDecl *FD : RC.Roots)
    A.analyze(FD);
  A.pairSiblingRoles(RC.Roots);
  A.reportUncalledRoots(RC.Roots);
  R.Blind = findBlindSpots(Ctx, Scope.Editable, Errors);

  // One admission for every family, in this order: the keys are recorded
  // as the families are collected.
  FindingCollector Collect(Ctx, Opts, Scope, Reported, RC.Roots, R);
  UnitFindings F;
  F.Proxy = Collect.proxyFindings(A);
  MbarrierAnalyzer M(Ctx, A.events(), Opts.RequireInitProxyFence);
  if (Tracer)
    M.setTrace(&*Tracer);
  F.Init = Collect.initFindings(M);
  R.InLibrary = Collect.inLibrary();
  R.OutsideFocus = Collect.outsideFocus();
  // Both analyses' unresolved template calls are in the stats.
  R.Stats = A.stats();
  R.Templates = RC.templates();
  R.PatternCalls =
      RC.callsInUninstantiated(A.events().unresolvedStatements());
  if (!Opts.HeaderContextNote.empty())
    R.Stats.HeaderContexts.push_back(Opts.HeaderContextNote);
  F.Clobber = Collect.clobberFindings(A);
  F.Order = Collect.orderFindings(A);

  reportAndPlanFixes(Ctx, Opts, Scope, M, F, Colors, R);
  if (Tracer)
    R.TraceLines = traceLines(*Tracer);
  return R;
}

} // namespace proxyfence
