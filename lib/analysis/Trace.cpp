//===- Trace.cpp - why an operation at one line has a finding, or has not -===//
#include "analysis/Trace.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Stmt.h"
#include "llvm/Support/Path.h"

using namespace clang;

namespace proxyfence {

bool TraceTarget::parse(llvm::StringRef Text, TraceTarget &Out,
                        std::string &Why) {
  llvm::StringRef File, Line = Text;
  size_t Colon = Text.rfind(':');
  if (Colon != llvm::StringRef::npos) {
    File = Text.take_front(Colon);
    Line = Text.drop_front(Colon + 1);
  }
  unsigned N = 0;
  if (Line.getAsInteger(10, N) || N == 0 ||
      (Colon != llvm::StringRef::npos && File.empty())) {
    Why = "--trace='" + Text.str() + "': expected LINE or FILE:LINE";
    return false;
  }
  Out.File = File.str();
  Out.Line = N;
  return true;
}

Trace::Trace(const SourceManager &SM, TraceTarget T)
    : SM(SM), Target(std::move(T)) {
  if (!Target.Focus.empty())
    FocusFile = SM.getFileManager().getOptionalFileRef(Target.Focus);
  if (!Target.File.empty())
    TargetFile = SM.getFileManager().getOptionalFileRef(Target.File);
}

bool Trace::atLine(SourceLocation L) const {
  if (L.isInvalid())
    return false;
  L = SM.getExpansionLoc(L);
  if (SM.getExpansionLineNumber(L) != Target.Line)
    return false;
  llvm::StringRef Name = SM.getFilename(L);
  if (!Target.File.empty()) {
    if (TargetFile &&
        SM.getFileEntryRefForID(SM.getFileID(L)) == *TargetFile)
      return true;
    return Name == Target.File || Name.ends_with("/" + Target.File) ||
           llvm::sys::path::filename(Name) == Target.File;
  }
  if (!Target.Focus.empty())
    return Name == Target.Focus ||
           (FocusFile &&
            SM.getFileEntryRefForID(SM.getFileID(L)) == *FocusFile);
  return SM.isWrittenInMainFile(L);
}

bool Trace::targets(const Event &E) const {
  unsigned Loc = E.Loc.getRawEncoding();
  if (Marked.count({E.At.S, Loc}) || (E.Origin && Marked.count({E.Origin.S, Loc})))
    return true;
  if (atLine(E.Loc))
    return true;
  StmtRef Shown = shownAt(E);
  if ((Shown && atLine(Shown.S->getBeginLoc())) ||
      (E.At && atLine(E.At.S->getBeginLoc())))
    return true;
  // A call on the way in (a header's `copy(...)` that the kernel reaches).
  for (const CallFrame *C : {E.Inside, E.OriginInside})
    for (; C; C = C->Inner)
      if (atLine(C->At.S->getBeginLoc()))
        return true;
  return false;
}

std::string Trace::where(SourceLocation L) const {
  PresumedLoc P = SM.getPresumedLoc(SM.getExpansionLoc(L));
  if (P.isInvalid())
    return "<unknown>";
  return llvm::sys::path::filename(P.getFilename()).str() + ":" +
         std::to_string(P.getLine()) + ":" + std::to_string(P.getColumn());
}

std::string Trace::describe(const Event &E) const {
  std::string S = E.What.empty() ? "operation" : E.What;
  if (!E.Mem.empty())
    S += " of " + E.Mem.describeMemory();
  S += " at " + where(E.Loc);
  StmtRef Shown = shownAt(E);
  if (Shown && Shown.Fn)
    S += " (in '" + Shown.Fn->getNameAsString() + "')";
  return S;
}

std::string Trace::describeSync(const Event &E) {
  if (E.Kind != EffectKind::Barrier)
    return E.What + (E.MbarrierPath ? " on " + E.MbarrierPath->describe()
                     : E.Mbarrier.isUnknown() || E.Mbarrier.empty()
                         ? std::string(" on an mbarrier not known")
                         : " on " + E.Mbarrier.describe());
  if (E.Scope == BarrierScope::Cta && E.Id.Kind == BarrierId::Const &&
      E.Id.Offset == 0 && !E.ArriveOnly)
    return "CTA barrier (" + E.What + ")";
  return std::string(E.ArriveOnly ? "bar.arrive" : "bar.sync") + " (" +
         E.Id.describe() + ")";
}

void Trace::say(std::string Line) {
  if (Said.insert(Line).second) {
    Lines.push_back(std::move(Line));
    More.push_back(0);
  }
}

void Trace::tally(const std::string &Key, std::string Line) {
  auto [It, New] = Tallies.try_emplace(Key, Lines.size());
  if (!New) {
    ++More[It->second];
    return;
  }
  Lines.push_back(std::move(Line));
  More.push_back(0);
}

std::vector<std::string> Trace::lines() const {
  std::vector<std::string> Out = Lines;
  for (size_t I = 0; I < Out.size(); ++I)
    if (More[I])
      Out[I] += " (and " + std::to_string(More[I]) + " more access" +
                (More[I] == 1 ? "" : "es") + " the same way)";
  return Out;
}

} // namespace proxyfence
