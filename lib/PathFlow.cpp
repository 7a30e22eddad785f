//===- PathFlow.cpp - a few bits per path, through callees -----------------===//
#include "proxyfence/PathFlow.h"
#include "proxyfence/Dataflow.h"
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
  auto key() const { return std::tie(Bits, Mark); }
  bool operator<(const PathState &O) const { return key() < O.key(); }
  bool operator==(const PathState &O) const { return key() == O.key(); }
};
using State = std::vector<PathState>; // sorted, unique
} // namespace

struct PathFlow::Summary {
  std::vector<Event> Known; // the events Mark indices refer to
  std::vector<PathState> Exits;
  struct Hit {
    Event E;
    PathState At;
  };
  std::vector<Hit> Hits;
};

class PathFlow::Run {
public:
  Run(PathFlow &F, const FunctionDecl *Fn, unsigned In, Summary &Out)
      : F(F), Fn(Fn), In(In), Out(Out) {}

  void run() {
    std::unique_ptr<CFG> G = buildCFG(Fn, F.Ctx);
    if (!G) {
      Out.Exits.push_back({In, IncomingMark});
      return;
    }
    State Entry = {{In, IncomingMark}};
    std::vector<State> States = solveForward(
        *G, Entry, [&](const Stmt *S, State &St) { transfer(S, St); },
        [](State &Into, const State &From) { return join(Into, From); });
    Out.Exits = States[G->getExit().getBlockID()];
    Out.Known = Known;
  }

private:
  void transfer(const Stmt *S, State &St) {
    if (auto C = F.Events.extract(
            S, Fn, [&](const Event &E, unsigned Ord) { apply(E, Ord, St); }))
      call(*C, St);
  }

  unsigned intern(const Event &E, unsigned Ordinal) {
    auto Key = std::make_tuple(E.At.S, E.Loc.getRawEncoding(), unsigned(E.Kind),
                               Ordinal);
    auto [It, New] = Index.try_emplace(Key, Known.size());
    if (New)
      Known.push_back(E);
    return It->second;
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
        P.Mark = intern(E, Ordinal);
      Next.push_back(P);
    }
    normalize(Next);
    St.swap(Next);
  }

  void call(const CallSite &C, State &St) {
    // A mark of the callee, in this function's terms; the caller's own mark
    // where the callee passed its incoming one through.
    auto mark = [&](const Summary &S, unsigned M, unsigned Caller) {
      if (M == IncomingMark)
        return Caller;
      if (M == NoMark)
        return NoMark;
      return intern(F.Events.lift(S.Known[M], C, Fn), M);
    };
    State Next;
    for (const PathState &P : St) {
      const Summary &S = F.summary(C.Def, P.Bits);
      for (const Summary::Hit &H : S.Hits)
        hit(F.Events.lift(H.E, C, Fn),
            {H.At.Bits, mark(S, H.At.Mark, P.Mark)});
      for (const PathState &X : S.Exits)
        Next.push_back({X.Bits, mark(S, X.Mark, P.Mark)});
    }
    normalize(Next);
    St.swap(Next);
  }

  PathFlow &F;
  const FunctionDecl *Fn;
  unsigned In;
  Summary &Out;
  std::vector<Event> Known;
  std::map<std::tuple<const Stmt *, unsigned, unsigned, unsigned>, unsigned>
      Index;
  std::set<std::tuple<const Stmt *, unsigned, unsigned, unsigned, unsigned>>
      HitKeys;
};

PathFlow::PathFlow(ASTContext &Ctx, EventExtractor &Events, PathFlowSpec Spec)
    : Ctx(Ctx), Events(Events), Spec(std::move(Spec)) {}
PathFlow::~PathFlow() = default;

const PathFlow::Summary &PathFlow::summary(const FunctionDecl *Def,
                                           unsigned In) {
  auto Key = std::make_pair(Def, In);
  auto It = Summaries.find(Key);
  if (It != Summaries.end())
    return *It->second; // done, or in progress (recursion: transparent)
  auto &Slot = Summaries[Key];
  Slot = std::make_unique<Summary>();
  Slot->Exits.push_back({In, IncomingMark});
  Summary Result;
  if (Def->getBody() && !Def->isDependentContext())
    Run(*this, Def, In, Result).run();
  else
    Result.Exits.push_back({In, IncomingMark});
  *Summaries[Key] = std::move(Result);
  return *Summaries[Key];
}

std::vector<PathHit> PathFlow::run(const FunctionDecl *Root) {
  const Summary &S = summary(Root, 0);
  std::vector<PathHit> Out;
  for (const Summary::Hit &H : S.Hits) {
    std::optional<Event> Mark;
    if (H.At.Mark != NoMark && H.At.Mark != IncomingMark)
      Mark = S.Known[H.At.Mark];
    Out.push_back({H.E, H.At.Bits, Mark});
  }
  return Out;
}

} // namespace proxyfence
