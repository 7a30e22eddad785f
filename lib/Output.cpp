//===- Output.cpp - findings as clang diagnostics and fix files ------------===//
#include "proxyfence/Output.h"
#include "clang/AST/ASTContext.h"
#include "clang/Basic/DiagnosticOptions.h"
#include "clang/Frontend/TextDiagnosticPrinter.h"
#include "clang/Tooling/DiagnosticsYaml.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/YAMLTraits.h"
#include <map>
#include <tuple>

using namespace clang;

namespace proxyfence {

static SourceLocation fileLoc(const SourceManager &SM, SourceLocation L) {
  return SM.getExpansionLoc(L);
}

static SourceLocation stmtLoc(const SourceManager &SM, StmtRef S) {
  return S ? fileLoc(SM, S.S->getBeginLoc()) : SourceLocation();
}

std::vector<tooling::Diagnostic>
reportFindings(ASTContext &Ctx, const std::vector<Finding> &Findings,
               const std::vector<PlannedFix> &Fixes, FixPlanner &Planner,
               llvm::raw_ostream &OS, bool Colors) {
  SourceManager &SM = Ctx.getSourceManager();
  DiagnosticOptions DO;
  DO.ShowColors = Colors;
  TextDiagnosticPrinter Printer(OS, DO);
  DiagnosticsEngine DE(new DiagnosticIDs(), DO, &Printer, false);
  DE.setSourceManager(&SM);
  Printer.BeginSourceFile(Ctx.getLangOpts(), nullptr);
  unsigned WarnID = DE.getCustomDiagID(DiagnosticsEngine::Warning, "%0 [%1]");
  unsigned NoteID = DE.getCustomDiagID(DiagnosticsEngine::Note, "%0");

  std::vector<tooling::Diagnostic> Out;
  std::string BuildDir;
  if (auto CWD = SM.getFileManager().getVirtualFileSystem().getCurrentWorkingDirectory())
    BuildDir = *CWD;
  // One warning per async operation and fence point; each write that
  // reaches it is a note.
  std::vector<std::vector<size_t>> Groups;
  std::map<std::tuple<const Rule *, const Stmt *, unsigned, const Stmt *>,
           size_t>
      GroupOf;
  for (size_t I = 0; I < Findings.size(); ++I) {
    const Finding &F = Findings[I];
    auto Key = std::make_tuple(F.R, F.Async.At.S, F.Async.Loc.getRawEncoding(),
                               F.Handoff.S);
    auto [It, New] = GroupOf.try_emplace(Key, Groups.size());
    if (New)
      Groups.emplace_back();
    Groups[It->second].push_back(I);
  }

  constexpr size_t MaxAccessNotes = 8;
  for (const std::vector<size_t> &G : Groups) {
    const Finding &F = Findings[G.front()];
    const PlannedFix &P = Fixes[G.front()];
    Event Merged = F.Access;
    for (size_t I : G)
      Merged.Mem.merge(Findings[I].Access.Mem);
    std::string Msg = F.R->Message(Merged, F.Async);
    SourceLocation WarnLoc = stmtLoc(SM, F.Async.At);
    DE.Report(WarnLoc, WarnID) << Msg << F.R->Name;
    tooling::Diagnostic TD(F.R->Name, tooling::Diagnostic::Warning, BuildDir);
    TD.Message = tooling::DiagnosticMessage(Msg, SM, WarnLoc);

    auto note = [&](SourceLocation L, const std::string &Text) {
      if (L.isInvalid())
        return;
      DE.Report(L, NoteID) << Text;
      TD.Notes.push_back(tooling::DiagnosticMessage(Text, SM, fileLoc(SM, L)));
    };
    if (F.Async.Via)
      note(F.Async.Loc, std::string(asyncOpName(F.Async.Op)) +
                            " issued here, inside '" +
                            F.Async.Via->getNameAsString() + "'");
    for (size_t K = 0; K < G.size() && K < MaxAccessNotes; ++K) {
      const Event &Acc = Findings[G[K]].Access;
      std::string Kind =
          Acc.Kind == EffectKind::GenericWrite ? "write" : "read";
      std::string Detail =
          Acc.What == "store" || Acc.What == "load" ? "" : " (" + Acc.What + ")";
      note(Acc.Loc, "generic-proxy " + Kind +
                        (Acc.Kind == EffectKind::GenericWrite ? " to " : " of ") +
                        Acc.Mem.describe() +
                        " here" + Detail);
      if (Acc.Via)
        note(stmtLoc(SM, Acc.At), "inside '" + Acc.Via->getNameAsString() +
                                      "', called here");
    }
    if (G.size() > MaxAccessNotes)
      note(WarnLoc, "and " + std::to_string(G.size() - MaxAccessNotes) +
                        " more generic-proxy accesses");
    if (F.Handoff)
      note(stmtLoc(SM, F.Handoff), "this barrier orders threads, not proxies; "
                                   "insert the fence before it");
    if (P.Ok) {
      std::map<std::string, tooling::Replacements> Edits;
      Planner.addReplacements({P}, Edits);
      std::string Text = P.Hoisted ? "insert '" + P.FenceText +
                                         "' here, before the loop: no write "
                                         "happens inside it"
                                   : "insert '" + P.FenceText + "' here";
      {
        auto Builder = DE.Report(P.At, NoteID);
        Builder << Text;
        if (!P.NeedsBraces)
          for (const auto &[Path, Repls] : Edits)
            for (const tooling::Replacement &R : Repls)
              if (R.getOffset() == SM.getFileOffset(P.At) &&
                  Path == SM.getFilename(P.At))
                Builder << FixItHint::CreateInsertion(P.At,
                                                      R.getReplacementText());
      }
      TD.Notes.push_back(tooling::DiagnosticMessage(Text, SM, P.At));
      for (auto &[Path, Repls] : Edits)
        TD.Message.Fix[Path] = Repls;
    } else {
      note(WarnLoc, "no automatic fix: " + P.Reason);
    }
    Out.push_back(std::move(TD));
  }
  Printer.EndSourceFile();
  return Out;
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
