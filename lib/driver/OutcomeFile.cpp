//===- OutcomeFile.cpp - one input's analysis as a file --------------------===//
#include "driver/OutcomeFile.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/JSON.h"

using namespace clang;
namespace json = llvm::json;

namespace proxyfence {

namespace {

/// JSON strings are UTF-8; source text and paths need not be (a Latin-1
/// file is analysed and fixed like any other), so those go as hex.
json::Value txt(llvm::StringRef S) {
  if (json::isUTF8(S))
    return S;
  return json::Object{{"hex", llvm::toHex(S)}};
}

json::Array writeReplacements(const tooling::Replacements &Rs) {
  json::Array A;
  for (const tooling::Replacement &R : Rs)
    A.push_back(json::Object{{"file", txt(R.getFilePath())},
                             {"offset", R.getOffset()},
                             {"length", R.getLength()},
                             {"text", txt(R.getReplacementText())}});
  return A;
}

json::Object writeMessage(const tooling::DiagnosticMessage &M) {
  json::Array Fix;
  for (const auto &E : M.Fix)
    Fix.push_back(json::Object{{"file", txt(E.getKey())},
                               {"replacements", writeReplacements(E.getValue())}});
  json::Array Ranges;
  for (const tooling::FileByteRange &R : M.Ranges)
    Ranges.push_back(json::Object{
        {"file", txt(R.FilePath)}, {"offset", R.FileOffset}, {"length", R.Length}});
  return json::Object{{"message", txt(M.Message)},
                      {"file", txt(M.FilePath)},
                      {"offset", M.FileOffset},
                      {"fix", std::move(Fix)},
                      {"ranges", std::move(Ranges)}};
}

json::Array writeStrings(const std::vector<std::string> &V) {
  json::Array A;
  for (const std::string &S : V)
    A.push_back(txt(S));
  return A;
}

/// Verification sites, one per access and async operation of each finding
/// (tens of thousands in a large unrolled kernel): each an array of indices
/// into one table of the paths, rules and groups they repeat.
json::Object writeSites(const std::vector<VerifySite> &Sites) {
  llvm::StringMap<unsigned> Index;
  json::Array Strings, Rows;
  auto ref = [&](llvm::StringRef S) {
    auto [It, New] = Index.try_emplace(S, Strings.size());
    if (New)
      Strings.push_back(txt(S));
    return It->second;
  };
  for (const VerifySite &S : Sites) {
    json::Array Row{int(S.Kind), ref(S.Rule), ref(S.Group), S.Fixed};
    for (const SourceSpan *Sp : {&S.Access, &S.AccessOp, &S.Async, &S.AsyncOp})
      for (unsigned V : {ref(Sp->File), Sp->Begin, Sp->End})
        Row.push_back(V);
    Rows.push_back(std::move(Row));
  }
  return json::Object{{"strings", std::move(Strings)}, {"rows", std::move(Rows)}};
}

/// Reads what the writers above wrote; the first mismatch sets Bad.
class Reader {
public:
  bool Bad = false;

  const json::Object *object(const json::Value *V) {
    const json::Object *O = V ? V->getAsObject() : nullptr;
    Bad |= !O;
    static const json::Object Empty;
    return O ? O : &Empty;
  }
  const json::Array &array(const json::Object &O, llvm::StringRef Key) {
    const json::Array *A = O.getArray(Key);
    Bad |= !A;
    static const json::Array Empty;
    return A ? *A : Empty;
  }
  std::string text(const json::Value *V) {
    if (auto S = V ? V->getAsString() : std::nullopt)
      return S->str();
    const json::Object *Hex = V ? V->getAsObject() : nullptr;
    auto Digits = Hex ? Hex->getString("hex") : std::nullopt;
    std::string Bytes;
    Bad |= !Digits || !llvm::tryGetFromHex(*Digits, Bytes);
    return Bytes;
  }
  std::string str(const json::Object &O, llvm::StringRef Key) {
    return text(O.get(Key));
  }
  unsigned num(const json::Object &O, llvm::StringRef Key) {
    auto N = O.getInteger(Key);
    Bad |= !N || *N < 0;
    return N ? unsigned(*N) : 0;
  }
  bool flag(const json::Object &O, llvm::StringRef Key) {
    auto B = O.getBoolean(Key);
    Bad |= !B;
    return B && *B;
  }
  std::vector<std::string> strings(const json::Object &O, llvm::StringRef Key) {
    std::vector<std::string> V;
    for (const json::Value &E : array(O, Key))
      V.push_back(text(&E));
    return V;
  }
  tooling::Replacements replacements(const json::Array &A) {
    tooling::Replacements Rs;
    for (const json::Value &E : A) {
      const json::Object &R = *object(&E);
      if (llvm::Error Err = Rs.add(tooling::Replacement(
              str(R, "file"), num(R, "offset"), num(R, "length"),
              str(R, "text")))) {
        llvm::consumeError(std::move(Err));
        Bad = true;
      }
    }
    return Rs;
  }
  tooling::DiagnosticMessage message(const json::Object &O) {
    tooling::DiagnosticMessage M(str(O, "message"));
    M.FilePath = str(O, "file");
    M.FileOffset = num(O, "offset");
    for (const json::Value &E : array(O, "fix")) {
      const json::Object &F = *object(&E);
      M.Fix[str(F, "file")] = replacements(array(F, "replacements"));
    }
    for (const json::Value &E : array(O, "ranges")) {
      const json::Object &R = *object(&E);
      tooling::FileByteRange B;
      B.FilePath = str(R, "file");
      B.FileOffset = num(R, "offset");
      B.Length = num(R, "length");
      M.Ranges.push_back(B);
    }
    return M;
  }
  std::vector<VerifySite> sites(const json::Object &O) {
    std::vector<std::string> Strings = strings(O, "strings");
    std::vector<VerifySite> Sites;
    for (const json::Value &E : array(O, "rows")) {
      const json::Array *Row = E.getAsArray();
      if (!Row || Row->size() != 16) {
        Bad = true;
        continue;
      }
      auto at = [&](size_t I) {
        auto N = (*Row)[I].getAsInteger();
        Bad |= !N || *N < 0;
        return N ? unsigned(*N) : 0;
      };
      auto string = [&](size_t I) {
        unsigned K = at(I);
        Bad |= K >= Strings.size();
        return K < Strings.size() ? Strings[K] : std::string();
      };
      VerifySite S;
      S.Kind = VerifySite::KindTy(at(0));
      S.Rule = string(1);
      S.Group = string(2);
      auto Fixed = (*Row)[3].getAsBoolean();
      Bad |= !Fixed;
      S.Fixed = Fixed && *Fixed;
      SourceSpan *Spans[] = {&S.Access, &S.AccessOp, &S.Async, &S.AsyncOp};
      for (size_t K = 0; K < 4; ++K)
        *Spans[K] = {string(4 + 3 * K), at(5 + 3 * K), at(6 + 3 * K)};
      Sites.push_back(std::move(S));
    }
    return Sites;
  }
};

} // namespace

std::string writeOutcome(const FileOutcome &O) {
  const FileResult &R = O.R;
  json::Array Diags;
  for (const tooling::Diagnostic &D : R.Diags) {
    json::Array Notes;
    for (const tooling::DiagnosticMessage &N : D.Notes)
      Notes.push_back(writeMessage(N));
    Diags.push_back(json::Object{{"name", txt(D.DiagnosticName)},
                                 {"level", int(D.DiagLevel)},
                                 {"buildDirectory", txt(D.BuildDirectory)},
                                 {"message", writeMessage(D.Message)},
                                 {"notes", std::move(Notes)}});
  }
  json::Array Edits, Originals;
  for (const auto &[Path, Repls] : R.Edits)
    Edits.push_back(json::Object{{"file", txt(Path)},
                                 {"replacements", writeReplacements(Repls)}});
  for (const auto &[Path, Text] : R.Originals)
    Originals.push_back(json::Object{{"file", txt(Path)}, {"text", txt(Text)}});
  json::Array Inputs;
  for (const auto &[Path, Hash] : R.Inputs)
    Inputs.push_back(json::Object{{"file", txt(Path)}, {"sha256", Hash}});
  json::Object Sites = writeSites(R.Sites);
  const AnalysisStats &St = R.Stats;
  json::Object Stats{{"functions", St.Functions},
                     {"asmStatements", St.AsmStatements},
                     {"asmInstructions", St.AsmInstructions},
                     {"namedBarrierPairs", St.NamedBarrierPairs},
                     {"mbarrierPairs", St.MbarrierPairs},
                     {"unmatchedSyncs", St.UnmatchedSyncs},
                     {"unmatchedSites", writeStrings(St.UnmatchedSites)},
                     {"unresolvedCalls", St.UnresolvedCalls},
                     {"unresolvedSites", writeStrings(St.UnresolvedSites)},
                     {"resolvedByMemberName", St.ResolvedByMemberName},
                     {"headerContexts", writeStrings(St.HeaderContexts)}};
  const BlindSpots &B = R.Blind;
  json::Array AsmKinds;
  for (const auto &[Kind, N] : B.AsmKinds)
    AsmKinds.push_back(json::Object{{"kind", txt(Kind)}, {"count", N}});
  json::Object Blind{{"deviceFunctions", B.DeviceFunctions},
                     {"stubs", writeStrings(B.Stubs)},
                     {"dropped", writeStrings(B.Dropped)},
                     {"resolvedCalls", B.ResolvedCalls},
                     {"asmKinds", std::move(AsmKinds)}};
  json::Object Doc{{"file", txt(R.File)},
                   {"ran", R.Ran},
                   {"findings", R.Findings},
                   {"report", txt(R.Report)},
                   {"validDecls", R.ValidDecls},
                   {"unfixable", R.Unfixable},
                   {"suppressed", R.Suppressed},
                   {"patternsOnly", R.PatternsOnly},
                   {"templates", R.Templates},
                   {"patternCalls", R.PatternCalls},
                   {"inLibrary", R.InLibrary},
                   {"outsideFocus", R.OutsideFocus},
                   {"focusNotIncluded", R.FocusNotIncluded},
                   {"repairs", R.Repairs},
                   {"asmLeft", R.AsmLeft},
                   {"sharedObjectsRecovered", R.SemaRepairs.SharedObjects},
                   {"alignasRecovered", R.SemaRepairs.Alignas},
                   {"externSharedRecovered", R.SemaRepairs.ExternShared},
                   {"typenamesRecovered", R.SemaRepairs.Typenames},
                   {"templateKeywordsRecovered", R.SemaRepairs.TemplateKeywords},
                   {"unknownReferencesRecovered", R.SemaRepairs.UnknownReferences},
                   {"relaxedConstexpr", R.SemaRepairs.RelaxedConstexpr},
                   {"typenamesLeft", R.TypenamesLeft},
                   {"stats", std::move(Stats)},
                   {"blind", std::move(Blind)},
                   {"diagnostics", std::move(Diags)},
                   {"edits", std::move(Edits)},
                   {"originals", std::move(Originals)},
                   {"keys", writeStrings(R.Keys)},
                   {"skippedKeys", writeStrings(R.SkippedKeys)},
                   {"inputs", std::move(Inputs)},
                   {"sites", std::move(Sites)},
                   {"trace", writeStrings(R.TraceLines)},
                   {"errors", O.Errors},
                   {"firstError", txt(O.FirstError)},
                   {"errorLimitHit", O.ErrorLimitHit},
                   {"foreignErrors", O.ForeignErrors},
                   {"missingHeaders", writeStrings(O.MissingHeaders)}};
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  OS << json::Value(std::move(Doc));
  return Text;
}

llvm::Expected<FileOutcome> readOutcome(llvm::StringRef Text) {
  llvm::Expected<json::Value> V = json::parse(Text);
  if (!V)
    return V.takeError();
  Reader In;
  const json::Object &Doc = *In.object(&*V);
  FileOutcome O;
  FileResult &R = O.R;
  R.File = In.str(Doc, "file");
  R.Ran = In.flag(Doc, "ran");
  R.Findings = In.num(Doc, "findings");
  R.Report = In.str(Doc, "report");
  R.ValidDecls = In.num(Doc, "validDecls");
  R.Unfixable = In.num(Doc, "unfixable");
  R.Suppressed = In.num(Doc, "suppressed");
  R.PatternsOnly = In.num(Doc, "patternsOnly");
  R.Templates = In.num(Doc, "templates");
  R.PatternCalls = In.num(Doc, "patternCalls");
  const json::Object &St = *In.object(Doc.get("stats"));
  R.Stats.Functions = In.num(St, "functions");
  R.Stats.AsmStatements = In.num(St, "asmStatements");
  R.Stats.AsmInstructions = In.num(St, "asmInstructions");
  R.Stats.NamedBarrierPairs = In.num(St, "namedBarrierPairs");
  R.Stats.MbarrierPairs = In.num(St, "mbarrierPairs");
  R.Stats.UnmatchedSyncs = In.num(St, "unmatchedSyncs");
  R.Stats.UnmatchedSites = In.strings(St, "unmatchedSites");
  R.Stats.UnresolvedCalls = In.num(St, "unresolvedCalls");
  R.Stats.UnresolvedSites = In.strings(St, "unresolvedSites");
  R.Stats.ResolvedByMemberName = In.num(St, "resolvedByMemberName");
  R.Stats.HeaderContexts = In.strings(St, "headerContexts");
  R.InLibrary = In.num(Doc, "inLibrary");
  R.OutsideFocus = In.num(Doc, "outsideFocus");
  R.FocusNotIncluded = In.flag(Doc, "focusNotIncluded");
  R.Repairs = In.num(Doc, "repairs");
  R.AsmLeft = In.num(Doc, "asmLeft");
  R.SemaRepairs.SharedObjects = In.num(Doc, "sharedObjectsRecovered");
  R.SemaRepairs.Alignas = In.num(Doc, "alignasRecovered");
  R.SemaRepairs.ExternShared = In.num(Doc, "externSharedRecovered");
  R.SemaRepairs.Typenames = In.num(Doc, "typenamesRecovered");
  R.SemaRepairs.TemplateKeywords = In.num(Doc, "templateKeywordsRecovered");
  R.SemaRepairs.UnknownReferences = In.num(Doc, "unknownReferencesRecovered");
  R.SemaRepairs.RelaxedConstexpr = In.num(Doc, "relaxedConstexpr");
  R.TypenamesLeft = In.num(Doc, "typenamesLeft");
  const json::Object &B = *In.object(Doc.get("blind"));
  R.Blind.DeviceFunctions = In.num(B, "deviceFunctions");
  R.Blind.Stubs = In.strings(B, "stubs");
  R.Blind.Dropped = In.strings(B, "dropped");
  R.Blind.ResolvedCalls = In.num(B, "resolvedCalls");
  for (const json::Value &E : In.array(B, "asmKinds")) {
    const json::Object &K = *In.object(&E);
    R.Blind.AsmKinds[In.str(K, "kind")] = In.num(K, "count");
  }
  for (const json::Value &E : In.array(Doc, "diagnostics")) {
    const json::Object &D = *In.object(&E);
    tooling::Diagnostic Diag;
    Diag.DiagnosticName = In.str(D, "name");
    Diag.DiagLevel = tooling::Diagnostic::Level(In.num(D, "level"));
    Diag.BuildDirectory = In.str(D, "buildDirectory");
    Diag.Message = In.message(*In.object(D.get("message")));
    for (const json::Value &N : In.array(D, "notes"))
      Diag.Notes.push_back(In.message(*In.object(&N)));
    R.Diags.push_back(std::move(Diag));
  }
  for (const json::Value &E : In.array(Doc, "edits")) {
    const json::Object &F = *In.object(&E);
    R.Edits[In.str(F, "file")] = In.replacements(In.array(F, "replacements"));
  }
  for (const json::Value &E : In.array(Doc, "originals")) {
    const json::Object &F = *In.object(&E);
    R.Originals[In.str(F, "file")] = In.str(F, "text");
  }
  R.Keys = In.strings(Doc, "keys");
  R.SkippedKeys = In.strings(Doc, "skippedKeys");
  R.TraceLines = In.strings(Doc, "trace");
  for (const json::Value &E : In.array(Doc, "inputs")) {
    const json::Object &F = *In.object(&E);
    R.Inputs.emplace_back(In.str(F, "file"), In.str(F, "sha256"));
  }
  R.Sites = In.sites(*In.object(Doc.get("sites")));
  O.Errors = In.num(Doc, "errors");
  O.FirstError = In.str(Doc, "firstError");
  O.ErrorLimitHit = In.flag(Doc, "errorLimitHit");
  O.ForeignErrors = In.num(Doc, "foreignErrors");
  O.MissingHeaders = In.strings(Doc, "missingHeaders");
  if (In.Bad)
    return llvm::createStringError(std::make_error_code(std::errc::invalid_argument),
                                   "not an analysis result written by this version");
  return O;
}

} // namespace proxyfence
