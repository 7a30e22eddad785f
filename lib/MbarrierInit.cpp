//===- MbarrierInit.cpp - is an mbarrier's initialisation visible ---------===//
#include "proxyfence/MbarrierInit.h"
#include "proxyfence/ClusterLaunch.h"
#include "proxyfence/Dataflow.h"
#include "proxyfence/DependentCalls.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/FoldingSet.h"

using namespace clang;

namespace proxyfence {

namespace {
/// How far one init is published on one path.
enum Flag : unsigned {
  Fenced = 1,         // fence.mbarrier_init since the init
  ArrivedRelease = 2, // a cluster arrive that publishes it at the wait
  ArrivedRelaxed = 4, // a relaxed cluster arrive with no init fence before
  ClusterSynced = 8,  // a whole cluster arrive + wait since the init
  Published = 16,     // visible to every CTA of the cluster
  CtaSynced = 32,     // visible to every thread of the CTA
  ProxyFenced = 64,   // fence.proxy.async since the init (strict mode)
  Clusterless = 128,  // took the CTA-barrier arm of a branch on template
                      // parameters whose other arm syncs the cluster
};
/// Summary key of a function entered with no init pending.
constexpr unsigned NoIncoming = ~0u;
/// Pending::Init of the caller's init while a function is summarised.
constexpr unsigned Incoming = ~0u;
constexpr unsigned NoEvent = ~0u;

struct Pending {
  unsigned Init; // index into the run's events, or Incoming
  unsigned Flags;
  unsigned Relaxed; // the relaxed arrive that did not publish it, or NoEvent
  /// The init as seen in the function that met Relaxed (where the init fence
  /// belongs), index into the analyzer's pool; NoEvent while unknown.
  unsigned FenceAt = NoEvent;
  auto key() const { return std::tie(Init, Flags, Relaxed, FenceAt); }
  bool operator<(const Pending &O) const { return key() < O.key(); }
  bool operator==(const Pending &O) const { return key() == O.key(); }
};
using State = std::vector<Pending>; // sorted, unique

unsigned step(unsigned F, const Event &E, bool Strict) {
  switch (E.Kind) {
  case EffectKind::InitFence:
    return F | Fenced;
  case EffectKind::ClusterArrive:
    return F | (!E.Relaxed || (F & Fenced) ? ArrivedRelease : ArrivedRelaxed);
  case EffectKind::ClusterWait:
    // A wait completes only the arrives made after the init. A relaxed
    // arrive orders no memory (PTX ISA, barrier.cluster): with no init fence
    // before it, the init is visible neither to the other CTAs nor to the
    // other threads of this one.
    if (F & ArrivedRelease)
      F |= ClusterSynced | CtaSynced | Published;
    else if (F & ArrivedRelaxed)
      F |= ClusterSynced;
    return F & ~(ArrivedRelease | ArrivedRelaxed);
  case EffectKind::Barrier:
    return E.Scope == BarrierScope::Cta ? F | CtaSynced : F;
  case EffectKind::ProxyFence:
    return Strict && fenceCoversShared(E.Space) ? F | ProxyFenced : F;
  default:
    return F;
  }
}

bool isUse(const Event &E) {
  switch (E.Kind) {
  case EffectKind::MbarrierArrive:
  case EffectKind::MbarrierWait:
  case EffectKind::MbarrierComplete:
  case EffectKind::AsyncRead:
  case EffectKind::AsyncWrite:
    return !E.Mbarrier.empty();
  default:
    return false;
  }
}

bool isAsync(const Event &E) {
  return E.Kind == EffectKind::AsyncRead || E.Kind == EffectKind::AsyncWrite;
}
} // namespace

struct MbarrierAnalyzer::Summary {
  /// Events the entries below refer to, in the callee's terms.
  std::vector<Event> Events;
  struct Outcome {
    unsigned Flags;
    unsigned Relaxed; // index into Events, or NoEvent
    unsigned FenceAt = NoEvent; // index into the analyzer's pool
  };
  /// States the caller's init leaves the callee in (none: always settled).
  std::vector<Outcome> Exits;
  /// Uses met while the caller's init was not yet visible to them.
  struct Use {
    Event E;
    Outcome At;
  };
  std::vector<Use> Uses;
  /// The callee's own inits still unsettled at its exit.
  struct Down {
    unsigned Init; // index into Events
    Outcome At;
  };
  std::vector<Down> Inits;
  bool ClusterBarrier = false;
};

class MbarrierAnalyzer::Run {
public:
  Run(MbarrierAnalyzer &A, const FunctionDecl *Fn, unsigned In,
      const Bindings &B, Summary &Out)
      : A(A), Fn(Fn), In(In), Binds(B), Out(Out) {}

  void run() {
    std::unique_ptr<CFG> G = buildCFG(Fn, A.Ctx);
    if (!G) {
      if (In != NoIncoming) // transparent
        Out.Exits.push_back({In, NoEvent});
      return;
    }
    State Entry;
    if (In != NoIncoming)
      Entry.push_back({Incoming, In, NoEvent});
    std::vector<State> States = solveForward(
        *G, Entry, [&](const Stmt *S, State &St) { transfer(S, St); },
        [](State &Into, const State &From) { return join(Into, From); },
        [&](const CFGBlock &Blk, unsigned Succ) {
          return Binds.feasible(Blk, Succ, A.Ctx);
        });
    for (const Pending &P : States[G->getExit().getBlockID()]) {
      Summary::Outcome O{P.Flags, P.Relaxed, P.FenceAt};
      if (P.Init == Incoming)
        Out.Exits.push_back(O);
      else
        Out.Inits.push_back({P.Init, O});
    }
    Out.Events = Known.events();
  }

private:
  void transfer(const Stmt *S, State &St) {
    if (auto C = A.Events.extract(
            S, Fn, [&](const Event &E, unsigned Ord) { apply(E, Ord, St); },
            &Binds))
      call(*C, St);
  }

  bool done(unsigned F) const {
    return (F & Published) && (!A.RequireProxyFence || (F & ProxyFenced));
  }

  /// Stable index of an event, so that every fixed-point iteration over a
  /// statement names it the same way.
  void apply(const Event &E, unsigned Ordinal, State &St) {
    switch (E.Kind) {
    case EffectKind::MbarrierInit:
      St.push_back({Known.intern(E, Ordinal), 0, NoEvent});
      normalize(St);
      return;
    case EffectKind::ClusterArrive:
    case EffectKind::ClusterWait:
      Out.ClusterBarrier = true;
      [[fallthrough]];
    case EffectKind::InitFence:
    case EffectKind::Barrier:
    case EffectKind::ProxyFence: {
      State Next;
      for (Pending P : St) {
        if (E.Kind == EffectKind::ClusterArrive && E.Relaxed &&
            !(P.Flags & Fenced) && P.Relaxed == NoEvent) {
          P.Relaxed = Known.intern(E, Ordinal);
          P.FenceAt = fenceAt(P.Init);
        }
        P.Flags = step(P.Flags, E, A.RequireProxyFence);
        if (E.Kind == EffectKind::Barrier && E.Scope == BarrierScope::Cta &&
            E.At.Fn == Fn && A.clusterlessArm(E.At))
          P.Flags |= Clusterless;
        if (!done(P.Flags))
          Next.push_back(P);
      }
      normalize(Next);
      St.swap(Next);
      return;
    }
    default:
      if (isUse(E))
        for (const Pending &P : St)
          check(P.Init, P.Flags, P.Relaxed, P.FenceAt, E);
      return;
    }
  }

  /// Where the init fence goes for init \p Init, when a relaxed arrive of
  /// this function meets it: after the init as this function sees it (the
  /// caller decides for an init of its own).
  unsigned fenceAt(unsigned Init) {
    return Init == Incoming ? NoEvent : A.pool(Known[Init]);
  }

  /// A use \p E of a barrier while init \p Init is at \p Flags.
  void check(unsigned Init, unsigned Flags, unsigned Relaxed, unsigned FenceAt,
             const Event &E) {
    // In a kernel known to run without a cluster, a "remote" use reaches
    // this CTA's own barrier. A use exposed to the caller keeps its kind.
    bool CrossCta = E.CrossCta && !(Init != Incoming && A.singleCta(Fn)) &&
                    !(Flags & Clusterless);
    bool Cross = CrossCta && !(Flags & Published);
    bool Cta = !CrossCta && !(Flags & CtaSynced);
    bool Proxy = A.RequireProxyFence && isAsync(E) && !(Flags & ProxyFenced);
    if (!Cross && !Cta && !Proxy)
      return;
    if (Init == Incoming) {
      // The caller matches it with its init (barrier, thread) and reports.
      auto Key = std::make_tuple(E.At.S, E.Loc.getRawEncoding(),
                                 unsigned(E.Kind), Flags, Relaxed);
      if (ExposedUses.insert(Key).second)
        Out.Uses.push_back({E, {Flags, Relaxed, FenceAt}});
      return;
    }
    const Event &I = Known[Init];
    if (!I.Mbarrier.mayAlias(E.Mbarrier))
      return;
    std::optional<Event> R, Fence;
    if (Relaxed != NoEvent)
      R = Known[Relaxed];
    if (FenceAt != NoEvent)
      Fence = A.Pool[FenceAt];
    if (Cross)
      A.addFinding(InitHazard::Cluster, I, E, R, Fence, Flags);
    if (Cta && !A.sameThread(I.At, E.At))
      A.addFinding(InitHazard::Cta, I, E, R, Fence, Flags);
    if (Proxy)
      A.addFinding(InitHazard::ProxyFence, I, E, R, Fence, Flags);
  }

  void call(const CallSite &C, State &St) {
    auto lifted = [&](const Summary &S, unsigned K) {
      return K == NoEvent ? NoEvent
                          : Known.intern(A.Events.lift(S.Events[K], C, Fn), K);
    };
    // A relaxed arrive inside the callee met the caller's init: the fence
    // goes after the init here.
    auto outcome = [&](const Summary &S, const Pending &P,
                       const Summary::Outcome &X) {
      if (X.Relaxed == NoEvent || P.Relaxed != NoEvent)
        return Pending{P.Init, X.Flags, P.Relaxed, P.FenceAt};
      return Pending{P.Init, X.Flags, lifted(S, X.Relaxed), fenceAt(P.Init)};
    };
    State Next;
    Bindings Args = A.Binder.bind(C.Site, C.Def, Binds);
    for (const Pending &P : St) {
      const Summary &S = A.summary(C.Def, P.Flags, Args);
      for (const Summary::Use &U : S.Uses) {
        Pending At = outcome(S, P, U.At);
        check(P.Init, U.At.Flags, At.Relaxed, At.FenceAt,
              A.Events.lift(U.E, C, Fn));
      }
      for (const Summary::Outcome &X : S.Exits)
        Next.push_back(outcome(S, P, X));
    }
    const Summary &Own = A.summary(C.Def, NoIncoming, Args);
    Out.ClusterBarrier |= Own.ClusterBarrier;
    for (const Summary::Down &D : Own.Inits)
      Next.push_back({lifted(Own, D.Init), D.At.Flags,
                      lifted(Own, D.At.Relaxed), D.At.FenceAt});
    normalize(Next);
    St.swap(Next);
  }

  MbarrierAnalyzer &A;
  const FunctionDecl *Fn;
  unsigned In;
  const Bindings &Binds;
  Summary &Out;
  EventTable Known;
  std::set<std::tuple<const Stmt *, unsigned, unsigned, unsigned, unsigned>>
      ExposedUses;
};

MbarrierAnalyzer::MbarrierAnalyzer(ASTContext &Ctx, EventExtractor &Events,
                                   bool RequireProxyFence)
    : Ctx(Ctx), Events(Events), RequireProxyFence(RequireProxyFence),
      Binder(Ctx) {}
MbarrierAnalyzer::~MbarrierAnalyzer() = default;

const MbarrierAnalyzer::Summary &
MbarrierAnalyzer::summary(const FunctionDecl *Def, unsigned In,
                          const Bindings &B) {
  if (!B.empty() && Specialising.lookup(Def))
    return summary(Def, In, Bindings());
  auto Key = std::make_tuple(Def, In, B);
  auto It = Summaries.find(Key);
  if (It != Summaries.end())
    return *It->second; // done, or in progress (recursion: transparent)
  auto &Slot = Summaries[Key];
  Slot = std::make_unique<Summary>();
  if (In != NoIncoming)
    Slot->Exits.push_back({In, NoEvent});
  Summary Result;
  if (Def->getBody()) {
    ++Specialising[Def];
    Run(*this, Def, In, B, Result).run();
    --Specialising[Def];
  } else if (In != NoIncoming) {
    Result.Exits.push_back({In, NoEvent});
  }
  *Summaries[Key] = std::move(Result);
  return *Summaries[Key];
}

void MbarrierAnalyzer::analyze(const FunctionDecl *Fn) {
  summary(Fn, NoIncoming);
}

bool MbarrierAnalyzer::singleCta(const FunctionDecl *Fn) {
  if (!Clusters)
    Clusters = std::make_unique<ClusterLaunches>(Ctx);
  return Clusters->singleCta(Fn);
}

std::vector<InitFinding> MbarrierAnalyzer::findings() const {
  std::vector<InitFinding> Out;
  for (const InitFinding &F : Findings) {
    bool Covered = relaxedOnly(F) && llvm::any_of(Findings, [&](const InitFinding &C) {
      return C.Kind == InitHazard::Cluster && C.Relaxed &&
             C.Init.At == F.Init.At && C.Init.Loc == F.Init.Loc;
    });
    if (!Covered)
      Out.push_back(F);
  }
  return Out;
}

bool MbarrierAnalyzer::hasClusterBarrier(const FunctionDecl *Fn) {
  return summary(Fn, NoIncoming).ClusterBarrier;
}

unsigned MbarrierAnalyzer::pool(const Event &E) {
  auto Key = std::make_tuple(E.At.S, E.Loc.getRawEncoding(), unsigned(E.Kind));
  auto [It, New] = PoolIndex.try_emplace(Key, Pool.size());
  if (New)
    Pool.push_back(E);
  return It->second;
}

void MbarrierAnalyzer::addFinding(InitHazard K, const Event &Init,
                                  const Event &Use,
                                  const std::optional<Event> &Relaxed,
                                  const std::optional<Event> &FenceAt,
                                  unsigned Flags) {
  auto Key = std::make_tuple(unsigned(K), Init.At.S, Init.Loc.getRawEncoding());
  auto [It, New] = FindingIndex.try_emplace(Key, Findings.size());
  if (New)
    Findings.push_back(InitFinding{K, Init, {}, std::nullopt});
  InitFinding &F = Findings[It->second];
  if (New) {
    F.Initialiser = threadsOf(Init.At, "the threads that execute the init");
    F.User = threadsOf(Use.At, "every thread of the CTA");
  }
  // One wrapper call may initialise several barriers at one written place.
  F.Init.Mbarrier.merge(Init.Mbarrier);
  F.Fenced &= bool(Flags & Fenced);
  F.ClusterSynced &= bool(Flags & ClusterSynced);
  if (!F.Relaxed && Relaxed) {
    F.Relaxed = Relaxed;
    F.FenceAt = FenceAt;
  }
  if (UseKeys.insert({It->second, Use.At.S, Use.Loc.getRawEncoding()}).second)
    F.Uses.push_back(Use);
}

const ParentMap &MbarrierAnalyzer::parents(const FunctionDecl *Fn) {
  auto &PM = ParentMaps[Fn];
  if (!PM)
    PM = std::make_unique<ParentMap>(const_cast<Stmt *>(Fn->getBody()));
  return *PM;
}

/// The `if` statements whose then-branch holds \p S, innermost first.
static std::vector<const IfStmt *> guardsOf(const Stmt *S,
                                            const ParentMap &PM) {
  std::vector<const IfStmt *> Out;
  for (const Stmt *P = PM.getParent(S); P; S = P, P = PM.getParent(P))
    if (const auto *If = dyn_cast<IfStmt>(P); If && If->getThen() == S)
      Out.push_back(If);
  return Out;
}

std::string MbarrierAnalyzer::threadsOf(StmtRef At, llvm::StringRef Otherwise) {
  if (!At.Fn || !At.Fn->getBody())
    return Otherwise.str();
  const ParentMap &PM = parents(At.Fn);
  const SourceManager &SM = Ctx.getSourceManager();
  auto text = [&](const Stmt *S) {
    return Lexer::getSourceText(
               SM.getExpansionRange(S->getSourceRange()),
               SM, Ctx.getLangOpts())
        .str();
  };
  for (const Stmt *S = At.S, *P = PM.getParent(S); P;
       S = P, P = PM.getParent(P)) {
    if (const auto *If = dyn_cast<IfStmt>(P); If && If->getThen() == S)
      return "the thread(s) where '" + text(If->getCond()) + "'";
    if (const auto *For = dyn_cast<ForStmt>(P); For && For->getBody() == S)
      return "the threads of the loop at line " +
             std::to_string(SM.getExpansionLineNumber(For->getBeginLoc())) +
             " (each its share)";
  }
  return Otherwise.str();
}

namespace {
/// Finds a cluster barrier in a statement: an asm one, or a call whose
/// callee (or the single candidate of a pattern's call) executes one.
class ClusterBarrierFinder : public RecursiveASTVisitor<ClusterBarrierFinder> {
public:
  explicit ClusterBarrierFinder(MbarrierAnalyzer &A) : A(A) {}
  bool Found = false;
  bool VisitGCCAsmStmt(GCCAsmStmt *Asm) {
    if (llvm::StringRef(Asm->getAsmString()).contains("barrier.cluster"))
      Found = true;
    return !Found;
  }
  bool VisitCallExpr(CallExpr *Call) {
    const FunctionDecl *Callee = Call->getDirectCallee();
    if (!Callee) {
      DependentCallee D = dependentCallee(Call);
      Callee = D.Viable.size() == 1 ? D.Viable.front() : nullptr;
    }
    const FunctionDecl *Def = nullptr;
    if (Callee && Callee->hasBody(Def) && Def && A.hasClusterBarrier(Def))
      Found = true;
    return !Found;
  }

private:
  MbarrierAnalyzer &A;
};
} // namespace

namespace {
/// The `if constexpr` of \p Pattern's body written at \p IfLoc: the
/// statement an instantiation's `if constexpr` was made from.
class IfAtFinder : public RecursiveASTVisitor<IfAtFinder> {
public:
  explicit IfAtFinder(SourceLocation L) : L(L) {}
  const IfStmt *Found = nullptr;
  bool VisitIfStmt(IfStmt *If) {
    if (If->isConstexpr() && If->getIfLoc() == L)
      Found = If;
    return !Found;
  }

private:
  SourceLocation L;
};
} // namespace

bool MbarrierAnalyzer::clusterlessArm(StmtRef At) {
  if (!At.Fn || !At.Fn->getBody())
    return false;
  if (!At.Fn->isDependentContext())
    return instantiatedClusterlessArm(At);
  return armBesideClusterBarrier(At, [](const Stmt *S, const Stmt *P,
                                        bool &Stop) -> const Stmt * {
    const Expr *Cond = nullptr;
    const Stmt *Other = nullptr;
    if (const auto *CO = dyn_cast<ConditionalOperator>(P)) {
      Stop = S == CO->getCond();
      Cond = CO->getCond();
      Other = S == CO->getTrueExpr() ? CO->getFalseExpr() : CO->getTrueExpr();
    } else if (const auto *If = dyn_cast<IfStmt>(P)) {
      Stop = S != If->getThen() && S != If->getElse();
      Cond = If->getCond();
      Other = S == If->getThen() ? If->getElse() : If->getThen();
    }
    if (Stop || !Cond || !Cond->isValueDependent() || !isTemplateConstant(Cond))
      return nullptr;
    return Other;
  });
}

bool MbarrierAnalyzer::instantiatedClusterlessArm(StmtRef At) {
  const FunctionDecl *Pattern = At.Fn->getTemplateInstantiationPattern();
  if (!Pattern || !Pattern->getBody())
    return false;
  return armBesideClusterBarrier(At, [&](const Stmt *S, const Stmt *P,
                                         bool &) -> const Stmt * {
    const auto *If = dyn_cast<IfStmt>(P);
    if (!If || !If->isConstexpr() ||
        (S != If->getThen() && S != If->getElse()))
      return nullptr;
    IfAtFinder Find(If->getIfLoc());
    Find.TraverseStmt(Pattern->getBody());
    if (!Find.Found)
      return nullptr;
    // The arm this instantiation discarded, as the pattern writes it.
    return S == If->getThen() ? Find.Found->getElse() : Find.Found->getThen();
  });
}

bool MbarrierAnalyzer::armBesideClusterBarrier(
    StmtRef At,
    llvm::function_ref<const Stmt *(const Stmt *, const Stmt *, bool &)>
        OtherArm) {
  const ParentMap &PM = parents(At.Fn);
  for (const Stmt *S = At.S, *P = PM.getParent(S); P;
       S = P, P = PM.getParent(P)) {
    bool Stop = false;
    const Stmt *Other = OtherArm(S, P, Stop);
    if (Stop)
      return false;
    if (!Other)
      continue;
    ClusterBarrierFinder F(*this);
    F.TraverseStmt(const_cast<Stmt *>(Other));
    if (F.Found)
      return true;
  }
  return false;
}

bool MbarrierAnalyzer::sameThread(StmtRef Init, StmtRef Use) {
  if (!Init.Fn || Init.Fn != Use.Fn)
    return false;
  const ParentMap &PM = parents(Init.Fn);
  std::vector<const IfStmt *> InitGuards = guardsOf(Init.S, PM);
  if (InitGuards.empty())
    return false;
  // `if (threadIdx.x == 0) init(...); ... if (threadIdx.x == 0) use(...);`
  // names the same thread twice.
  llvm::FoldingSetNodeID G;
  InitGuards.front()->getCond()->Profile(G, Ctx, /*Canonical=*/true);
  for (const IfStmt *If : guardsOf(Use.S, PM)) {
    if (If == InitGuards.front())
      return true;
    llvm::FoldingSetNodeID U;
    If->getCond()->Profile(U, Ctx, /*Canonical=*/true);
    if (U == G)
      return true;
  }
  return false;
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

bool relaxedOnly(const InitFinding &F) {
  return F.Kind == InitHazard::Cta && F.Relaxed && F.ClusterSynced;
}

std::vector<InitFix> planInitFixes(FixPlanner &Planner, MbarrierAnalyzer &A,
                                   const std::vector<InitFinding> &Findings) {
  std::vector<InitFix> Out(Findings.size());
  std::map<const Stmt *, Anchor> Anchors;
  std::vector<std::vector<const Stmt *>> AnchorsOf(Findings.size());
  auto fail = [&](size_t I, std::string Why) {
    if (Out[I].Reason.empty())
      Out[I].Reason = std::move(Why);
  };
  auto need = [&](size_t I, StmtRef At, FixKind K) {
    Anchor &An = Anchors[At.S];
    An.At = At;
    if (llvm::find(An.Kinds, K) == An.Kinds.end())
      An.Kinds.push_back(K);
    if (llvm::find(AnchorsOf[I], At.S) == AnchorsOf[I].end())
      AnchorsOf[I].push_back(At.S);
  };
  auto offsetOf = [](const FunctionDecl *Fn, SourceLocation L) {
    const SourceManager &SM = Fn->getASTContext().getSourceManager();
    return SM.getFileOffset(SM.getExpansionLoc(L));
  };

  // 1. Fences go right after the init, out of every loop that holds it but
  // none of its uses (after a loop over pipeline stages, not inside it).
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

  // 2. Barriers go after the init, at a statement of the kernel body (every
  // thread of the CTA reaches those), before the first use.
  std::map<const FunctionDecl *, std::vector<size_t>> Kernels;
  for (size_t I = 0; I < Findings.size(); ++I) {
    const InitFinding &F = Findings[I];
    bool Pair = F.Kind == InitHazard::Cluster && !F.ClusterSynced;
    if (!Pair && (F.Kind != InitHazard::Cta || relaxedOnly(F)))
      continue;
    const FunctionDecl *Fn = F.Init.At.Fn;
    if (!Fn->hasAttr<CUDAGlobalAttr>() || !isa<CompoundStmt>(Fn->getBody()))
      fail(I, "the init is not in a kernel body: no statement is known to be "
              "reached by every thread of the CTA");
    else if (Pair && A.hasClusterBarrier(Fn))
      fail(I, "the kernel's own cluster barriers do not order the init before "
              "this use; a second barrier could break their pairing");
    else
      Kernels[Fn].push_back(I);
  }
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

  for (auto &[S, An] : Anchors) {
    // A cluster barrier synchronises the CTA as well.
    if (llvm::is_contained(An.Kinds, FixKind::ClusterBarrier))
      llvm::erase(An.Kinds, FixKind::CtaBarrier);
    llvm::sort(An.Kinds); // fences before barriers
    An.Fix = Planner.planAfter(An.At, An.Kinds);
  }
  // Edits at one point are joined into one replacement (a brace closing an
  // init's body, then a barrier after its `if`): a fix carries every edit
  // that shares a point with its own, so each exported fix is whole.
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
  return Out;
}

} // namespace proxyfence
