//===- MbarrierInit.cpp - is an mbarrier's initialisation visible ---------===//
#include "analysis/InitPublication.h"
#include "analysis/BranchFacts.h"
#include "model/ClusterLaunch.h"
#include "analysis/Dataflow.h"
#include "model/DependentCalls.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"
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
  WarpSynced = 256,   // a warp barrier since the init
  GroupSynced = 512,  // the named barrier of the group that owns the mbarrier
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
  /// For the caller's init: the last named barrier met here, which the
  /// caller, knowing its init, may find to be the owners' (ownersBarrier).
  unsigned Named = NoEvent;
  auto key() const { return std::tie(Init, Flags, Relaxed, FenceAt, Named); }
  bool operator<(const Pending &O) const { return key() < O.key(); }
  bool operator==(const Pending &O) const { return key() == O.key(); }
};
using State = std::vector<Pending>; // sorted, unique

/// The most threads a block of kernel \p Fn has (`__launch_bounds__(N)`);
/// 0 for a device function or a kernel without the attribute.
unsigned launchBoundThreads(const FunctionDecl *Fn, const ASTContext &Ctx) {
  const auto *LB = Fn->getAttr<CUDALaunchBoundsAttr>();
  Expr::EvalResult R;
  if (!Fn->hasAttr<CUDAGlobalAttr>() || !LB || !LB->getMaxThreads() ||
      LB->getMaxThreads()->isValueDependent() ||
      !LB->getMaxThreads()->EvaluateAsInt(R, Ctx))
    return 0;
  return unsigned(R.Val.getInt().getLimitedValue(~0u));
}

/// Whether barrier \p E makes every thread of the CTA meet: no thread count,
/// or a named barrier counting the kernel's \p CtaThreads. A block may have
/// no more threads than __launch_bounds__ allows, and a barrier counting
/// more threads than the block has never completes, so in a kernel that
/// runs, `bar.sync 15, N` with N the bound is a barrier of the whole CTA
/// (ThunderKittens' `everyone::sync`). In a block of one warp at most
/// (`__launch_bounds__(32)`), `__syncwarp` meets every thread of the CTA.
bool wholeCta(const Event &E, unsigned CtaThreads) {
  if (E.Scope == BarrierScope::Cta)
    return true;
  if (E.Scope == BarrierScope::Warp)
    return !E.ArriveOnly && CtaThreads && CtaThreads <= 32;
  return E.Scope == BarrierScope::Named && !E.ArriveOnly && CtaThreads &&
         E.ThreadCount == CtaThreads;
}

unsigned step(unsigned F, const Event &E, bool Strict, unsigned CtaThreads) {
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
    return wholeCta(E, CtaThreads) ? F | CtaSynced : F;
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

struct MbarrierAnalyzer::InitSummary {
  /// Events the entries below refer to, in the callee's terms.
  std::vector<Event> Events;
  struct Outcome {
    unsigned Flags;
    unsigned Relaxed; // index into Events, or NoEvent
    unsigned FenceAt = NoEvent; // index into the analyzer's pool
    unsigned Named = NoEvent;   // index into Events
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

class MbarrierAnalyzer::InitFunctionRun {
public:
  InitFunctionRun(MbarrierAnalyzer &A, const FunctionDecl *Fn, unsigned In,
                  const Bindings &B, InitSummary &Out, unsigned CtaThreads)
      : A(A), Fn(Fn), In(In), Binds(B), Out(Out), CtaThreads(CtaThreads) {}

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
      InitSummary::Outcome O{P.Flags, P.Relaxed, P.FenceAt, P.Named};
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
      traceInit(E);
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
        P.Flags = step(P.Flags, E, A.RequireProxyFence, CtaThreads) |
                  ownersBarrier(P.Init, E);
        if (P.Init == Incoming && isNamedSync(E))
          P.Named = Known.intern(E, Ordinal);
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
          check(P, E);
      return;
    }
  }

  static bool isNamedSync(const Event &E) {
    return E.Kind == EffectKind::Barrier && E.Scope == BarrierScope::Named &&
           !E.ArriveOnly;
  }
  /// The flag barrier \p E adds to init \p Init for the threads that own
  /// the mbarrier (ThreadGroups.h): any warp barrier, or the named barrier
  /// whose id is the owning group's index and whose count, where both are
  /// known, is the group's size.
  unsigned ownersBarrier(unsigned Init, const Event &E) {
    if (E.Kind == EffectKind::Barrier && E.Scope == BarrierScope::Warp)
      return WarpSynced;
    if (!isNamedSync(E) || Init == Incoming)
      return 0;
    std::optional<ThreadGroup> G = Known[Init].Mbarrier.privateTo();
    bool ById = G && G->Index &&
                (E.Id.Kind == BarrierId::Var || E.Id.Kind == BarrierId::Param ||
                 E.Id.Kind == BarrierId::Indexed) &&
                E.Id.Variable == G->Index;
    bool Counted = !E.ThreadCount || !G || !G->Threads ||
                   E.ThreadCount == G->Threads;
    return ById && Counted ? GroupSynced : 0;
  }

  /// Whether the init \p Init is visible to the use \p E because both
  /// reach the barrier through the part of shared memory one group of
  /// threads owns, and that group has met since the init (or is one thread).
  bool ownersSynced(unsigned Init, unsigned Flags, const Event &E) const {
    if (Init == Incoming)
      return false;
    std::optional<ThreadGroup> G = Known[Init].Mbarrier.privateTo();
    if (!G || !(E.Mbarrier.privateTo() == G) ||
        !A.initByEachGroup(Known[Init], E))
      return false;
    return G->Threads == 1 || (G->withinWarp() && (Flags & WarpSynced)) ||
           (Flags & GroupSynced);
  }

  /// Where the init fence goes for init \p Init, when a relaxed arrive of
  /// this function meets it: after the init as this function sees it (the
  /// caller decides for an init of its own).
  unsigned fenceAt(unsigned Init) {
    return Init == Incoming ? NoEvent : A.pool(Known[Init]);
  }

  /// A use \p E of a barrier while init \p At.Init is at \p At.Flags.
  void check(const Pending &At, const Event &E) {
    unsigned Init = At.Init, Flags = At.Flags, Relaxed = At.Relaxed,
             FenceAt = At.FenceAt;
    // In a kernel known to run without a cluster, a "remote" use reaches
    // this CTA's own barrier. A use exposed to the caller keeps its kind.
    bool CrossCta = E.CrossCta && !(Init != Incoming && A.singleCta(Fn)) &&
                    !(Flags & Clusterless);
    bool Cross = CrossCta && !(Flags & Published);
    bool Cta = !CrossCta && !(Flags & CtaSynced) &&
               !ownersSynced(Init, Flags, E);
    bool Proxy = A.RequireProxyFence && isAsync(E) && !(Flags & ProxyFenced);
    if (A.Tracer && Init != Incoming)
      traceUse(Known[Init], E, CrossCta, Cross, Cta, Proxy);
    if (!Cross && !Cta && !Proxy)
      return;
    if (Init == Incoming) {
      // The caller matches it with its init (barrier, thread) and reports.
      auto Key = std::make_tuple(E.At.S, E.Loc.getRawEncoding(),
                                 unsigned(E.Kind), Flags, Relaxed, At.Named);
      if (ExposedUses.insert(Key).second)
        Out.Uses.push_back({E, {Flags, Relaxed, FenceAt, At.Named}});
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

  /// --trace: a traced init was seen, whether or not any use reaches it.
  void traceInit(const Event &I) {
    if (!A.Tracer || !A.Tracer->targets(I))
      return;
    Trace &T = *A.Tracer;
    T.say("proxyfence: trace: mbarrier init at " + T.where(I.Loc) + " (in '" +
          (shownAt(I).Fn ? shownAt(I).Fn->getNameAsString() : std::string()) +
          "'): analysed; each use checked against it is listed (none: no "
          "use follows it, or a cluster barrier publishes it first)");
  }

  /// --trace: a use checked against a traced init.
  void traceUse(const Event &I, const Event &E, bool CrossCta, bool Cross,
                bool Cta, bool Proxy) {
    Trace &T = *A.Tracer;
    if (!T.targets(I) || !I.Mbarrier.mayAlias(E.Mbarrier))
      return;
    std::string Verdict =
        Cross ? "used by another CTA before a cluster barrier publishes the "
                "init: a hazard [proxyfence-mbarrier-init]"
        : Cta ? "used before a CTA barrier after the init: a hazard "
                "[proxyfence-mbarrier-init] unless the initialising thread "
                "uses it"
        : Proxy ? "an async-proxy use with no fence.proxy.async since the init "
                  "(--mbarrier-init-proxy-fence=require)"
        : CrossCta ? "a use by another CTA, after the init is published"
                   : "a use by this CTA, after a barrier orders the init";
    T.say("proxyfence: trace: mbarrier init at " + T.where(I.Loc) + " (in '" +
          (shownAt(I).Fn ? shownAt(I).Fn->getNameAsString() : std::string()) +
          "'): " + E.What + " at " + T.where(E.Loc) + ": " + Verdict);
  }

  void call(const CallSite &C, State &St) {
    auto lifted = [&](const InitSummary &S, unsigned K) {
      return K == NoEvent ? NoEvent
                          : Known.intern(A.Events.lift(S.Events[K], C, Fn), K);
    };
    // A relaxed arrive inside the callee met the caller's init: the fence
    // goes after the init here.
    // A named barrier inside it: the caller's own init can tell whether it
    // is the owners'.
    auto outcome = [&](const InitSummary &S, const Pending &P,
                       const InitSummary::Outcome &X) {
      Pending Q{P.Init, X.Flags, P.Relaxed, P.FenceAt, P.Named};
      if (X.Relaxed != NoEvent && P.Relaxed == NoEvent) {
        Q.Relaxed = lifted(S, X.Relaxed);
        Q.FenceAt = fenceAt(P.Init);
      }
      if (X.Named != NoEvent) {
        unsigned Named = lifted(S, X.Named);
        Q.Flags |= ownersBarrier(P.Init, Known[Named]);
        if (P.Init == Incoming)
          Q.Named = Named;
      }
      return Q;
    };
    State Next;
    Bindings Args = A.Binder.bind(C.Site, C.Def, Binds);
    for (const Pending &P : St) {
      const InitSummary &S = A.summary(C.Def, P.Flags, Args, CtaThreads);
      for (const InitSummary::Use &U : S.Uses)
        check(outcome(S, P, U.At), A.Events.lift(U.E, C, Fn));
      for (const InitSummary::Outcome &X : S.Exits)
        Next.push_back(outcome(S, P, X));
    }
    const InitSummary &Own = A.summary(C.Def, NoIncoming, Args, CtaThreads);
    Out.ClusterBarrier |= Own.ClusterBarrier;
    for (const InitSummary::Down &D : Own.Inits) {
      unsigned Init = lifted(Own, D.Init);
      traceInit(Known[Init]);
      Next.push_back({Init, D.At.Flags, lifted(Own, D.At.Relaxed),
                      D.At.FenceAt});
    }
    normalize(Next);
    St.swap(Next);
  }

  MbarrierAnalyzer &A;
  const FunctionDecl *Fn;
  unsigned In;
  const Bindings &Binds;
  InitSummary &Out;
  EventTable Known;
  std::set<std::tuple<const Stmt *, unsigned, unsigned, unsigned, unsigned,
                      unsigned>>
      ExposedUses;
  /// The kernel's block size, where __launch_bounds__ fixes it; 0 else.
  unsigned CtaThreads;
};

MbarrierAnalyzer::MbarrierAnalyzer(ASTContext &Ctx, EventExtractor &Events,
                                   bool RequireProxyFence)
    : Ctx(Ctx), Events(Events), RequireProxyFence(RequireProxyFence),
      Binder(Ctx) {}
MbarrierAnalyzer::~MbarrierAnalyzer() = default;

const MbarrierAnalyzer::InitSummary &
MbarrierAnalyzer::summary(const FunctionDecl *Def, unsigned In,
                          const Bindings &B, unsigned CtaThreads) {
  if (!B.empty() && Summaries.inProgress(Def))
    return summary(Def, In, Bindings(), CtaThreads);
  // Recursion and bodiless callees: the incoming state passes unchanged.
  auto Transparent = [In](InitSummary &S) {
    if (In != NoIncoming)
      S.Exits.push_back({In, NoEvent});
  };
  return Summaries.get(std::make_tuple(Def, In, B, CtaThreads), Def,
                       Transparent, [&](InitSummary &Result) {
                         if (Def->getBody())
                           InitFunctionRun(*this, Def, In, B, Result,
                                           CtaThreads)
                               .run();
                         else
                           Transparent(Result);
                       });
}

void MbarrierAnalyzer::analyze(const FunctionDecl *Fn) {
  summary(Fn, NoIncoming, Bindings(), launchBoundThreads(Fn, Ctx));
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

bool MbarrierAnalyzer::initByEachGroup(const Event &Init, const Event &Use) {
  if (!Init.At.Fn)
    return false;
  ThreadGroups &Groups = Events.memory().groups();
  const ParentMap &PM = parents(Init.At.Fn);
  // A branch around both lets the same groups init and use.
  auto encloses = [&](const Stmt *If, StmtRef At) {
    if (At.Fn != Init.At.Fn)
      return false;
    for (const Stmt *P = At.S; P; P = PM.getParent(P))
      if (P == If)
        return true;
    return false;
  };
  // Or the use's own branches pick the same groups: the init under
  // `warp >= k && elect()`, the use in the else-branch of `warp < k`.
  std::vector<BranchFact> UseFacts;
  if (Use.At.Fn == Init.At.Fn && Use.At.S)
    UseFacts = factsAt(Ctx, PM, Use.At.S);
  // Each other part of the init's guard must pick threads within every
  // warp alike (`lane == 0`, `elect()`), and a shared part must read the
  // same values at both.
  auto sameGroupsAtUse = [&](const IfStmt *If, bool Then) {
    for (const BranchFact &F : conjunctsOf(Ctx, If->getCond(), Then)) {
      bool Shared = states(UseFacts, F) && Groups.unchanging(F.E);
      if (!Shared && (Groups.tellsGroupsApart(F.E) ||
                      Groups.readsWarpGroupIndex(F.E)))
        return false;
    }
    return true;
  };
  const Stmt *S = Init.At.S;
  for (const Stmt *P = PM.getParent(S); P; S = P, P = PM.getParent(P))
    if (const auto *If = dyn_cast<IfStmt>(P);
        If && S != If->getCond() && !encloses(If, Use.At) &&
        Groups.tellsGroupsApart(If->getCond()) &&
        !sameGroupsAtUse(If, S == If->getThen()))
      return false;
  return true;
}

bool relaxedOnly(const InitFinding &F) {
  return F.Kind == InitHazard::Cta && F.Relaxed && F.ClusterSynced;
}

} // namespace proxyfence
