//===- ProxyDataflow.cpp - proxy dataflow over clang's CFG ----------------------===//
#include "analysis/ProxyDataflow.h"
#include "model/ConstantArms.h"
#include "analysis/CfgReach.h"
#include "model/ThreadInvariance.h"
#include "analysis/Dataflow.h"
#include "clang/AST/Attr.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMap.h"
#include "clang/Analysis/CFG.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/STLExtras.h"
#include <algorithm>
#include <map>
#include <optional>
#include <set>

using namespace clang;

namespace proxyfence {

const char *asyncOpName(AsyncOp Op) {
  switch (Op) {
  case AsyncOp::BulkStore:
    return "bulk async store";
  case AsyncOp::TensorStore:
    return "TMA store";
  case AsyncOp::ReduceStore:
    return "bulk async reduction";
  case AsyncOp::BulkLoad:
    return "bulk async load";
  case AsyncOp::TensorLoad:
    return "TMA load";
  case AsyncOp::Wgmma:
    return "wgmma";
  case AsyncOp::Tcgen05Mma:
    return "tcgen05.mma";
  case AsyncOp::Tcgen05Cp:
    return "tcgen05.cp";
  case AsyncOp::TryCancel:
    return "clusterlaunchcontrol.try_cancel";
  case AsyncOp::Tcgen05Ld:
    return "tcgen05.ld";
  case AsyncOp::Tcgen05St:
    return "tcgen05.st";
  case AsyncOp::Tcgen05Shift:
    return "tcgen05.shift";
  case AsyncOp::None:
    break;
  }
  return "async-proxy operation";
}

namespace {
/// Index of the pending entry standing for "whatever the caller left
/// unfenced" while a function is summarised.
constexpr unsigned Incoming = ~0u;
/// The same after a proxy fence: arrives it meets are fenced from the entry
/// (ProxySummary::FencedArrives).
constexpr unsigned FencedIncoming = ~0u - 1;
/// Pending entries from WaitTokenBase up stand for "after mbarrier wait K":
/// async operations they meet are matched with other roles' arrives.
constexpr unsigned WaitTokenBase = 1u << 30;
/// From FencedWaitBase up: "after wait K, with a proxy fence since on some
/// path"; an arrive such a token meets, and no unfenced one, is a relay.
constexpr unsigned FencedWaitBase = WaitTokenBase + (1u << 29);
/// Waits followed as fenced, and arrives remembered per access: the first
/// ones of a function (a bit mask each), which bounds the cost in kernels
/// unrolled into thousands of barriers.
constexpr unsigned RelayLimit = 64;
/// Relays a summary keeps: the waits and arrives of a kernel's roles pair
/// up into many.
constexpr unsigned RelaysKept = 256;
bool isAccess(unsigned Access) { return Access < WaitTokenBase; }
bool isWaitToken(unsigned A) { return A >= WaitTokenBase && A < FencedWaitBase; }
bool isFencedWait(unsigned A) { return A >= FencedWaitBase && A < FencedIncoming; }

struct Pending {
  unsigned Access;
  StmtRef Handoff;
  /// The arms of template-constant branches taken since the access
  /// (ConstantArms.h): an instantiation takes the same one further on.
  ArmSet Arms = 0;
  /// The arrives (bits of ProxyFunctionRun's arrival indices) crossed since
  /// the access: a relay of one of their barriers may end it (RoleRelay).
  uint64_t Arrived = 0;
  bool operator<(const Pending &O) const {
    return std::tie(Access, Handoff.S, Arms, Arrived) <
           std::tie(O.Access, O.Handoff.S, O.Arms, O.Arrived);
  }
  bool operator==(const Pending &O) const {
    return Access == O.Access && Handoff.S == O.Handoff.S && Arms == O.Arms &&
           Arrived == O.Arrived;
  }
};
using State = std::vector<Pending>; // sorted, unique

void setHandoff(State &S, StmtRef At) {
  for (Pending &P : S)
    if (!P.Handoff && !isFencedWait(P.Access) && P.Access != FencedIncoming)
      P.Handoff = At;
  normalize(S);
}

/// A proxy fence: the accesses end; waits, and what the caller left, go on
/// as fenced (RoleRelay).
void fenceState(State &St) {
  State Out;
  for (const Pending &P : St) {
    if (P.Access == Incoming || P.Access == FencedIncoming)
      Out.push_back(Pending{FencedIncoming, {}});
    else if (isWaitToken(P.Access) && P.Access - WaitTokenBase < RelayLimit)
      Out.push_back(Pending{FencedWaitBase + (P.Access - WaitTokenBase), {}});
    else if (isFencedWait(P.Access))
      Out.push_back(Pending{P.Access, {}});
  }
  normalize(Out);
  St.swap(Out);
}

/// The arms of template-constant conditions (ConstantArms.h) that one
/// function's paths take: an instantiation takes the same arm every time.
class TemplateArms {
public:
  TemplateArms(ASTContext &Ctx, const FunctionDecl *Fn) : Ctx(Ctx), Fn(Fn) {}

  /// Keeps the pending entries that took \p Succ's arm of a template-constant
  /// condition whenever they met it before, and records the arm.
  void sameArm(const CFGBlock &B, unsigned Succ, State &St) {
    std::optional<ArmBits> Arm = Conditions.armOf(B, Succ, Ctx);
    if (!Arm)
      return;
    State Kept;
    for (Pending P : St)
      if (!(P.Arms & Arm->Other)) {
        P.Arms |= Arm->Took;
        Kept.push_back(P);
      }
    normalize(Kept);
    St.swap(Kept);
  }

  /// The arms that enclose \p S: an access made there has taken them, and
  /// further on takes the same ones.
  ArmSet armsAt(const Stmt *S) {
    auto [It, New] = ArmsAt.try_emplace(S, 0);
    if (New)
      It->second = enclosingArms(S);
    return It->second;
  }

  /// Whether \p X and \p Y lie in different arms of one template-constant
  /// condition, which no instantiation both runs.
  bool otherArms(const Stmt *X, const Stmt *Y) {
    ArmSet AX = enclosingArms(X), AY = enclosingArms(Y);
    constexpr ArmSet TrueBits = 0x5555555555555555ull;
    ArmSet Swapped = ((AY & TrueBits) << 1) | ((AY >> 1) & TrueBits);
    return AX & Swapped;
  }

private:
  /// The arms of template-constant `if`s that enclose \p S in the body.
  ArmSet enclosingArms(const Stmt *S) {
    if (!Parents)
      Parents = std::make_unique<ParentMap>(const_cast<Stmt *>(Fn->getBody()));
    ArmSet Arms = 0;
    for (const Stmt *Child = S, *P = S ? Parents->getParent(S) : nullptr; P;
         Child = P, P = Parents->getParent(P)) {
      const auto *If = dyn_cast<IfStmt>(P);
      if (!If || (Child != If->getThen() && Child != If->getElse()))
        continue;
      if (auto C = Conditions.of(If->getCond(), Ctx)) {
        bool True = (Child == If->getThen()) != C->second;
        Arms |= armBit(C->first, True);
      }
    }
    return Arms;
  }

  ASTContext &Ctx;
  const FunctionDecl *Fn;
  ConstantConditions Conditions;
  std::unique_ptr<ParentMap> Parents;
  llvm::DenseMap<const Stmt *, ArmSet> ArmsAt;
};

} // namespace

/// The role records of one function (Roles.h): each arrive with the
/// accesses pending there, each wait with the async operations after it.
/// They pair across the function's paths that never meet, and with the
/// records lifted from its callees.
class Analyzer::ProxyFunctionRoles {
public:
  explicit ProxyFunctionRoles(Analyzer &A) : A(A) {}

  /// Index of the arrive \p E, the same for every visit of its statement.
  unsigned arriveIndex(const Event &E) {
    return indexOf(E, ArriveIndex, ArriveEvents);
  }
  /// Access \p Access is pending at arrive \p Ai, first handed off at
  /// \p Handoff.
  void pendingAtArrive(unsigned Ai, unsigned Access, StmtRef Handoff) {
    if (ArriveSeen.insert({Ai, Access, Handoff.S}).second)
      ArriveRecs.push_back({Ai, Access, Handoff});
  }
  /// Index of the wait \p E, the same for every visit of its statement.
  unsigned waitIndex(const Event &E) { return indexOf(E, WaitIndex, Waits); }
  const Event &waitEvent(unsigned K) const { return Waits[K]; }
  /// The async operation \p E (\p Ordinal of its statement) runs after
  /// wait \p K.
  void asyncAfterWait(unsigned K, const Event &E, unsigned Ordinal) {
    if (WaitAsyncSeen.insert({K, E.At.S, E.Loc.getRawEncoding(), Ordinal})
            .second)
      WaitAsyncs.push_back({K, E});
  }
  /// A callee's role records, lifted to the call site by \p Lift.
  void lift(const ProxySummary &Sm,
            llvm::function_ref<Event(const Event &)> Lift) {
    for (const RoleArrive &R : Sm.RoleArrives) {
      RoleArrive L = R;
      L.Arrive = Lift(R.Arrive);
      L.Access.Mem = Lift(R.Access).Mem;
      LiftedArrives.add(L);
    }
    for (const RoleWait &R : Sm.RoleWaits) {
      RoleWait L = R;
      L.Wait = Lift(R.Wait);
      L.Async.Mem = Lift(R.Async).Mem;
      if (L.Async.Mem.empty() && !L.Async.Mem.onlyKernelArgument())
        L.Async.Mem = AliasSet::unknown();
      LiftedWaits.add(L);
    }
  }

  /// Whether there is an arrive and a wait to pair, its own or lifted.
  bool hasBothEnds() const {
    return (!ArriveEvents.empty() || LiftedArrives.size()) &&
           (!Waits.empty() || LiftedWaits.size());
  }

  /// Warp-specialised kernels: role A writes (or reads) smem and arrives on
  /// a barrier (an mbarrier, or a named barrier by `bar.arrive`/`bar.sync`);
  /// role B waits on the same barrier and issues the async op. No single
  /// path holds both, so pair each arrive with each wait instead.
  void matchRoles(CfgReach &Reach, TemplateArms &Arms,
                  const std::vector<Event> &Accesses,
                  llvm::function_ref<void(Finding)> Report) {
    for (unsigned Ai = 0; Ai < ArriveEvents.size(); ++Ai)
      for (unsigned K = 0; K < Waits.size(); ++K) {
        const Event &Arr = ArriveEvents[Ai], &Wait = Waits[K];
        bool Named = Arr.Kind == EffectKind::Barrier;
        if (Named != (Wait.Kind == EffectKind::Barrier))
          continue;
        // Roles are paths that never meet. On one path the dataflow itself
        // carries the accesses to the wait (and sees the fences between
        // them); a wait before the arrive on a path is an earlier barrier
        // instance of the same threads.
        if (onePath(Reach, Arr.At.S, Wait.At.S))
          continue;
        // Arms of one template-constant condition are not two roles: every
        // thread of an instantiation takes the same one.
        if (Arms.otherArms(Arr.At.S, Wait.At.S))
          continue;
        BarrierId::Match M =
            Named ? sameNamedBarrier(Arr, Wait)
                  : sameMbarrier(Arr, Wait, /*AliasIsSame=*/true);
        if (A.Tracer)
          for (const ArriveRecord &R : ArriveRecs)
            for (const auto &[WK, Async] : WaitAsyncs)
              if (R.Arrive == Ai && WK == K)
                A.traceRolePair(Arr, Accesses[R.Access], Wait, Async, M);
        if (M == BarrierId::Match::Different)
          continue;
        bool Hazard =
            llvm::any_of(ArriveRecs,
                         [&](const ArriveRecord &R) { return R.Arrive == Ai; }) &&
            llvm::any_of(WaitAsyncs,
                         [&](const auto &W) { return W.first == K; });
        if (M == BarrierId::Match::Unknown) {
          // A blind spot: said in --stats, never guessed into a finding.
          if (Hazard)
            A.noteRolePair(Arr, Wait, /*Matched=*/false);
          continue;
        }
        A.noteRolePair(Arr, Wait, /*Matched=*/true);
        for (const ArriveRecord &R : ArriveRecs) {
          if (R.Arrive != Ai)
            continue;
          const Event &Acc = Accesses[R.Access];
          for (const auto &[WK, Async] : WaitAsyncs) {
            if (WK != K || liftedTogether(Wait, Async))
              continue;
            for (const Rule *Ru : A.Rules)
              if (Ru->MatchesAccess(Acc.Kind) && Ru->MatchesAsync(Async) &&
                  Acc.Mem.mayAlias(Async.Mem))
                Report(Finding{Ru, Acc, Async, R.Handoff});
          }
        }
      }
  }

  /// Role records lifted from callees meet this function's own and each
  /// other (Roles.h); all of them go up in the summary.
  void pairAcrossCalls(CfgReach &Reach, const std::vector<Event> &Accesses,
                       llvm::function_ref<void(Finding)> Report,
                       ProxySummary &Out) {
    RoleRecordSet<RoleArrive> ArriveSet;
    RoleRecordSet<RoleWait> WaitSet;
    // The role function's own statements, which messages show wherever
    // the records are lifted to.
    for (const ArriveRecord &R : ArriveRecs)
      ArriveSet.add({ArriveEvents[R.Arrive], withOrigin(Accesses[R.Access]),
                     R.Handoff});
    for (const auto &[K, Async] : WaitAsyncs)
      if (!liftedTogether(Waits[K], Async))
        WaitSet.add({Waits[K], withOrigin(Async)});
    size_t LocalArrives = ArriveSet.size(), LocalWaits = WaitSet.size();
    for (const RoleArrive &R : LiftedArrives.records())
      ArriveSet.add(R);
    for (const RoleWait &R : LiftedWaits.records())
      WaitSet.add(R);
    std::vector<RoleArrive> Arrives = ArriveSet.take();
    std::vector<RoleWait> WaitRecs = WaitSet.take();
    for (size_t I = 0; I < Arrives.size(); ++I)
      for (size_t J = 0; J < WaitRecs.size(); ++J) {
        if (I < LocalArrives && J < LocalWaits)
          continue; // matchRoles' business
        const Stmt *AS = Arrives[I].Arrive.At.S, *WS = WaitRecs[J].Wait.At.S;
        if (onePath(Reach, AS, WS))
          continue;
        // Through report(): ends that meet only through what a caller binds
        // (a kernel class's `Params const &` beside its shared-memory
        // pointer) are the call sites' to decide.
        A.pairRoleRecords(Arrives[I], WaitRecs[J],
                          sameRoleBarrier(Arrives[I].Arrive, WaitRecs[J].Wait),
                          Report);
      }
    Out.RoleArrives = std::move(Arrives);
    Out.RoleWaits = std::move(WaitRecs);
  }

  /// Stable index of a barrier event in \p Events: one statement and place
  /// (a helper's asm through one call) may reach several barriers.
  using SyncIndex = std::map<std::pair<const Stmt *, unsigned>,
                             llvm::SmallVector<unsigned, 1>>;
  static unsigned indexOf(const Event &E, SyncIndex &Index,
                          std::vector<Event> &Events) {
    auto &Same = Index[{E.At.S, E.Loc.getRawEncoding()}];
    for (unsigned I : Same)
      if (sameBarrierOperand(Events[I], E))
        return I;
    Same.push_back(Events.size());
    Events.push_back(E);
    return Events.size() - 1;
  }

private:

  /// A wait and an async op that one callee performs: its own role records
  /// pair them, at its statements (lifted here), so they are not paired
  /// again at the call.
  static bool liftedTogether(const Event &Wait, const Event &Async) {
    return Wait.Via && Async.At.S == Wait.At.S;
  }

  /// Whether one CFG path holds both \p X and \p Y (a statement is on its
  /// own path: a `bar.sync` is not its own partner).
  static bool onePath(CfgReach &Reach, const Stmt *X, const Stmt *Y) {
    return X == Y || Reach.canFollowInThread(X, Y, /*IfUnknown=*/false) ||
           Reach.canFollowInThread(Y, X, /*IfUnknown=*/false);
  }

  Analyzer &A;
  /// Every arrive met (mbarrier arrives and CTA/named barriers).
  std::vector<Event> ArriveEvents;
  SyncIndex ArriveIndex;
  struct ArriveRecord {
    unsigned Arrive; // into ArriveEvents
    unsigned Access;
    StmtRef Handoff; // the access's first hand-off: this arrive or earlier
  };
  std::vector<ArriveRecord> ArriveRecs;
  std::set<std::tuple<unsigned, unsigned, const Stmt *>> ArriveSeen;
  std::vector<Event> Waits;
  SyncIndex WaitIndex;
  std::vector<std::pair<unsigned, Event>> WaitAsyncs;
  std::set<std::tuple<unsigned, const Stmt *, unsigned, unsigned>>
      WaitAsyncSeen;
  /// Role records of callees, lifted to their call sites here.
  RoleRecordSet<RoleArrive> LiftedArrives;
  RoleRecordSet<RoleWait> LiftedWaits;
};

/// The proxy dataflow over one function's CFG, with the role records
/// (ProxyFunctionRoles) it meets on the way; fills the function's summary.
/// Whether a relay's wait and arrive are on two barriers, so that its arrive
/// is not merely the next phase of the barrier it waited on. Named barriers
/// with ids not known apart may be one; an mbarrier held through a pointer
/// (a pipeline's) is taken apart from another path to one.
bool distinctBarriers(const Event &Arrive, const Event &Wait) {
  switch (sameRoleBarrier(Arrive, Wait)) {
  case BarrierId::Match::Same:
    return false;
  case BarrierId::Match::Different:
    return true;
  case BarrierId::Match::Unknown:
    return Arrive.Kind != EffectKind::Barrier || Wait.Kind != EffectKind::Barrier;
  }
  return false;
}

class Analyzer::ProxyFunctionRun {
public:
  /// \p Known: the relays a first run found (RoleRelay), which end the
  /// accesses handed through them; null on a first run.
  ProxyFunctionRun(Analyzer &A, const FunctionDecl *Fn, const Bindings &B,
                   ProxySummary &Out,
                   const std::vector<RoleRelay> *Known = nullptr)
      : A(A), Fn(Fn), Binds(B), Out(Out), Known(Known), Arms(A.Ctx, Fn),
        Roles(A) {}

  /// Whether a run that knows this run's relays would end some access
  /// this one kept: an access that crossed arrives met a wait that one of
  /// the relays joins to them. Until one does, a second run would repeat
  /// this one step for step.
  bool relaysMatter() const { return RelaysMatter; }
  /// Reports the hazards found (held back until the run is the last).
  void commit() {
    for (Finding &F : Found)
      A.addFinding(std::move(F));
    Found.clear();
    if (A.Tracer)
      for (std::string &Line : TraceLines)
        A.Tracer->say(std::move(Line));
    TraceLines.clear();
  }

  void run() {
    std::unique_ptr<CFG> G = buildCFG(Fn, A.Ctx);
    if (!G)
      return; // Out stays transparent: incoming survives, nothing exposed.
    if (A.Counted.insert(Fn).second)
      ++A.Stats.Functions;
    Reach.emplace(*G);
    std::vector<State> In = solveForward(
        *G, State{Pending{Incoming, {}}},
        [&](const Stmt *S, State &St) { transfer(S, St); },
        [](State &Into, const State &From) { return join(Into, From); },
        [&](const CFGBlock &Blk, unsigned Succ, State &St) {
          if (!Binds.feasible(Blk, Succ, A.Ctx))
            return false;
          Arms.sameArm(Blk, Succ, St);
          return true;
        });

    summariseExit(In[G->getExit().getBlockID()]);
    auto Report = [this](Finding F) { report(std::move(F)); };
    if (Roles.hasBothEnds() || !FencedPairs.empty()) {
      ThreadInvariance Fixed(A.Ctx, Fn);
      Reach->setThreadFixedBranches(
          [&](const Expr *Cond) { return Fixed.invariant(Cond); });
    }
    summariseRelays();
    if (!Known) // while the CFG that Reach walks is alive
      RelaysMatter = candidateMeetsRelay();
    Roles.matchRoles(*Reach, Arms, Accesses, Report);
    Roles.pairAcrossCalls(*Reach, Accesses, Report, Out);
    if (A.Tracer)
      traceEndings();
  }

private:
  /// --trace: the accesses \p St holds end here, for the reason \p How
  /// says (built only when tracing).
  template <typename Reason> void noteEnded(const State &St, Reason How) {
    if (!A.Tracer)
      return;
    std::string Text;
    for (const Pending &P : St)
      if (isAccess(P.Access) && P.Access != Incoming) {
        if (Text.empty())
          Text = How();
        Ended.insert({P.Access, Text});
      }
  }

  /// --trace: what is pending at the traced async operation \p E.
  void traceAsync(const Event &E, const State &St) {
    Trace &T = *A.Tracer;
    std::string Head = "proxyfence: trace: " + T.describe(E) + ": ";
    if (TracedAsyncs.insert({E.At.S, E.Loc.getRawEncoding()}).second)
      Traced.push_back(E);
    unsigned Apart = 0;
    for (const Pending &P : St) {
      if (P.Access == Incoming) {
        if (!Fn->hasAttr<CUDAGlobalAttr>())
          say(Head + "what callers of '" + Fn->getNameAsString() +
                "' leave unfenced reaches it; checked at their calls");
      } else if (P.Access == FencedIncoming || isFencedWait(P.Access)) {
        continue;
      } else if (!isAccess(P.Access)) {
        const Event &W = Roles.waitEvent(P.Access - WaitTokenBase);
        say(Head + "follows the " + Trace::describeSync(W) + " at " +
              T.where(W.At.S->getBeginLoc()) +
              ": other roles' accesses meet it through that barrier");
      } else if (!Accesses[P.Access].Mem.mayAlias(E.Mem)) {
        ++Apart;
      } else {
        traceAccess(T, Head, Accesses[P.Access], E, P.Handoff);
      }
    }
    if (Apart)
      say(Head + std::to_string(Apart) +
            " other unfenced accesses reach it; their memory does not "
            "overlap its own");
  }

  /// --trace: access \p Acc reaches the traced operation \p E unfenced.
  void traceAccess(Trace &T, const std::string &Head, const Event &Acc,
                   const Event &E, StmtRef Handoff) {
    // Memory that meets only through parameters: each call decides.
    bool Deferred =
        !Fn->hasAttr<CUDAGlobalAttr>() && !Acc.Mem.mayAliasLocally(E.Mem);
    std::string Across =
        Handoff ? " (across the barrier at " +
                      T.where(Handoff.S->getBeginLoc()) + ")"
                : std::string();
    bool Ruled = false;
    for (const Rule *R : A.Rules)
      if (R->MatchesAccess(Acc.Kind) && R->MatchesAsync(E)) {
        Ruled = true;
        say(Head + T.describe(Acc) + " reaches it with no proxy fence" +
              Across +
              (Deferred ? ": the two meet only through what callers of '" +
                              Fn->getNameAsString() +
                              "' pass; each call decides [" +
                              std::string(R->Name) + "]"
                        : ": a hazard [" + std::string(R->Name) + "]"));
      }
    if (!Ruled)
      say(Head + T.describe(Acc) +
          " reaches it with no proxy fence; no rule pairs the two "
            "(not a hazard)");
  }

  /// --trace: accesses of the traced operations' memory that a fence or a
  /// fencing call ended in this function.
  void traceEndings() {
    Trace &T = *A.Tracer;
    for (const Event &E : Traced)
      for (const auto &[Access, How] : Ended)
        if (Accesses[Access].Mem.mayAlias(E.Mem))
          say("proxyfence: trace: " + T.describe(E) + ": " +
                T.describe(Accesses[Access]) + ": " + How);
  }

  /// Records the accesses pending at an arrive (mbarrier or named barrier),
  /// marks them as handed through it, and the waits it follows (RoleRelay).
  void arrive(const Event &E, State &St) {
    unsigned Ai = Roles.arriveIndex(E);
    unsigned Bi = arrivalIndex(E);
    for (Pending &P : St) {
      if (P.Access == Incoming) {
        IncomingArrivals.insert(Bi);
        if (ExposedArrives.insert(Ai).second)
          Out.Arrives.push_back(E);
      } else if (P.Access == FencedIncoming) {
        FencedEntry.insert(Bi);
      } else if (isWaitToken(P.Access)) {
        UnfencedPairs.insert({P.Access - WaitTokenBase, Bi});
      } else if (isFencedWait(P.Access)) {
        FencedPairs.insert({P.Access - FencedWaitBase, Bi});
      } else if (isAccess(P.Access)) {
        // The fence goes before the access's first hand-off, as on a single
        // path: an earlier arrive (the consumer's "empty" arrive) already
        // needs it, and a fence there covers this arrive too.
        StmtRef Handoff = P.Handoff ? P.Handoff : E.At;
        Roles.pendingAtArrive(Ai, P.Access, Handoff);
        if (Bi < RelayLimit)
          P.Arrived |= uint64_t(1) << Bi;
      }
    }
    normalize(St);
  }

  /// A callee's arrive that its fences precede on every path: a wait of
  /// this function before the call and it make a relay.
  void fencedArrive(const Event &E, const State &St) {
    unsigned Bi = arrivalIndex(E);
    for (const Pending &P : St) {
      if (P.Access == Incoming || P.Access == FencedIncoming)
        FencedEntry.insert(Bi);
      else if (isWaitToken(P.Access) && P.Access - WaitTokenBase < RelayLimit)
        FencedPairs.insert({P.Access - WaitTokenBase, Bi});
      else if (isFencedWait(P.Access))
        FencedPairs.insert({P.Access - FencedWaitBase, Bi});
    }
  }

  void wait(const Event &E, State &St) {
    endRelayed(E, St);
    St.push_back(Pending{WaitTokenBase + Roles.waitIndex(E), {}});
    normalize(St);
  }

  /// Stable index of an arrive among those this function meets (its own,
  /// and its callees' arrives it lifts), for Pending::Arrived and relays.
  unsigned arrivalIndex(const Event &E) {
    return ProxyFunctionRoles::indexOf(E, ArrivalIndex, Arrivals);
  }

  /// One of \p Relays that ends an access which crossed the arrives
  /// \p Arrived, at the wait \p W: it waits on one of their barriers and,
  /// after its fence, arrives on \p W's. A relay through one barrier (a
  /// `bar.sync` both roles pass) hands nothing on: its arrive is the next
  /// phase's. The arrive must be able to follow \p W (both in the loop of
  /// the roles): a pipeline's first wait on an "empty" barrier passes with
  /// no arrive at all, so an access handed over before the loop (a
  /// prologue every thread runs) is not ordered by the relay. A call that
  /// both arrives and waits (a producer's acquire: wait on "empty", arrive
  /// on "full") is not taken to arrive before it waits.
  const RoleRelay *relayOf(const std::vector<RoleRelay> &Relays,
                           uint64_t Arrived, const Event &W) {
    for (unsigned B = 0; B < Arrivals.size() && B < RelayLimit; ++B) {
      if (!(Arrived >> B & 1))
        continue;
      for (const RoleRelay &R : Relays)
        if (sameRoleBarrier(Arrivals[B], R.Wait) == BarrierId::Match::Same &&
            sameRoleBarrier(R.Arrive, W) == BarrierId::Match::Same &&
            distinctBarriers(R.Arrive, R.Wait) &&
            !waitsBefore(R.Wait, Arrivals[B]) && Arrivals[B].At.S != W.At.S &&
            Reach->canFollow(W.At.S, Arrivals[B].At.S, /*IfUnknown=*/false))
          return &R;
    }
    return nullptr;
  }

  /// Whether the relay's wait runs before the arrive and never after it (a
  /// `__syncthreads` ahead of the role dispatch): the fence that follows it
  /// precedes the access. Roles in sibling branches follow neither way.
  bool waitsBefore(const Event &RelayWait, const Event &Arrive) {
    return !Reach->canFollow(Arrive.At.S, RelayWait.At.S, /*IfUnknown=*/true) &&
           Reach->canFollow(RelayWait.At.S, Arrive.At.S, /*IfUnknown=*/false);
  }

  /// Records that accesses which crossed the arrives \p Arrived met \p W,
  /// once per wait on one barrier (waits lifted through one helper share a
  /// statement and a location).
  void addCandidate(uint64_t Arrived, const Event &W) {
    auto &Same = CandidateSeen[{Arrived, W.At.S, W.Loc.getRawEncoding()}];
    for (unsigned K : Same)
      if (sameRoleBarrier(Candidates[K].second, W) == BarrierId::Match::Same)
        return;
    Same.push_back(Candidates.size());
    Candidates.emplace_back(Arrived, W);
  }

  bool candidateMeetsRelay() {
    return llvm::any_of(Candidates, [&](const auto &C) {
      return relayOf(Out.Relays, C.first, C.second) != nullptr;
    });
  }

  /// The wait \p W ends the accesses of \p St that a known relay fenced on
  /// their way to it (RoleRelay).
  void endRelayed(const Event &W, State &St) {
    if (!Known) {
      llvm::SmallDenseSet<uint64_t, 8> Masks; // many accesses, few masks
      for (const Pending &P : St)
        if (isAccess(P.Access) && P.Arrived && Masks.insert(P.Arrived).second)
          addCandidate(P.Arrived, W);
      return;
    }
    if (Known->empty() || !llvm::any_of(St, [](const Pending &P) {
          return isAccess(P.Access) && P.Arrived;
        }))
      return;
    State Kept;
    for (const Pending &P : St) {
      const RoleRelay *R = isAccess(P.Access) ? relayOf(*Known, P.Arrived, W) : nullptr;
      if (!R) {
        Kept.push_back(P);
        continue;
      }
      if (A.Tracer)
        Ended.insert(
            {P.Access,
             "ended at the wait at " + A.Tracer->where(W.At.S->getBeginLoc()) +
                 " by the proxy fence of the role that waits on the " +
                 Trace::describeSync(R->Wait) + " at " +
                 A.Tracer->where(shownAt(R->Wait).S->getBeginLoc()) +
                 ", then fences and arrives on the " +
                 Trace::describeSync(R->Arrive) + " at " +
                 A.Tracer->where(shownAt(R->Arrive).S->getBeginLoc()) +
                 " (a proxy fence anywhere on the causality path orders "
                 "the proxies)"});
    }
    St.swap(Kept);
  }

  void transfer(const Stmt *S, State &St) {
    if (auto C = A.Events.extract(
            S, Fn,
            [&](const Event &E, unsigned Ordinal) { apply(E, St, Ordinal); },
            &Binds))
      applySummary(A.analyze(C->Def, A.Binder.bind(C->Site, C->Def, Binds)), *C,
                   St);
  }

  void applySummary(const ProxySummary &Sm, const CallSite &C, State &St) {
    StmtRef Here{C.Site, Fn};
    auto lift = [&](const Event &Inner) { return A.Events.lift(Inner, C, Fn); };
    // 1. Async operations the callee issues before any fence of its own.
    for (size_t I = 0; I < Sm.UpwardAsync.size(); ++I) {
      const ProxySummary::ExposedAsync &U = Sm.UpwardAsync[I];
      Event E = lift(U.E);
      if (A.Tracer && A.Tracer->targets(U.E))
        A.Tracer->mark(E);
      if (E.Mem.onlyKernelArgument()) // not this CTA's shared memory
        continue;
      if (E.Mem.empty())
        E.Mem = AliasSet::unknown();
      // The callee's waits before it, which a relay may have fenced.
      llvm::SmallVector<const RoleWait *, 2> WaitsBefore;
      for (const RoleWait &W : Sm.RoleWaits)
        if (W.Async.Loc == U.E.Loc)
          WaitsBefore.push_back(&W);
      if (!U.AfterBarrier && WaitsBefore.empty()) {
        checkAsync(E, St, I);
        continue;
      }
      State Tmp = St;
      if (U.AfterBarrier)
        setHandoff(Tmp, Here);
      for (const RoleWait *W : WaitsBefore)
        endRelayed(lift(W->Wait), Tmp);
      checkAsync(E, Tmp, I);
    }
    // Hazards inside the callee between what its parameters designate.
    for (const Finding &D : Sm.Deferred) {
      Event Acc = lift(D.Access), Async = lift(D.Async);
      if (Async.Mem.onlyKernelArgument())
        continue;
      if (Async.Mem.empty())
        Async.Mem = AliasSet::unknown();
      if (Acc.Mem.mayAlias(Async.Mem))
        report(Finding{D.R, std::move(Acc), std::move(Async), D.Handoff});
    }
    for (const Event &Arr : Sm.Arrives)
      arrive(lift(Arr), St);
    for (const Event &Arr : Sm.FencedArrives)
      fencedArrive(lift(Arr), St);
    for (const RoleRelay &R : Sm.Relays)
      addRelay({lift(R.Wait), lift(R.Arrive)});
    A.Called.insert(C.Def);
    Roles.lift(Sm, lift);
    // 2. The callee's fences and barriers act on what is pending here.
    if (!Sm.IncomingSurvives) {
      noteEnded(St, [&] {
        return "ended by the call to '" + C.Def->getNameAsString() + "' at " +
               A.Tracer->where(C.Site->getBeginLoc()) +
               ", which fences on every path";
      });
      fenceState(St);
    } else if (Sm.IncomingCrossesBarrier)
      setHandoff(St, Here);
    // 3. Accesses the callee leaves unfenced.
    unsigned Ordinal = 0;
    for (const ProxySummary::ExposedAccess &D : Sm.DownwardAccesses) {
      Event E = lift(D.E);
      if (E.Mem.empty())
        continue;
      Pending P{accessIndex(E, Ordinal++), D.Handoff};
      P.Arms = Arms.armsAt(C.Site);
      for (const Event &Arr : D.ArrivedAfter)
        if (unsigned Bi = arrivalIndex(lift(Arr)); Bi < RelayLimit)
          P.Arrived |= uint64_t(1) << Bi;
      St.push_back(P);
    }
    for (const Event &W : Sm.ExitWaits)
      wait(lift(W), St);
    normalize(St);
  }

  /// Stable index of an access, so that every fixed-point iteration over a
  /// statement names its accesses the same way.
  unsigned accessIndex(const Event &E, unsigned Ordinal) {
    auto Key = std::make_tuple(E.At.S, Ordinal, unsigned(E.Kind));
    auto It = AccessIndex.find(Key);
    if (It != AccessIndex.end())
      return It->second;
    Accesses.push_back(E);
    return AccessIndex[Key] = Accesses.size() - 1;
  }

  void apply(const Event &E, State &St, unsigned Ordinal = 0) {
    switch (E.Kind) {
    case EffectKind::GenericWrite:
    case EffectKind::GenericRead: {
      Pending P{accessIndex(E, Ordinal), {}};
      P.Arms = Arms.armsAt(E.At.S);
      St.push_back(P);
      normalize(St);
      return;
    }
    case EffectKind::ProxyFence:
      if (fenceCoversShared(E.Space)) {
        noteEnded(St, [&] {
          return "ended by the proxy fence at " + A.Tracer->where(E.Loc);
        });
        fenceState(St);
      }
      return;
    case EffectKind::AsyncRead:
    case EffectKind::AsyncWrite:
      checkAsync(E, St, Ordinal);
      return;
    case EffectKind::MbarrierArrive:
      arrive(E, St);
      setHandoff(St, E.At);
      return;
    case EffectKind::MbarrierWait:
      wait(E, St);
      return;
    case EffectKind::Barrier:
      // A CTA or named barrier is an arrive and (unless bar.arrive) a wait:
      // `bar.arrive 1` in one role meets `bar.sync 1` in another.
      if (E.Scope != BarrierScope::Warp) {
        arrive(E, St);
        setHandoff(St, E.At);
        if (!E.ArriveOnly)
          wait(E, St);
        return;
      }
      setHandoff(St, E.At);
      return;
    default:
      if (isHandoff(E))
        setHandoff(St, E.At);
      return;
    }
  }

  /// \p Ordinal tells apart the async effects of one statement (wgmma's A
  /// and B descriptors are two reads of possibly different memory).
  void checkAsync(const Event &E, const State &St, unsigned Ordinal) {
    if (A.Tracer && A.Tracer->targets(E)) {
      A.Tracer->mark(E);
      traceAsync(E, St);
    }
    for (const Pending &P : St) {
      if (P.Access == Incoming) {
        auto Key = std::make_tuple(E.At.S, E.Loc.getRawEncoding(), Ordinal,
                                   bool(P.Handoff));
        if (Exposed.insert(Key).second)
          Out.UpwardAsync.push_back({E, bool(P.Handoff)});
        continue;
      }
      if (P.Access == FencedIncoming || isFencedWait(P.Access))
        continue;
      if (!isAccess(P.Access)) {
        unsigned K = P.Access - WaitTokenBase;
        Roles.asyncAfterWait(K, E, Ordinal);
        continue;
      }
      const Event &Acc = Accesses[P.Access];
      for (const Rule *R : A.Rules)
        if (R->MatchesAccess(Acc.Kind) && R->MatchesAsync(E) &&
            Acc.Mem.mayAlias(E.Mem))
          report(Finding{R, Acc, E, P.Handoff});
    }
  }

  /// A hazard of this function: a finding, unless its two ends meet only
  /// through what a caller binds to the parameters or `*this` (a wrapper's
  /// `const coord &idx` read beside its TMA load into `dst`); then each call
  /// site decides it with the arguments.
  void report(Finding F) {
    if (!Fn->hasAttr<CUDAGlobalAttr>() &&
        !F.Access.Mem.mayAliasLocally(F.Async.Mem)) {
      // Messages show this function's statements, where the hazard is.
      F.Access = withOrigin(std::move(F.Access));
      F.Async = withOrigin(std::move(F.Async));
      auto Key = std::make_tuple(F.R, F.Access.At.S, F.Access.Loc.getRawEncoding(),
                                 F.Async.At.S, F.Async.Loc.getRawEncoding(),
                                 F.Handoff.S, F.Async.Mem.describeMemory());
      if (DeferredSeen.insert(Key).second)
        Out.Deferred.push_back(std::move(F));
      return;
    }
    Found.push_back(std::move(F));
  }

  /// A --trace line of this function's, said once the run is the last.
  void say(std::string Line) { TraceLines.push_back(std::move(Line)); }

  /// What the exit state tells callers: whether their accesses survive,
  /// the accesses left unfenced (each with the arrives it crossed on every
  /// path), the waits still in force.
  void summariseExit(const State &Exit) {
    Out.IncomingSurvives = false;
    std::set<unsigned> ExitWaits;
    // One entry per access and hand-off, whatever arms the paths took.
    std::map<std::pair<unsigned, const Stmt *>, size_t> ExitAccesses;
    std::vector<uint64_t> Crossed;
    for (const Pending &P : Exit) {
      if (P.Access == Incoming) {
        Out.IncomingSurvives = true;
        Out.IncomingCrossesBarrier |= bool(P.Handoff);
      } else if (isAccess(P.Access)) {
        auto [It, New] = ExitAccesses.try_emplace({P.Access, P.Handoff.S},
                                                  Crossed.size());
        if (!New) {
          Crossed[It->second] &= P.Arrived;
          continue;
        }
        Out.DownwardAccesses.push_back({Accesses[P.Access], P.Handoff, {}});
        Crossed.push_back(P.Arrived);
      } else if (isWaitToken(P.Access) &&
                 ExitWaits.insert(P.Access - WaitTokenBase).second) {
        Out.ExitWaits.push_back(Roles.waitEvent(P.Access - WaitTokenBase));
      }
    }
    for (size_t I = 0; I < Crossed.size(); ++I)
      for (unsigned B = 0; B < Arrivals.size() && B < RelayLimit; ++B)
        if (Crossed[I] >> B & 1)
          Out.DownwardAccesses[I].ArrivedAfter.push_back(Arrivals[B]);
  }

  /// This function's relays (a wait, then a fence on every path, then an
  /// arrive; its callees' were added as they were met) and its arrives
  /// that a fence precedes on every path from the entry.
  void summariseRelays() {
    // The dataflow's paths include those no thread takes (a producer's
    // iteration after a consumer's, through thread-fixed branches).
    for (const auto &[K, Bi] : FencedPairs)
      if (!UnfencedPairs.count({K, Bi}) &&
          Reach->canFollowInThread(Roles.waitEvent(K).At.S,
                                   Arrivals[Bi].At.S, /*IfUnknown=*/false))
        addRelay({withOrigin(Roles.waitEvent(K)), withOrigin(Arrivals[Bi])});
    for (unsigned Bi : FencedEntry)
      if (!IncomingArrivals.count(Bi))
        Out.FencedArrives.push_back(Arrivals[Bi]);
  }

  /// Adds \p R to the summary, once, up to RelaysKept of them. A relay
  /// whose two barriers may be one hands nothing on (relayOf).
  void addRelay(RoleRelay R) {
    if (Out.Relays.size() >= RelaysKept || !distinctBarriers(R.Arrive, R.Wait))
      return;
    for (const RoleRelay &Q : Out.Relays)
      if (Q.Wait.Loc == R.Wait.Loc && Q.Arrive.Loc == R.Arrive.Loc &&
          Q.Wait.At.S == R.Wait.At.S && Q.Arrive.At.S == R.Arrive.At.S &&
          sameBarrierOperand(Q.Wait, R.Wait) &&
          sameBarrierOperand(Q.Arrive, R.Arrive))
        return;
    Out.Relays.push_back(std::move(R));
  }

  Analyzer &A;
  const FunctionDecl *Fn;
  const Bindings &Binds;
  ProxySummary &Out;
  const std::vector<RoleRelay> *Known;
  /// Hazards found, reported by commit().
  std::vector<Finding> Found;
  std::vector<std::string> TraceLines;
  /// Arrives met (Pending::Arrived bits), and for relays: the pairs of a
  /// wait (Roles' index) and an arrive reached from it with and without a
  /// fence, the arrives reached from the entry fenced and unfenced.
  std::vector<Event> Arrivals;
  ProxyFunctionRoles::SyncIndex ArrivalIndex;
  std::set<std::pair<unsigned, unsigned>> FencedPairs, UnfencedPairs;
  std::set<unsigned> FencedEntry, IncomingArrivals;
  /// First run: the arrives accesses crossed and the waits they met
  /// there (relayOf's arguments), each once.
  std::vector<std::pair<uint64_t, Event>> Candidates;
  std::map<std::tuple<uint64_t, const Stmt *, unsigned>,
           llvm::SmallVector<unsigned, 1>>
      CandidateSeen;
  bool RelaysMatter = false;
  TemplateArms Arms;
  std::vector<Event> Accesses;
  std::map<std::tuple<const Stmt *, unsigned, unsigned>, unsigned> AccessIndex;
  std::set<std::tuple<const Stmt *, unsigned, unsigned, bool>> Exposed;
  /// The async operation's memory is part of the key: one wgmma reads two
  /// operands (`sP` and `sV` of an SS GEMM), two events at one statement,
  /// and each may meet a different parameter's memory.
  std::set<std::tuple<const Rule *, const Stmt *, unsigned, const Stmt *,
                      unsigned, const Stmt *, std::string>>
      DeferredSeen;
  std::set<unsigned> ExposedArrives; // arrive indices (ProxyFunctionRoles)
  /// --trace: accesses ended by a fence (and how), traced operations met.
  std::set<std::pair<unsigned, std::string>> Ended;
  std::set<std::pair<const Stmt *, unsigned>> TracedAsyncs;
  std::vector<Event> Traced;
  std::optional<CfgReach> Reach; // once the CFG is built
  ProxyFunctionRoles Roles;
};

namespace {
/// A key of what an alias set designates relative to the function: the
/// parameters, `*this` or named objects, and which bytes of them.
void shapeOf(const AliasSet &S, std::string &Out) {
  Out += S.isUnknown() ? "{?" : "{";
  for (const MemRoot &R : S.roots())
    Out += std::to_string(R.Kind) + "/" + std::to_string(R.ParamIndex) + "/" +
           std::to_string(R.ByRef) + "/" +
           (R.Kind == MemRoot::SharedVar
                ? std::to_string(reinterpret_cast<uintptr_t>(R.Var))
                : std::string()) +
           "/" +
           std::to_string(R.Begin) + "/" + std::to_string(R.End) + "/" +
           std::to_string(R.Placed) + std::to_string(R.Carved) + "/" +
           std::to_string(reinterpret_cast<uintptr_t>(R.Place)) + "/" +
           // By name: the same member of sibling classes (the classes a
           // `conditional_t` or a member's name chooses from) is one.
           (R.Member ? R.Member->getName().str() : std::string()) + "/" +
           std::to_string(reinterpret_cast<uintptr_t>(R.Allocation)) + ";";
  Out += "}";
}

/// An event's key: its kind and, for async operations, the rules it
/// completes (a TMA store and a TMA reduce-add read their source alike).
void shapeOf(const Event &E, llvm::ArrayRef<const Rule *> Rules,
             std::string &Out) {
  Out += std::to_string(unsigned(E.Kind)) + ":";
  if (E.Kind == EffectKind::AsyncRead || E.Kind == EffectKind::AsyncWrite) {
    for (const Rule *R : Rules)
      Out += R->MatchesAsync(E) ? "1" : "0";
  } else {
    Out += std::to_string(unsigned(E.Op));
  }
  Out += ":" +
         std::to_string(E.ExplicitShared) + std::to_string(E.Relaxed) +
         std::to_string(E.ArriveOnly);
  shapeOf(E.Mem, Out);
  shapeOf(E.Mbarrier, Out);
  Out += ",";
}

/// What a summary exports, without the places: two functions with equal
/// keys look the same to their callers (the two classes a
/// `conditional_t<C, A, B>` chooses from, overloads of one store helper).
/// A set: the same effect twice (a 2-D and a 3-D store reading one more
/// coordinate) is no different to a caller.
std::string effectShape(const ProxySummary &S,
                        llvm::ArrayRef<const Rule *> Rules) {
  std::vector<std::string> Entries;
  auto entry = [&](const char *Tag, llvm::ArrayRef<const Event *> Events) {
    std::string E = Tag;
    for (const Event *Ev : Events)
      shapeOf(*Ev, Rules, E);
    Entries.push_back(std::move(E));
  };
  for (const ProxySummary::ExposedAsync &A : S.UpwardAsync)
    entry(A.AfterBarrier ? "a!" : "a", {&A.E});
  for (const ProxySummary::ExposedAccess &A : S.DownwardAccesses) {
    std::vector<const Event *> Events{&A.E};
    for (const Event &E : A.ArrivedAfter)
      Events.push_back(&E);
    entry(A.Handoff.S ? "d!" : "d", Events);
  }
  for (const Event &E : S.Arrives)
    entry("r", {&E});
  for (const Event &E : S.ExitWaits)
    entry("w", {&E});
  for (const Event &E : S.FencedArrives)
    entry("F", {&E});
  for (const RoleRelay &R : S.Relays)
    entry("R", {&R.Wait, &R.Arrive});
  for (const Finding &F : S.Deferred)
    entry((std::string("f") + F.R->Name).c_str(), {&F.Access, &F.Async});
  llvm::sort(Entries);
  Entries.erase(std::unique(Entries.begin(), Entries.end()), Entries.end());
  std::string Out = llvm::join(Entries, "");
  Out += "|" + std::to_string(S.RoleArrives.size()) + "/" +
         std::to_string(S.RoleWaits.size()) + "/" +
         std::to_string(S.IncomingSurvives) +
         std::to_string(S.IncomingCrossesBarrier);
  return Out;
}
} // namespace

Analyzer::Analyzer(ASTContext &Ctx, llvm::ArrayRef<const Rule *> Rules)
    : Ctx(Ctx), Rules(Rules.begin(), Rules.end()), Memory(Ctx), Binder(Ctx),
      Events(Memory, Stats.AsmStatements, Stats.AsmInstructions) {
  Events.setNoEffect([this](const FunctionDecl *Def, bool ReadsCount) {
    const ProxySummary &S = analyze(Def);
    auto isRead = [](const ProxySummary::ExposedAccess &A) {
      return A.E.Kind == EffectKind::GenericRead;
    };
    return S.UpwardAsync.empty() &&
           (ReadsCount ? S.DownwardAccesses.empty()
                       : llvm::all_of(S.DownwardAccesses, isRead)) &&
           S.Arrives.empty() && S.ExitWaits.empty() && S.Deferred.empty() &&
           S.RoleArrives.empty() && S.RoleWaits.empty() &&
           S.Relays.empty() && S.FencedArrives.empty() &&
           S.IncomingSurvives && !S.IncomingCrossesBarrier;
  });
  Events.setFencesIncoming([this](const FunctionDecl *Def) {
    return !analyze(Def).IncomingSurvives;
  });
  Events.setEffectShape(
      [this](const FunctionDecl *Def) {
        return effectShape(analyze(Def), this->Rules);
      });
}

const AnalysisStats &Analyzer::stats() {
  Stats.UnresolvedSites = Events.unresolvedCalls();
  Stats.UnresolvedCalls = Stats.UnresolvedSites.size();
  Stats.ResolvedByMemberName = Events.resolvedByMemberName();
  return Stats;
}
Analyzer::~Analyzer() = default;

const ProxySummary &Analyzer::analyze(const FunctionDecl *Fn,
                                      const Bindings &B) {
  if (!B.empty() && Summaries.inProgress(Fn))
    return analyze(Fn, Bindings());
  return Summaries.get(
      std::make_pair(Fn, B), Fn, [](ProxySummary &) {}, // seed: transparent
      [&](ProxySummary &Result) {
        // Template patterns too: analysed as written (DependentCalls.h).
        if (!Fn->getBody())
          return;
        ProxyFunctionRun First(*this, Fn, B, Result);
        First.run();
        if (!First.relaysMatter()) {
          First.commit();
          return;
        }
        // Again, knowing the relays (RoleRelay) the first run found here
        // and in the callees.
        std::vector<RoleRelay> Known = Result.Relays;
        Result = ProxySummary();
        ProxyFunctionRun Second(*this, Fn, B, Result, &Known);
        Second.run();
        Second.commit();
      });
}

void AnalysisStats::add(const AnalysisStats &O) {
  Functions += O.Functions;
  AsmStatements += O.AsmStatements;
  AsmInstructions += O.AsmInstructions;
  NamedBarrierPairs += O.NamedBarrierPairs;
  MbarrierPairs += O.MbarrierPairs;
  UnmatchedSyncs += O.UnmatchedSyncs;
  UnmatchedSites.insert(UnmatchedSites.end(), O.UnmatchedSites.begin(),
                        O.UnmatchedSites.end());
  UnresolvedCalls += O.UnresolvedCalls;
  ResolvedByMemberName += O.ResolvedByMemberName;
  UnresolvedSites.insert(UnresolvedSites.end(), O.UnresolvedSites.begin(),
                         O.UnresolvedSites.end());
  HeaderContexts.insert(HeaderContexts.end(), O.HeaderContexts.begin(),
                        O.HeaderContexts.end());
}

void printStats(const AnalysisStats &S, llvm::raw_ostream &OS) {
  for (const std::string &H : S.HeaderContexts)
    OS << "proxyfence: stats: " << H << "\n";
  OS << "proxyfence: stats: " << S.Functions << " function"
     << (S.Functions == 1 ? "" : "s") << " analysed, " << S.AsmStatements
     << " asm statement" << (S.AsmStatements == 1 ? "" : "s") << " ("
     << S.AsmInstructions << " PTX instruction"
     << (S.AsmInstructions == 1 ? "" : "s") << ")\n";
  OS << "proxyfence: stats: role synchronisations matched: "
     << S.NamedBarrierPairs << " named barrier, " << S.MbarrierPairs
     << " mbarrier; unmatched: " << S.UnmatchedSyncs << "\n";
  for (const std::string &Site : S.UnmatchedSites)
    OS << "proxyfence: stats: unmatched: " << Site
       << "; no finding reported for this pair\n";
  OS << "proxyfence: stats: template calls left unresolved: "
     << S.UnresolvedCalls << "\n";
  for (const std::string &Site : S.UnresolvedSites)
    OS << "proxyfence: stats: unresolved: " << Site
       << "; its effects are unknown, none assumed\n";
  OS << "proxyfence: stats: template calls resolved through the classes "
        "that declare the member: "
     << S.ResolvedByMemberName << "\n";
}

void Analyzer::noteRolePair(const Event &Arrive, const Event &Wait,
                            bool Matched) {
  const SourceManager &SM = Ctx.getSourceManager();
  auto where = [&](const Event &E) {
    PresumedLoc P = SM.getPresumedLoc(SM.getExpansionLoc(E.At.S->getBeginLoc()));
    if (P.isInvalid())
      return std::string("<unknown>");
    return std::string(P.getFilename()) + ":" + std::to_string(P.getLine()) +
           ":" + std::to_string(P.getColumn());
  };
  auto what = [](const Event &E) {
    if (E.Kind != EffectKind::Barrier)
      return E.What + (E.Mem.isUnknown() || E.Mem.empty()
                           ? " (barrier object not known)"
                           : "");
    // bar.*, barrier.*, __syncthreads alike.
    return std::string(E.ArriveOnly ? "bar.arrive" : "bar.sync") + " (" +
           E.Id.describe() + ")";
  };
  std::string Key = where(Arrive) + "|" + where(Wait);
  if (!RolePairs.insert({Key, Matched}).second)
    return;
  if (Matched) {
    ++(Arrive.Kind == EffectKind::Barrier ? Stats.NamedBarrierPairs
                                          : Stats.MbarrierPairs);
    return;
  }
  ++Stats.UnmatchedSyncs;
  Stats.UnmatchedSites.push_back(where(Arrive) + ": " + what(Arrive) +
                                 " and " + where(Wait) + ": " + what(Wait));
}

void Analyzer::traceRolePair(const Event &Arrive, const Event &Access,
                             const Event &Wait, const Event &Async,
                             BarrierId::Match M) {
  if (!Tracer->targets(Async) || !Access.Mem.mayAlias(Async.Mem))
    return;
  std::string Head = "proxyfence: trace: " + Tracer->describe(Async) + ": ";
  if (M == BarrierId::Match::Different) {
    Tracer->say(Head + "arrives of other roles on other barriers than its "
                       "wait's are not paired with it");
    return;
  }
  auto what = &Trace::describeSync;
  const char *Verdict =
      M == BarrierId::Match::Same
          ? "the same barrier: paired, so the access reaches it"
          : "the barriers cannot be told the same or different: not paired, "
            "and no finding (a blind spot, listed in --stats)";
  std::string Pair = what(Arrive) + " at " +
                     Tracer->where(shownAt(Arrive).S->getBeginLoc()) +
                     ", in another role than its " + what(Wait) + " at " +
                     Tracer->where(shownAt(Wait).S->getBeginLoc());
  Tracer->tally(Head + Pair + Verdict,
                Head + Tracer->describe(Access) + ", then " + Pair + ": " +
                    Verdict);
}

StmtRef primaryStmt(const SourceManager &SM, const Finding &F) {
  return warningAt(SM, F.ShownAtAccess ? F.Access : F.Async);
}

void Analyzer::addFinding(Finding F) {
  auto Key = std::make_tuple(F.R, F.Access.At.S, F.Access.Loc.getRawEncoding(),
                             F.Async.At.S, F.Async.Loc.getRawEncoding(),
                             F.Handoff.S);
  if (FindingKeys.insert(Key).second)
    Findings.push_back(std::move(F));
}

} // namespace proxyfence
