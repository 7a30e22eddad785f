//===- Output.cpp - findings as clang diagnostics and fix files ------------===//
#include "report/Output.h"
#include "proxyfence/Rules.h"
#include "clang/AST/ASTContext.h"
#include "clang/Basic/DiagnosticOptions.h"
#include "clang/Frontend/TextDiagnosticPrinter.h"
#include "clang/Tooling/DiagnosticsYaml.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/YAMLTraits.h"
#include <algorithm>
#include <map>
#include <set>
#include <tuple>

using namespace clang;

namespace proxyfence {

static SourceLocation fileLoc(const SourceManager &SM, SourceLocation L) {
  return SM.getExpansionLoc(L);
}

static SourceLocation stmtLoc(const SourceManager &SM, StmtRef S) {
  return S ? fileLoc(SM, S.S->getBeginLoc()) : SourceLocation();
}

namespace {
/// Prints diagnostics in clang's format and records them as tooling
/// diagnostics for --export-fixes: a warning, then its notes and fixes.
class Reporter {
public:
  Reporter(ASTContext &Ctx, llvm::raw_ostream &OS, bool Colors)
      : SM(Ctx.getSourceManager()), DO(colored(Colors)), Printer(OS, DO),
        DE(new DiagnosticIDs(), DO, &Printer, false) {
    DE.setSourceManager(&SM);
    Printer.BeginSourceFile(Ctx.getLangOpts(), nullptr);
    WarnID = DE.getCustomDiagID(DiagnosticsEngine::Warning, "%0 [%1]");
    NoteID = DE.getCustomDiagID(DiagnosticsEngine::Note, "%0");
    if (auto CWD = SM.getFileManager()
                       .getVirtualFileSystem()
                       .getCurrentWorkingDirectory())
      BuildDir = *CWD;
  }

  void warning(SourceLocation L, const std::string &Msg, const char *Check) {
    DE.Report(L, WarnID) << Msg << Check;
    Out.emplace_back(Check, tooling::Diagnostic::Warning, BuildDir);
    Out.back().Message = tooling::DiagnosticMessage(Msg, SM, L);
  }

  void note(SourceLocation L, const std::string &Text) {
    if (L.isInvalid())
      return;
    DE.Report(L, NoteID) << Text;
    Out.back().Notes.push_back(
        tooling::DiagnosticMessage(Text, SM, fileLoc(SM, L)));
  }

  /// A note per edit (\p Texts), with its fix-it, and all the edits as the
  /// warning's fix.
  void fix(const std::vector<PlannedFix> &Edits,
           const std::vector<std::string> &Texts, FixPlanner &Planner) {
    std::map<std::string, tooling::Replacements> All;
    Planner.addReplacements(Edits, All);
    for (size_t I = 0; I < Edits.size(); ++I) {
      const PlannedFix &P = Edits[I];
      {
        auto Builder = DE.Report(P.At, NoteID);
        Builder << Texts[I];
        if (!P.NeedsBraces)
          for (const auto &[Path, Repls] : All)
            for (const tooling::Replacement &R : Repls)
              if (R.getOffset() == SM.getFileOffset(P.At) &&
                  Path == SM.getFilename(P.At))
                Builder << FixItHint::CreateInsertion(P.At,
                                                      R.getReplacementText());
      }
      Out.back().Notes.push_back(tooling::DiagnosticMessage(Texts[I], SM, P.At));
    }
    for (auto &[Path, Repls] : All)
      Out.back().Message.Fix[Path] = Repls;
  }

  /// A note with a fix-it that applies \p Rep, which is also the warning's
  /// fix.
  void replace(SourceLocation At, const std::string &Text,
               const tooling::Replacement &Rep) {
    DE.Report(At, NoteID) << Text
                          << FixItHint::CreateInsertion(
                                 SM.getComposedLoc(SM.getFileID(At),
                                                   Rep.getOffset()),
                                 Rep.getReplacementText());
    Out.back().Notes.push_back(tooling::DiagnosticMessage(Text, SM, At));
    llvm::consumeError(Out.back().Message.Fix[Rep.getFilePath()].add(Rep));
  }

  std::vector<tooling::Diagnostic> finish() {
    Printer.EndSourceFile();
    return std::move(Out);
  }

private:
  static DiagnosticOptions colored(bool Colors) {
    DiagnosticOptions O;
    O.ShowColors = Colors;
    return O;
  }

  SourceManager &SM;
  DiagnosticOptions DO;
  TextDiagnosticPrinter Printer;
  DiagnosticsEngine DE;
  unsigned WarnID = 0, NoteID = 0;
  std::string BuildDir;
  std::vector<tooling::Diagnostic> Out;
};
} // namespace

/// For a warning shown at the access: the async operation that completes
/// the hazard, in code this unit does not report, and how it is reached.
static void noteAsyncElsewhere(Reporter &R, const SourceManager &SM,
                               const Event &Async) {
  std::string What = std::string(asyncOpName(Async.Op)) + " issued here";
  if (const FunctionDecl *Via = shownVia(Async))
    What += ", inside '" + Via->getNameAsString() + "'";
  R.note(Async.Loc, What + ", in another role");
  if (StmtRef Shown = shownAt(Async); Shown && fileLoc(SM, Async.Loc) !=
                                                   stmtLoc(SM, Shown))
    R.note(stmtLoc(SM, Shown), "that role reaches it through this call");
}

std::vector<tooling::Diagnostic>
reportFindings(ASTContext &Ctx, const std::vector<Finding> &Findings,
               const std::vector<PlannedFix> &Fixes, FixPlanner &Planner,
               llvm::raw_ostream &OS, bool Colors) {
  SourceManager &SM = Ctx.getSourceManager();
  Reporter R(Ctx, OS, Colors);
  // One warning per async operation and rule, at the statement of the
  // analysed code that issues it (every instantiation, every barrier before
  // it, every asm statement a library call may take there: a `tma::copy`
  // choosing among 2D/3D and multicast forms): each access that reaches it,
  // each barrier and each fence point is a note.
  std::vector<std::vector<size_t>> Groups;
  std::map<std::pair<const Rule *, unsigned>, size_t> GroupOf;
  for (size_t I = 0; I < Findings.size(); ++I) {
    const Finding &F = Findings[I];
    auto Key = std::make_pair(F.R, stmtLoc(SM, primaryStmt(SM, F)).getRawEncoding());
    auto [It, New] = GroupOf.try_emplace(Key, Groups.size());
    if (New)
      Groups.emplace_back();
    Groups[It->second].push_back(I);
  }

  constexpr size_t MaxAccessNotes = 8;
  for (const std::vector<size_t> &G : Groups) {
    const Finding &F = Findings[G.front()];
    Event Merged = F.Access;
    for (size_t I : G)
      Merged.Mem.merge(Findings[I].Access.Mem);
    std::string Msg = F.R->Message(Merged, F.Async);
    StmtRef Warned = primaryStmt(SM, F);
    SourceLocation WarnLoc = stmtLoc(SM, Warned);
    R.warning(WarnLoc, Msg, F.R->Name);
    auto note = [&](SourceLocation L, const std::string &Text) {
      R.note(L, Text);
    };
    if (F.ShownAtAccess)
      noteAsyncElsewhere(R, SM, F.Async);
    // Shown inside a lambda: where it is called, and from where.
    else if (Warned.S != shownAt(F.Async).S) {
      std::set<unsigned> CallSeen;
      for (size_t I : G)
        if (const Event &A = Findings[I].Async;
            A.LambdaCall &&
            CallSeen.insert(stmtLoc(SM, A.LambdaCall).getRawEncoding()).second)
          note(stmtLoc(SM, A.LambdaCall), "inside the lambda called here");
      if (F.Async.LambdaCall.S != shownAt(F.Async).S)
        note(stmtLoc(SM, shownAt(F.Async)), "reached through this call");
    }
    // Shown inside a callee: the call where both ends meet, with its
    // arguments (the shared memory it passes, the roles it joins).
    if (!F.ShownAtAccess && shownAt(F.Async).S != F.Async.At.S)
      note(stmtLoc(SM, F.Async.At),
           "both sides meet through this call, with its arguments");
    std::set<unsigned> IssuedSeen;
    for (size_t I : G) {
      if (F.ShownAtAccess)
        break;
      const Event &A = Findings[I].Async;
      // Not where the warning already points (a lambda's own statement).
      if (const FunctionDecl *Via = shownVia(A);
          Via && fileLoc(SM, A.Loc) != WarnLoc &&
          IssuedSeen.insert(fileLoc(SM, A.Loc).getRawEncoding()).second)
        note(A.Loc, std::string(asyncOpName(A.Op)) + " issued here, inside '" +
                        Via->getNameAsString() + "'");
    }
    // The same access seen through two instantiations is one note.
    std::set<std::tuple<unsigned, unsigned, int>> AccessSeen;
    std::set<unsigned> HandoffSeen, FixSeen;
    std::vector<std::pair<const Finding *, bool>> Handoffs; // fenced there?
    std::vector<PlannedFix> GroupFixes;
    size_t Notes = 0, Hidden = 0;
    for (size_t I : G) {
      const Finding &X = Findings[I];
      const PlannedFix &P = Fixes[I];
      if (X.Handoff &&
          HandoffSeen.insert(stmtLoc(SM, X.Handoff).getRawEncoding()).second)
        Handoffs.push_back({&X, !P.AtAsync});
      if (P.Ok && FixSeen.insert(P.At.getRawEncoding()).second)
        GroupFixes.push_back(P);
      const Event &Acc = X.Access;
      if (!AccessSeen
               .insert({fileLoc(SM, Acc.Loc).getRawEncoding(),
                        stmtLoc(SM, shownAt(Acc)).getRawEncoding(),
                        int(Acc.Kind)})
               .second)
        continue;
      if (Notes == MaxAccessNotes) {
        ++Hidden;
        continue;
      }
      ++Notes;
      std::string Kind =
          Acc.Kind == EffectKind::GenericWrite ? "write" : "read";
      std::string Detail =
          Acc.What == "store" || Acc.What == "load" ? "" : " (" + Acc.What + ")";
      note(Acc.Loc, "generic-proxy " + Kind +
                        (Acc.Kind == EffectKind::GenericWrite ? " to " : " of ") +
                        Acc.Mem.describe() +
                        " here" + Detail);
      if (const FunctionDecl *Via = shownVia(Acc))
        note(stmtLoc(SM, shownAt(Acc)),
             "inside '" + Via->getNameAsString() + "', called here");
    }
    if (Hidden)
      note(WarnLoc, "and " + std::to_string(Hidden) +
                        " more generic-proxy accesses");
    for (auto [H, FenceHere] : Handoffs)
      note(stmtLoc(SM, H->Handoff),
           FenceHere ? "this barrier orders threads, not proxies; insert the "
                       "fence before it"
                     : "this barrier orders threads, not proxies");
    if (!GroupFixes.empty()) {
      std::vector<std::string> Texts;
      for (const PlannedFix &P : GroupFixes)
        Texts.push_back(P.Hoisted ? "insert '" + P.FenceText +
                                        "' here, before the loop: no write "
                                        "happens inside it"
                                  : "insert '" + P.FenceText + "' here");
      R.fix(GroupFixes, Texts, Planner);
    } else {
      note(WarnLoc, "no automatic fix: " + Fixes[G.front()].Reason);
    }
  }
  return R.finish();
}

/// A note at an event; inside a callee: where it is written, then the call.
static void noteEvent(Reporter &R, const SourceManager &SM, const Event &E,
                      const std::string &Text) {
  if (!E.Via) {
    R.note(E.Loc, Text);
    return;
  }
  R.note(E.Loc, Text + ", inside '" + E.Via->getNameAsString() + "'");
  R.note(stmtLoc(SM, E.At),
         "inside '" + E.Via->getNameAsString() + "', called here");
}

std::vector<tooling::Diagnostic>
reportInitFindings(ASTContext &Ctx, const std::vector<InitFinding> &Findings,
                   const std::vector<InitFix> &Fixes, FixPlanner &Planner,
                   llvm::raw_ostream &OS, bool Colors) {
  SourceManager &SM = Ctx.getSourceManager();
  Reporter R(Ctx, OS, Colors);
  auto noteAt = [&](const Event &E, const std::string &Text) {
    noteEvent(R, SM, E, Text);
  };
  constexpr size_t MaxUseNotes = 8;
  for (size_t I = 0; I < Findings.size(); ++I) {
    const InitFinding &F = Findings[I];
    const InitFix &Fix = Fixes[I];
    SourceLocation WarnLoc = stmtLoc(SM, F.Init.At);
    R.warning(WarnLoc, initFindingMessage(F), MbarrierInitRule.Name);
    // The warning is at the init itself unless a callee performs it.
    if (F.Init.Via)
      R.note(F.Init.Loc, "mbarrier initialised here, inside '" +
                             F.Init.Via->getNameAsString() + "'");
    if (F.Relaxed)
      noteAt(*F.Relaxed, "this cluster barrier is relaxed: it publishes the "
                         "initialisation only after "
                         "fence.mbarrier_init.release.cluster");
    for (size_t K = 0; K < F.Uses.size() && K < MaxUseNotes; ++K)
      noteAt(F.Uses[K], initUseNote(F, F.Uses[K]));
    if (F.Uses.size() > MaxUseNotes)
      R.note(WarnLoc, "and " + std::to_string(F.Uses.size() - MaxUseNotes) +
                          " more uses");
    if (!Fix.Ok) {
      R.note(WarnLoc, "no automatic fix: " + Fix.Reason);
      continue;
    }
    std::vector<std::string> Texts;
    for (const PlannedFix &P : Fix.Edits) {
      std::string Text = P.FenceText;
      std::replace(Text.begin(), Text.end(), '\n', ' ');
      Texts.push_back("insert '" + Text + "' here");
    }
    R.fix(Fix.Edits, Texts, Planner);
  }
  return R.finish();
}

std::vector<tooling::Diagnostic>
reportClobberFindings(ASTContext &Ctx, const std::vector<ClobberFinding> &Findings,
                      llvm::raw_ostream &OS, bool Colors) {
  SourceManager &SM = Ctx.getSourceManager();
  Reporter R(Ctx, OS, Colors);
  constexpr size_t MaxCallNotes = 8;
  for (const ClobberFinding &F : Findings) {
    SourceLocation At = fileLoc(SM, F.Asm->getBeginLoc());
    R.warning(At, clobberMessage(F), FenceClobberRule.Name);
    if (F.Fix)
      R.replace(At, "add the \"memory\" clobber", *F.Fix);
    else
      R.note(At, "no automatic fix: " + F.NoFixReason);
    std::string Name = F.Wrapper->getNameAsString();
    for (size_t K = 0; K < F.Calls.size() && K < MaxCallNotes; ++K)
      R.note(fileLoc(SM, F.Calls[K]->getBeginLoc()),
             "'" + Name + "' called here: its fence orders only the stores "
             "the compiler keeps before it");
    if (F.Calls.size() > MaxCallNotes)
      R.note(At, "and " + std::to_string(F.Calls.size() - MaxCallNotes) +
                     " more calls of '" + Name + "'");
  }
  return R.finish();
}

std::vector<tooling::Diagnostic>
reportOrderFindings(ASTContext &Ctx, const std::vector<OrderFinding> &Findings,
                    const std::vector<PlannedFix> &Fixes, FixPlanner &Planner,
                    llvm::raw_ostream &OS, bool Colors) {
  SourceManager &SM = Ctx.getSourceManager();
  Reporter R(Ctx, OS, Colors);
  auto noteAt = [&](const Event &E, const std::string &Text) {
    noteEvent(R, SM, E, Text);
  };
  for (size_t I = 0; I < Findings.size(); ++I) {
    const OrderFinding &F = Findings[I];
    SourceLocation WarnLoc = stmtLoc(SM, F.At.At);
    R.warning(WarnLoc, F.Message, F.Rule->Name);
    if (F.At.Via)
      R.note(F.At.Loc, F.At.What + " here, inside '" +
                           F.At.Via->getNameAsString() + "'");
    for (const auto &[E, Text] : F.Notes)
      noteAt(E, Text);
    const PlannedFix &P = Fixes[I];
    if (!P.Ok) {
      R.note(WarnLoc, "no automatic fix: " + P.Reason);
      continue;
    }
    std::string Text = P.FenceText;
    std::replace(Text.begin(), Text.end(), '\n', ' ');
    R.fix({P}, {"insert '" + Text + "' here"}, Planner);
  }
  return R.finish();
}

llvm::Error exportFixes(llvm::StringRef Path,
                        const tooling::TranslationUnitDiagnostics &TUD) {
  std::error_code EC;
  llvm::raw_fd_ostream OS(Path, EC, llvm::sys::fs::OF_TextWithCRLF);
  if (EC)
    return llvm::createStringError(EC, "cannot write '%s': %s",
                                   Path.str().c_str(), EC.message().c_str());
  llvm::yaml::Output YAML(OS);
  tooling::TranslationUnitDiagnostics Copy = TUD;
  YAML << Copy;
  return llvm::Error::success();
}

} // namespace proxyfence
