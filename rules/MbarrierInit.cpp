//===- MbarrierInit.cpp - proxyfence-mbarrier-init ------------------------===//
//
// An mbarrier used by other CTAs of the cluster, or by other threads of the
// CTA, before its initialisation is visible to them; optionally (strict
// mode) used by the async proxy with no fence.proxy.async after the init.
// The analysis is in lib/analysis/InitPublication.cpp; this file says what a
// finding means and plans its fix.
//
//===----------------------------------------------------------------------===//
#include "rules/MbarrierInit.h"
#include "proxyfence/Rules.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Lex/Lexer.h"

using namespace clang;

namespace proxyfence {

const StandaloneRule MbarrierInitRule = {
    "proxyfence-mbarrier-init",
    "mbarrier used by other CTAs of the cluster or other threads before "
    "fence.mbarrier_init + a cluster barrier (or __syncthreads) publishes "
    "its initialisation"};

static std::string barrierName(const InitFinding &F) {
  const AliasSet &M = F.Init.Mbarrier;
  if (M.isUnknown() || M.empty())
    return "an mbarrier";
  return "mbarrier " + M.describe();
}

std::string initFindingMessage(const InitFinding &F) {
  std::string B = barrierName(F);
  switch (F.Kind) {
  case InitHazard::Cluster: {
    std::string Msg = B + " is used by another CTA of the cluster before its "
                          "initialisation is visible there: ";
    if (!F.Fenced && F.Relaxed)
      return Msg + "no fence.mbarrier_init.release.cluster before the relaxed "
                   "cluster barrier";
    if (!F.Fenced && !F.ClusterSynced)
      return Msg + "no fence.mbarrier_init.release.cluster and no cluster "
                   "barrier between them";
    if (!F.ClusterSynced)
      return Msg + "no cluster barrier after the init fence";
    return Msg + "fence.mbarrier_init.release.cluster must come before the "
                 "cluster barrier's arrive";
  }
  case InitHazard::Cta:
    if (relaxedOnly(F))
      return B + " is initialised by " + F.Initialiser + " and used by " +
             F.User +
             " after only a relaxed cluster barrier: "
             "barrier.cluster.arrive.relaxed orders no memory, so the "
             "initialising thread must execute "
             "fence.mbarrier_init.release.cluster before it arrives";
    return B + " is used by other threads before a CTA-wide barrier "
               "(__syncthreads) makes its initialisation visible to them";
  case InitHazard::ProxyFence:
    return B + " is used by the async proxy with no "
               "fence.proxy.async.shared::cta after its initialisation "
               "(required by --mbarrier-init-proxy-fence=require)";
  }
  return B;
}

std::string initUseNote(const InitFinding &F, const Event &Use) {
  std::string What = " here (" + Use.What + ")";
  switch (F.Kind) {
  case InitHazard::Cluster:
    return "used by another CTA of the cluster" + What;
  case InitHazard::Cta:
    return "used by other threads" + What;
  case InitHazard::ProxyFence:
    return "used by the async proxy" + What;
  }
  return "used" + What;
}

//===----------------------------------------------------------------------===//
// Fixes
//===----------------------------------------------------------------------===//

namespace {
bool isLoop(const Stmt *S) {
  return isa<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt>(S);
}

bool isInside(const Stmt *Inner, const Stmt *Outer, const ParentMap &PM) {
  for (const Stmt *S = Inner; S; S = PM.getParent(S))
    if (S == Outer)
      return true;
  return false;
}

class ReturnFinder : public RecursiveASTVisitor<ReturnFinder> {
public:
  bool Found = false;
  bool VisitReturnStmt(ReturnStmt *) {
    Found = true;
    return false;
  }
  bool TraverseLambdaExpr(LambdaExpr *) { return true; }
};

/// Edits that follow one statement, planned together.
struct Anchor {
  StmtRef At;
  std::vector<FixKind> Kinds;
  PlannedFix Fix;
};

/// A fence point: the statement holding an init (or its loop).
struct FencePoint {
  size_t Finding;
  const FunctionDecl *Fn; // holding the init (or the call performing it)
  PlannedFix Where;
  std::vector<FixKind> Kinds;
};
} // namespace


namespace {
/// The fix plan of one unit's mbarrier-init findings as it is built: each
/// finding's anchors (the statements its edits follow), then each anchor's
/// planned edits, then each finding's fix.
class InitFixPlan {
public:
  InitFixPlan(FixPlanner &Planner, MbarrierAnalyzer &A,
              const std::vector<InitFinding> &Findings)
      : Planner(Planner), A(A), Findings(Findings), Out(Findings.size()),
        AnchorsOf(Findings.size()) {}

  std::vector<InitFix> plan() {
    placeFences(fencePoints());
    placeBarriers(barrierKernels());
    planAnchors();
    joinFixes();
    return std::move(Out);
  }

private:
  /// Finding \p I cannot be fixed, for the first reason given.
  void fail(size_t I, std::string Why) {
    if (Out[I].Reason.empty())
      Out[I].Reason = std::move(Why);
  }

  /// Finding \p I needs an edit of kind \p K after \p At.
  void need(size_t I, StmtRef At, FixKind K) {
    Anchor &An = Anchors[At.S];
    An.At = At;
    if (llvm::find(An.Kinds, K) == An.Kinds.end())
      An.Kinds.push_back(K);
    if (llvm::find(AnchorsOf[I], At.S) == AnchorsOf[I].end())
      AnchorsOf[I].push_back(At.S);
  }

  static unsigned offsetOf(const FunctionDecl *Fn, SourceLocation L) {
    const SourceManager &SM = Fn->getASTContext().getSourceManager();
    return SM.getFileOffset(SM.getExpansionLoc(L));
  }

  /// 1. Fences go right after the init, out of every loop that holds it but
  /// none of its uses (after a loop over pipeline stages, not inside it):
  /// the fence points of every finding that needs a fence, by block.
  std::map<const Stmt *, std::vector<FencePoint>> fencePoints() {
    std::map<const Stmt *, std::vector<FencePoint>> Blocks;
    for (size_t I = 0; I < Findings.size(); ++I) {
      const InitFinding &F = Findings[I];
      std::vector<FixKind> Kinds;
      if ((F.Kind == InitHazard::Cluster && (!F.Fenced || F.Relaxed)) ||
          relaxedOnly(F))
        Kinds.push_back(FixKind::InitFence);
      if (F.Kind == InitHazard::ProxyFence)
        Kinds.push_back(FixKind::ProxyFence);
      if (Kinds.empty())
        continue;
      // Before the relaxed arrive: in the function that executes it.
      const Event &Init = F.Relaxed && F.FenceAt ? *F.FenceAt : F.Init;
      const FunctionDecl *Fn = Init.At.Fn;
      const ParentMap &PM = Planner.parents(Fn);
      const Stmt *Point = Init.At.S;
      for (const Stmt *P = PM.getParent(Point); P; P = PM.getParent(P))
        if (isLoop(P) && llvm::none_of(F.Uses, [&](const Event &U) {
              return U.At.Fn == Fn && isInside(U.At.S, P, PM);
            }))
          Point = P;
      PlannedFix Where = Planner.planAfter({Point, Fn}, {});
      if (!Where.Ok) {
        fail(I, Where.Reason);
        continue;
      }
      const Stmt *Block =
          Where.NeedsBraces ? Where.After : PM.getParent(Where.After);
      Blocks[Block].push_back({I, Fn, Where, Kinds});
    }
    return Blocks;
  }

  void placeFences(std::map<const Stmt *, std::vector<FencePoint>> Blocks) {
    for (auto &[Block, Points] : Blocks) {
      // One fence after the last init of the block, unless a use of an
      // earlier init comes before that point.
      const FunctionDecl *Fn = Points.front().Fn;
      auto end = [&](const FencePoint &P) { return offsetOf(Fn, P.Where.At); };
      const FencePoint &Last =
          *std::max_element(Points.begin(), Points.end(),
                            [&](const FencePoint &X, const FencePoint &Y) {
                              return end(X) < end(Y);
                            });
      for (const FencePoint &P : Points) {
        bool UseBetween =
            llvm::any_of(Findings[P.Finding].Uses, [&](const Event &U) {
              unsigned O = offsetOf(Fn, U.At.S->getBeginLoc());
              return U.At.Fn == Fn && O >= end(P) && O < end(Last);
            });
        const Stmt *At = UseBetween ? P.Where.After : Last.Where.After;
        for (FixKind K : P.Kinds)
          need(P.Finding, {At, Fn}, K);
      }
    }
  }

  /// 2. Barriers go after the init, at a statement of the kernel body
  /// (every thread of the CTA reaches those), before the first use: the
  /// findings that need one, by kernel.
  std::map<const FunctionDecl *, std::vector<size_t>> barrierKernels() {
    std::map<const FunctionDecl *, std::vector<size_t>> Kernels;
    for (size_t I = 0; I < Findings.size(); ++I) {
      const InitFinding &F = Findings[I];
      bool Pair = F.Kind == InitHazard::Cluster && !F.ClusterSynced;
      if (!Pair && (F.Kind != InitHazard::Cta || relaxedOnly(F)))
        continue;
      const FunctionDecl *Fn = F.Init.At.Fn;
      if (!Fn->hasAttr<CUDAGlobalAttr>() || !isa<CompoundStmt>(Fn->getBody()))
        fail(I, "the init is not in a kernel body: no statement is known to "
                "be reached by every thread of the CTA");
      else if (Pair && A.hasClusterBarrier(Fn))
        fail(I, "the kernel's own cluster barriers do not order the init "
                "before this use; a second barrier could break their pairing");
      else
        Kernels[Fn].push_back(I);
    }
    return Kernels;
  }

  void placeBarriers(std::map<const FunctionDecl *, std::vector<size_t>> Kernels) {
    for (auto &[Fn, Members] : Kernels) {
      const auto *Body = cast<CompoundStmt>(Fn->getBody());
      const ParentMap &PM = Planner.parents(Fn);
      auto topIndex = [&](const Stmt *S) {
        while (S && PM.getParent(S) != Body)
          S = PM.getParent(S);
        auto It = llvm::find(Body->body(), S);
        return unsigned(It - Body->body_begin());
      };
      // For each member: the statement holding its init, and the first
      // statement holding one of its uses.
      std::map<size_t, std::pair<unsigned, unsigned>> Span;
      unsigned Last = 0;
      for (size_t I : Members) {
        unsigned From = topIndex(Findings[I].Init.At.S), To = Body->size();
        for (const Event &U : Findings[I].Uses)
          To = std::min(To, U.At.Fn == Fn ? topIndex(U.At.S) : From);
        Span[I] = {From, To};
        if (From < To)
          Last = std::max(Last, From);
      }
      for (size_t I : Members) {
        auto [From, To] = Span[I];
        if (From >= To) {
          fail(I, "the init and its use are in one statement of the kernel "
                  "body: no point between them is reached by every thread");
          continue;
        }
        // One barrier for all the kernel's inits where their uses allow.
        unsigned At = Last < To ? Last : From;
        ReturnFinder RF;
        for (unsigned K = 0; K <= At && !RF.Found; ++K)
          RF.TraverseStmt(const_cast<Stmt *>(Body->body_begin()[K]));
        if (RF.Found) {
          fail(I, "a return comes before the init: threads that returned "
                  "would never reach a barrier after it");
          continue;
        }
        bool Pair = Findings[I].Kind == InitHazard::Cluster;
        need(I, {Body->body_begin()[At], Fn},
             Pair ? FixKind::ClusterBarrier : FixKind::CtaBarrier);
      }
    }
  }

  /// Each anchor's edits, planned together.
  void planAnchors() {
    for (auto &[S, An] : Anchors) {
      // A cluster barrier synchronises the CTA as well.
      if (llvm::is_contained(An.Kinds, FixKind::ClusterBarrier))
        llvm::erase(An.Kinds, FixKind::CtaBarrier);
      llvm::sort(An.Kinds); // fences before barriers
      An.Fix = Planner.planAfter(An.At, An.Kinds);
    }
  }

  /// Edits at one point are joined into one replacement (a brace closing an
  /// init's body, then a barrier after its `if`): a fix carries every edit
  /// that shares a point with its own, so each exported fix is whole.
  void joinFixes() {
    std::map<std::pair<FileID, unsigned>, std::vector<const Stmt *>> AtPoint;
    std::map<const Stmt *, std::vector<std::pair<FileID, unsigned>>> PointsOf;
    for (auto &[S, An] : Anchors) {
      if (!An.Fix.Ok)
        continue;
      const SourceManager &SM = An.At.Fn->getASTContext().getSourceManager();
      std::vector<SourceLocation> Locs = {An.Fix.At};
      if (An.Fix.NeedsBraces)
        Locs.push_back(SM.getExpansionLoc(An.Fix.After->getBeginLoc()));
      for (SourceLocation L : Locs) {
        std::pair<FileID, unsigned> Key = SM.getDecomposedLoc(L);
        AtPoint[Key].push_back(S);
        PointsOf[S].push_back(Key);
      }
    }
    for (size_t I = 0; I < Findings.size(); ++I) {
      InitFix &Fix = Out[I];
      if (!Fix.Reason.empty())
        continue;
      if (AnchorsOf[I].empty()) {
        Fix.Reason = "no edit is known to order the init before its use";
        continue;
      }
      auto Failed = llvm::find_if(
          AnchorsOf[I], [&](const Stmt *S) { return !Anchors[S].Fix.Ok; });
      if (Failed != AnchorsOf[I].end()) {
        Fix.Reason = Anchors[*Failed].Fix.Reason;
        continue;
      }
      std::vector<const Stmt *> Closure = AnchorsOf[I];
      for (size_t K = 0; K < Closure.size(); ++K)
        for (const auto &Key : PointsOf[Closure[K]])
          for (const Stmt *S : AtPoint[Key])
            if (!llvm::is_contained(Closure, S))
              Closure.push_back(S);
      Fix.Ok = true;
      for (const Stmt *S : Closure)
        Fix.Edits.push_back(Anchors[S].Fix);
    }
  }

  FixPlanner &Planner;
  MbarrierAnalyzer &A;
  const std::vector<InitFinding> &Findings;
  std::vector<InitFix> Out;
  std::map<const Stmt *, Anchor> Anchors;
  std::vector<std::vector<const Stmt *>> AnchorsOf; // per finding
};
} // namespace

std::vector<InitFix> planInitFixes(FixPlanner &Planner, MbarrierAnalyzer &A,
                                   const std::vector<InitFinding> &Findings) {
  return InitFixPlan(Planner, A, Findings).plan();
}

} // namespace proxyfence
