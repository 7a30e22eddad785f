//===- VerifySites.cpp - where each finding is written, for verification ---===//
#include "report/VerifySites.h"
#include "analysis/ProxyDataflow.h"
#include "rules/MbarrierInit.h"
#include "proxyfence/Rules.h"
#include "support/Files.h"
#include "clang/Basic/SourceManager.h"

using namespace clang;

namespace proxyfence {

static SourceSpan spanOf(const SourceManager &SM, SourceRange R) {
  SourceSpan S;
  SourceLocation B = SM.getExpansionLoc(R.getBegin());
  SourceLocation E = SM.getExpansionLoc(R.getEnd());
  if (B.isInvalid() || !B.isFileID())
    return S;
  S.File = absolutePath(SM.getFilename(B));
  S.Begin = S.End = SM.getFileOffset(B);
  if (E.isValid() && SM.getFileID(E) == SM.getFileID(B))
    S.End = std::max(S.Begin, SM.getFileOffset(E));
  return S;
}

static std::string key(const SourceSpan &S) {
  return S.File + ":" + std::to_string(S.Begin);
}

VerifySite makeVerifySite(const SourceManager &SM, const Finding &F,
                          bool Fixed) {
  VerifySite V;
  V.Rule = F.R->Name;
  V.Access = spanOf(SM, F.Access.At.S->getSourceRange());
  V.AccessOp = spanOf(SM, SourceRange(F.Access.Loc));
  V.Async = spanOf(SM, F.Async.At.S->getSourceRange());
  V.AsyncOp = spanOf(SM, SourceRange(F.Async.Loc));
  SourceSpan Handoff;
  if (F.Handoff)
    Handoff = spanOf(SM, F.Handoff.S->getSourceRange());
  V.Group =
      V.Rule + "|" + key(V.Async) + "|" + key(V.AsyncOp) + "|" + key(Handoff);
  V.Fixed = Fixed;
  return V;
}

void addInitVerifySites(std::vector<VerifySite> &Sites, const SourceManager &SM,
                        const InitFinding &F, bool Fixed) {
  VerifySite V;
  V.Kind = F.Kind == InitHazard::Cluster ? VerifySite::InitCluster
           : F.Kind == InitHazard::Cta   ? VerifySite::InitCta
                                         : VerifySite::InitAsync;
  V.Rule = MbarrierInitRule.Name;
  V.Access = spanOf(SM, F.Init.At.S->getSourceRange());
  V.AccessOp = spanOf(SM, SourceRange(F.Init.Loc));
  V.Group = V.Rule + "|" + std::to_string(V.Kind) + "|" + key(V.Access) + "|" +
            key(V.AccessOp);
  V.Fixed = Fixed;
  for (const Event &Use : F.Uses) {
    V.Async = spanOf(SM, Use.At.S->getSourceRange());
    V.AsyncOp = spanOf(SM, SourceRange(Use.Loc));
    Sites.push_back(V);
  }
}

} // namespace proxyfence
