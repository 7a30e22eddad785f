//===- Analysis.cpp - proxy dataflow over clang's CFG ----------------------===//
#include "proxyfence/Analysis.h"
#include "proxyfence/Dataflow.h"
#include "clang/AST/Attr.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Analysis/CFG.h"
#include "llvm/ADT/STLExtras.h"
#include <algorithm>
#include <map>
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
  case AsyncOp::None:
    break;
  }
  return "async-proxy operation";
}

namespace {
/// Index of the pending entry standing for "whatever the caller left
/// unfenced" while a function is summarised.
constexpr unsigned Incoming = ~0u;
/// Pending entries from WaitTokenBase up stand for "after mbarrier wait K":
/// async operations they meet are matched with other roles' arrives.
constexpr unsigned WaitTokenBase = 1u << 30;
bool isAccess(unsigned Access) { return Access < WaitTokenBase; }

struct Pending {
  unsigned Access;
  StmtRef Handoff;
  bool operator<(const Pending &O) const {
    return std::tie(Access, Handoff.S) < std::tie(O.Access, O.Handoff.S);
  }
  bool operator==(const Pending &O) const {
    return Access == O.Access && Handoff.S == O.Handoff.S;
  }
};
using State = std::vector<Pending>; // sorted, unique

void setHandoff(State &S, StmtRef At) {
  for (Pending &P : S)
    if (!P.Handoff)
      P.Handoff = At;
  normalize(S);
}

} // namespace

class Analyzer::FunctionRun {
public:
  FunctionRun(Analyzer &A, const FunctionDecl *Fn, Summary &Out)
      : A(A), Fn(Fn), Out(Out) {}

  void run() {
    std::unique_ptr<CFG> G = buildCFG(Fn, A.Ctx);
    if (!G)
      return; // Out stays transparent: incoming survives, nothing exposed.
    ++A.Stats.Functions;
    std::vector<State> In = solveForward(
        *G, State{Pending{Incoming, {}}},
        [&](const Stmt *S, State &St) { transfer(S, St); },
        [](State &Into, const State &From) { return join(Into, From); });

    const State &Exit = In[G->getExit().getBlockID()];
    Out.IncomingSurvives = false;
    std::set<unsigned> ExitWaits;
    for (const Pending &P : Exit) {
      if (P.Access == Incoming) {
        Out.IncomingSurvives = true;
        Out.IncomingCrossesBarrier |= bool(P.Handoff);
      } else if (isAccess(P.Access)) {
        Out.DownwardAccesses.push_back({Accesses[P.Access], P.Handoff});
      } else if (ExitWaits.insert(P.Access - WaitTokenBase).second) {
        Out.ExitWaits.push_back(Waits[P.Access - WaitTokenBase]);
      }
    }
    matchRoles();
  }

private:
  /// Warp-specialised kernels: role A writes (or reads) smem and arrives on
  /// an mbarrier; role B waits on the same mbarrier and issues the async op.
  /// No single path holds both, so pair each arrive with each wait instead.
  void matchRoles() {
    std::set<std::pair<const Stmt *, const Stmt *>> Unmatched;
    for (const ArriveRecord &R : ArriveRecs)
      for (const auto &[K, Async] : WaitAsyncs) {
        const Event &Wait = Waits[K];
        if (R.Barrier.Mem.empty() || Wait.Mem.empty() ||
            R.Barrier.Mem.isUnknown() || Wait.Mem.isUnknown()) {
          Unmatched.insert({R.Barrier.At.S, Wait.At.S});
          continue;
        }
        if (!R.Barrier.Mem.mayAlias(Wait.Mem))
          continue;
        const Event &Acc = Accesses[R.Access];
        for (const Rule *Ru : A.Rules)
          if (Ru->MatchesAccess(Acc.Kind) && Ru->MatchesAsync(Async) &&
              Acc.Mem.mayAlias(Async.Mem))
            A.addFinding(Finding{Ru, Acc, Async, R.Handoff});
      }
    A.Stats.UnmatchedSyncs += Unmatched.size();
  }

  /// Records the accesses pending at an mbarrier arrive.
  void arrive(const Event &E, const State &St) {
    for (const Pending &P : St) {
      if (P.Access == Incoming) {
        if (ExposedArrives.insert({E.At.S, E.Loc.getRawEncoding()}).second)
          Out.Arrives.push_back(E);
      } else if (isAccess(P.Access)) {
        // The fence goes before the access's first hand-off, as on a single
        // path: an earlier arrive (the consumer's "empty" arrive) already
        // needs it, and a fence there covers this arrive too.
        StmtRef Handoff = P.Handoff ? P.Handoff : E.At;
        if (ArriveSeen
                .insert({E.At.S, E.Loc.getRawEncoding(), P.Access, Handoff.S})
                .second)
          ArriveRecs.push_back({E, P.Access, Handoff});
      }
    }
  }

  void wait(const Event &E, State &St) {
    auto Key = std::make_pair(E.At.S, E.Loc.getRawEncoding());
    auto It = WaitIndex.find(Key);
    unsigned K;
    if (It != WaitIndex.end()) {
      K = It->second;
    } else {
      K = Waits.size();
      Waits.push_back(E);
      WaitIndex[Key] = K;
    }
    St.push_back(Pending{WaitTokenBase + K, {}});
    normalize(St);
  }

  void transfer(const Stmt *S, State &St) {
    if (auto C = A.Events.extract(
            S, Fn, [&](const Event &E, unsigned Ordinal) { apply(E, St, Ordinal); }))
      applySummary(A.analyze(C->Def), *C, St);
  }

  void applySummary(const Summary &Sm, const CallSite &C, State &St) {
    StmtRef Here{C.Site, Fn};
    auto lift = [&](const Event &Inner) { return A.Events.lift(Inner, C, Fn); };
    // 1. Async operations the callee issues before any fence of its own.
    for (size_t I = 0; I < Sm.UpwardAsync.size(); ++I) {
      const Summary::ExposedAsync &U = Sm.UpwardAsync[I];
      Event E = lift(U.E);
      if (E.Mem.empty())
        E.Mem = AliasSet::unknown();
      if (U.AfterBarrier) {
        State Tmp = St;
        setHandoff(Tmp, Here);
        checkAsync(E, Tmp, I);
      } else {
        checkAsync(E, St, I);
      }
    }
    for (const Event &Arr : Sm.Arrives)
      arrive(lift(Arr), St);
    // 2. The callee's fences and barriers act on what is pending here.
    if (!Sm.IncomingSurvives)
      St.clear();
    else if (Sm.IncomingCrossesBarrier)
      setHandoff(St, Here);
    // 3. Accesses the callee leaves unfenced.
    unsigned Ordinal = 0;
    for (const Summary::ExposedAccess &D : Sm.DownwardAccesses) {
      Event E = lift(D.E);
      if (E.Mem.empty())
        continue;
      St.push_back(Pending{accessIndex(E, Ordinal++), D.Handoff});
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
    case EffectKind::GenericRead:
      St.push_back(Pending{accessIndex(E, Ordinal), {}});
      normalize(St);
      return;
    case EffectKind::ProxyFence:
      if (fenceCoversShared(E.Space))
        St.clear();
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
    default:
      if (isHandoff(E))
        setHandoff(St, E.At);
      return;
    }
  }

  /// \p Ordinal tells apart the async effects of one statement (wgmma's A
  /// and B descriptors are two reads of possibly different memory).
  void checkAsync(const Event &E, const State &St, unsigned Ordinal) {
    for (const Pending &P : St) {
      if (P.Access == Incoming) {
        auto Key = std::make_tuple(E.At.S, E.Loc.getRawEncoding(), Ordinal,
                                   bool(P.Handoff));
        if (Exposed.insert(Key).second)
          Out.UpwardAsync.push_back({E, bool(P.Handoff)});
        continue;
      }
      if (!isAccess(P.Access)) {
        unsigned K = P.Access - WaitTokenBase;
        if (WaitAsyncSeen.insert({K, E.At.S, E.Loc.getRawEncoding(), Ordinal})
                .second)
          WaitAsyncs.push_back({K, E});
        continue;
      }
      const Event &Acc = Accesses[P.Access];
      for (const Rule *R : A.Rules)
        if (R->MatchesAccess(Acc.Kind) && R->MatchesAsync(E) &&
            Acc.Mem.mayAlias(E.Mem))
          A.addFinding(Finding{R, Acc, E, P.Handoff});
    }
  }

  Analyzer &A;
  const FunctionDecl *Fn;
  Summary &Out;
  std::vector<Event> Accesses;
  std::map<std::tuple<const Stmt *, unsigned, unsigned>, unsigned> AccessIndex;
  std::set<std::tuple<const Stmt *, unsigned, unsigned, bool>> Exposed;
  struct ArriveRecord {
    Event Barrier; // the arrive, its Mem the mbarrier
    unsigned Access;
    StmtRef Handoff; // the access's first hand-off: this arrive or earlier
  };
  std::vector<ArriveRecord> ArriveRecs;
  std::set<std::tuple<const Stmt *, unsigned, unsigned, const Stmt *>>
      ArriveSeen;
  std::set<std::pair<const Stmt *, unsigned>> ExposedArrives;
  std::vector<Event> Waits;
  std::map<std::pair<const Stmt *, unsigned>, unsigned> WaitIndex;
  std::vector<std::pair<unsigned, Event>> WaitAsyncs;
  std::set<std::tuple<unsigned, const Stmt *, unsigned, unsigned>>
      WaitAsyncSeen;
};

Analyzer::Analyzer(ASTContext &Ctx, llvm::ArrayRef<const Rule *> Rules)
    : Ctx(Ctx), Rules(Rules.begin(), Rules.end()), Memory(Ctx),
      Events(Memory, Stats.AsmStatements, Stats.AsmInstructions) {}
Analyzer::~Analyzer() = default;

const Summary &Analyzer::analyze(const FunctionDecl *Fn) {
  auto It = Summaries.find(Fn);
  if (It != Summaries.end())
    return *It->second; // done, or in progress (recursion: transparent)
  auto &Slot = Summaries[Fn];
  Slot = std::make_unique<Summary>();
  Summary Result;
  if (Fn->getBody() && !Fn->isDependentContext())
    FunctionRun(*this, Fn, Result).run();
  *Summaries[Fn] = std::move(Result);
  return *Summaries[Fn];
}

void Analyzer::addFinding(Finding F) {
  auto Key = std::make_tuple(F.R, F.Access.At.S, F.Access.Loc.getRawEncoding(),
                             F.Async.At.S, F.Async.Loc.getRawEncoding(),
                             F.Handoff.S);
  if (FindingKeys.insert(Key).second)
    Findings.push_back(std::move(F));
}

} // namespace proxyfence
