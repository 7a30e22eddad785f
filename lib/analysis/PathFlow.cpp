//===- PathFlow.cpp - a few bits per path, through callees -----------------===//
#include "analysis/PathFlow.h"
#include "model/ConstantArms.h"
#include "analysis/Dataflow.h"
#include "model/DependentCalls.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Stmt.h"
#include <set>
#include <tuple>

using namespace clang;

namespace proxyfence {

namespace {
constexpr unsigned NoMark = ~0u;       // no mark on the path
constexpr unsigned IncomingMark = ~1u; // the caller's mark

struct PathState {
  unsigned Bits;
  unsigned Mark; // index into the run's events, NoMark or IncomingMark
  Election Elected;
  /// The arms this path took of the function's template-constant branches:
  /// bit 2K for condition K true, 2K+1 for false (ConstantConditions).
  ArmSet Arms = 0;
  auto key() const { return std::tie(Bits, Mark, Elected, Arms); }
  bool operator<(const PathState &O) const { return key() < O.key(); }
  bool operator==(const PathState &O) const { return key() == O.key(); }
};
using State = std::vector<PathState>; // sorted, unique

/// Whether \p Fn's body executes elect.sync itself or through the functions
/// it calls directly (cute::elect_one_sync, cuda::ptx::elect_sync).
bool elects(const FunctionDecl *Fn, unsigned Depth = 0) {
  const FunctionDecl *Def = Fn ? Fn->getDefinition() : nullptr;
  if (!Def || !Def->getBody() || Depth > 2)
    return false;
  std::vector<const Stmt *> Work = {Def->getBody()};
  while (!Work.empty()) {
    const Stmt *S = Work.back();
    Work.pop_back();
    if (const auto *Asm = dyn_cast<GCCAsmStmt>(S))
      if (llvm::StringRef(Asm->getAsmString()).contains("elect.sync"))
        return true;
    if (const auto *Call = dyn_cast<CallExpr>(S))
      if (elects(Call->getDirectCallee(), Depth + 1))
        return true;
    for (const Stmt *Child : S->children())
      if (Child)
        Work.push_back(Child);
  }
  return false;
}

/// Whether \p E is true exactly in the thread elect.sync elected: a call
/// that elects, or a local variable initialised from one.
bool isElection(const Expr *E) {
  E = E->IgnoreParenImpCasts();
  if (const auto *Call = dyn_cast<CallExpr>(E))
    return elects(Call->getDirectCallee());
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E))
    if (const auto *Var = dyn_cast<VarDecl>(Ref->getDecl()))
      return Var->isLocalVarDecl() && !Var->getType()->isReferenceType() &&
             Var->getInit() && isElection(Var->getInit());
  return false;
}
} // namespace

struct PathFlow::PathSummary {
  std::vector<Event> Known; // the events Mark indices refer to
  std::vector<PathState> Exits;
  struct Hit {
    Event E;
    PathState At;
  };
  std::vector<Hit> Hits;
};

class PathFlow::PathFunctionRun {
public:
  PathFunctionRun(PathFlow &F, const FunctionDecl *Fn, const Bindings &Binds,
                  unsigned In, Election InElected, PathSummary &Out)
      : F(F), Fn(Fn), Binds(Binds), In(In), InElected(InElected), Out(Out) {}

  void run() {
    std::unique_ptr<CFG> G = buildCFG(Fn, F.Ctx);
    if (!G) {
      Out.Exits.push_back({In, IncomingMark, InElected});
      return;
    }
    State Entry = {{In, IncomingMark, InElected}};
    std::vector<State> States = solveForward(
        *G, Entry, [&](const Stmt *S, State &St) { transfer(S, St); },
        [](State &Into, const State &From) { return join(Into, From); },
        [&](const CFGBlock &B, unsigned Succ, State &St) {
          return Binds.feasible(B, Succ, F.Ctx) && elect(B, Succ, St) &&
                 sameArm(B, Succ, St);
        });
    Out.Exits = States[G->getExit().getBlockID()];
    Out.Known = Known.events();
  }

private:
  /// elect.sync elects the same thread for the same mask every time (PTX
  /// ISA, elect.sync): a path that was elected once is elected at every
  /// election, and one that was not never is. Keeps the paths of one thread.
  bool elect(const CFGBlock &B, unsigned Succ, State &St) {
    const Expr *Cond = B.succ_size() == 2 ? B.getLastCondition() : nullptr;
    if (!Cond || !isElection(Cond))
      return true;
    Election Taken = Succ == 0 ? Election::Elected : Election::NotElected;
    State Kept;
    for (PathState P : St)
      if (P.Elected == Election::Unknown || P.Elected == Taken) {
        P.Elected = Taken;
        Kept.push_back(P);
      }
    normalize(Kept);
    St.swap(Kept);
    return !St.empty();
  }

  /// Keeps the paths that took \p Succ's arm of a template-constant
  /// condition whenever they met it before, and records the arm.
  bool sameArm(const CFGBlock &B, unsigned Succ, State &St) {
    std::optional<ArmBits> Arm = Conditions.armOf(B, Succ, F.Ctx);
    if (!Arm)
      return true;
    State Kept, Recorded;
    for (const PathState &P : St)
      if (!(P.Arms & Arm->Other)) {
        Kept.push_back(P);
        Recorded.push_back(P);
        Recorded.back().Arms |= Arm->Took;
      }
    // Arms multiply the paths kept apart; past a few dozen a block, the
    // paths are no longer told apart by the arms they take from here.
    normalize(Recorded);
    if (Recorded.size() <= MaxStatesWithArms)
      Kept.swap(Recorded);
    St.swap(Kept);
    return !St.empty();
  }
  static constexpr size_t MaxStatesWithArms = 64;

  void transfer(const Stmt *S, State &St) {
    if (auto C = F.Events.extract(
            S, Fn, [&](const Event &E, unsigned Ord) { apply(E, Ord, St); },
            &Binds))
      call(*C, St);
  }

  void hit(const Event &E, PathState At) {
    auto Key = std::make_tuple(E.At.S, E.Loc.getRawEncoding(), unsigned(E.Kind),
                               At.Bits, At.Mark);
    if (HitKeys.insert(Key).second)
      Out.Hits.push_back({E, At});
  }

  void apply(const Event &E, unsigned Ordinal, State &St) {
    bool Check = F.Spec.Checkpoint(E), Mark = F.Spec.Marks(E);
    State Next;
    for (PathState P : St) {
      if (Check)
        hit(E, P);
      P.Bits = F.Spec.Step(P.Bits, E);
      if (Mark)
        P.Mark = Known.intern(E, Ordinal);
      Next.push_back(P);
    }
    normalize(Next);
    St.swap(Next);
  }

  void call(const CallSite &C, State &St) {
    // A mark of the callee, in this function's terms; the caller's own mark
    // where the callee passed its incoming one through.
    auto mark = [&](const PathSummary &S, unsigned M, unsigned Caller) {
      if (M == IncomingMark)
        return Caller;
      if (M == NoMark)
        return NoMark;
      return Known.intern(F.Events.lift(S.Known[M], C, Fn), M);
    };
    Bindings CalleeBinds = F.Binder.bind(C.Site, C.Def, Binds);
    State Next;
    for (const PathState &P : St) {
      const PathSummary &S = F.summary(C.Def, CalleeBinds, P.Bits, P.Elected);
      for (const PathSummary::Hit &H : S.Hits)
        hit(F.Events.lift(H.E, C, Fn),
            {H.At.Bits, mark(S, H.At.Mark, P.Mark), H.At.Elected});
      // The callee's arms are its own; the path keeps the caller's.
      for (const PathState &X : S.Exits)
        Next.push_back({X.Bits, mark(S, X.Mark, P.Mark), X.Elected, P.Arms});
    }
    normalize(Next);
    St.swap(Next);
  }

  PathFlow &F;
  const FunctionDecl *Fn;
  const Bindings &Binds;
  unsigned In;
  Election InElected;
  PathSummary &Out;
  EventTable Known;
  ConstantConditions Conditions;
  std::set<std::tuple<const Stmt *, unsigned, unsigned, unsigned, unsigned>>
      HitKeys;
};

PathFlow::PathFlow(ASTContext &Ctx, EventExtractor &Events, PathFlowSpec Spec)
    : Ctx(Ctx), Events(Events), Spec(std::move(Spec)), Binder(Ctx) {}
PathFlow::~PathFlow() = default;

const PathFlow::PathSummary &PathFlow::summary(const FunctionDecl *Def,
                                               const Bindings &Binds,
                                               unsigned In, Election Elected) {
  // A function that calls itself through bindings: summarised unbound.
  if (!Binds.empty() && Summaries.inProgress(Def))
    return summary(Def, Bindings(), In, Elected);
  // Recursion and bodiless callees: the path goes through unchanged.
  auto Transparent = [&](PathSummary &S) {
    S.Exits.push_back({In, IncomingMark, Elected});
  };
  return Summaries.get(
      std::make_tuple(Def, Binds, In, Elected), Def, Transparent,
      [&](PathSummary &Result) {
        if (Def->getBody())
          PathFunctionRun(*this, Def, Binds, In, Elected, Result).run();
        else
          Transparent(Result);
      });
}

std::vector<PathHit> PathFlow::run(const FunctionDecl *Root) {
  const PathSummary &S = summary(Root, Bindings(), 0, Election::Unknown);
  std::vector<PathHit> Out;
  for (const PathSummary::Hit &H : S.Hits) {
    std::optional<Event> Mark;
    if (H.At.Mark != NoMark && H.At.Mark != IncomingMark)
      Mark = S.Known[H.At.Mark];
    Out.push_back({H.E, H.At.Bits, Mark});
  }
  return Out;
}

} // namespace proxyfence
