//===- Tcgen05Order.cpp - proxyfence-tcgen05-order ------------------------===//
//
// A tcgen05 operation of one thread ordered before a tcgen05 operation of
// another through a thread synchronisation (mbarrier arrive/wait, named or
// CTA barrier, cluster barrier). PTX ISA 9.7.16.6 (memory consistency model
// of tcgen05) and 9.7.16.11 (tcgen05.fence): before the synchronisation the
// producer completes its tcgen05.ld/st (tcgen05.wait::ld/st) and executes
// tcgen05.fence::before_thread_sync (tcgen05.commit implies it for the
// operations it tracks); after it the consumer executes
// tcgen05.fence::after_thread_sync before its own tcgen05 operation.
//
// One PathFlow pass per kernel meets every tcgen05 operation and every
// hand-off with what the path did before it (bits) and the last
// synchronisation it passed (the mark); paths agree on elect.sync, so the
// thread that issues an MMA is the one that commits it. A producer's
// hand-off and a consumer's operation are paired when the consumer's last
// synchronisation waits for that hand-off (the same mbarrier, a barrier of
// the same id, or the cluster barrier) and program order allows it.
//
//===----------------------------------------------------------------------===//
#include "rules/OrderRules.h"
#include "analysis/CfgReach.h"
#include "analysis/Dataflow.h"
#include "analysis/PathFlow.h"
#include "clang/Basic/SourceManager.h"
#include <set>
#include <tuple>

using namespace clang;

namespace proxyfence {

const StandaloneRule Tcgen05OrderRule = {
    "proxyfence-tcgen05-order",
    "tcgen05 operations of different threads ordered by a thread "
    "synchronisation without tcgen05.wait::ld/st + "
    "tcgen05.fence::before_thread_sync before it and "
    "tcgen05.fence::after_thread_sync after it"};

namespace {
enum Bit : unsigned {
  LdPending = 1,   // a tcgen05.ld not yet waited for (tcgen05.wait::ld)
  StPending = 2,   // a tcgen05.st not yet waited for
  Unfenced = 4,    // tcgen05.ld/st since fence::before_thread_sync
  NoAfter = 8,     // a synchronisation since fence::after_thread_sync
  UsedLd = 16,     // a tcgen05.ld since the kernel's entry
  UsedWrite = 32,  // a tcgen05.st/mma/cp/shift since the entry (mma/cp/shift:
                   // since the last tcgen05.commit)
  AnySync = 64,    // a thread synchronisation since the entry
  UsedLdSt = 128,  // a tcgen05.ld/st since the entry: a warp's instruction,
                   // unlike mma/cp/shift, which one thread issues
};

bool isCommit(const Event &E) {
  return E.Kind == EffectKind::MbarrierArrive &&
         llvm::StringRef(E.What).starts_with("tcgen05.commit");
}

unsigned step(unsigned B, const Event &E) {
  switch (E.Kind) {
  case EffectKind::TmemAccess:
    if (E.Op == AsyncOp::Tcgen05Ld)
      return B | LdPending | Unfenced | UsedLd | UsedLdSt;
    if (E.Op == AsyncOp::Tcgen05St)
      return B | StPending | Unfenced | UsedWrite | UsedLdSt;
    return B | UsedWrite; // mma/cp/shift complete through tcgen05.commit
  case EffectKind::TmemWaitLd:
    return B & ~LdPending;
  case EffectKind::TmemWaitSt:
    return B & ~StPending;
  case EffectKind::TmemFenceBefore:
    return B & ~Unfenced;
  case EffectKind::TmemCommit:
    // The commit's mbarrier hands over the MMAs/copies it tracks, fence
    // included: a later plain arrive of this thread does not carry them.
    return B & ~(Unfenced | UsedWrite);
  case EffectKind::TmemFenceAfter:
    return B & ~NoAfter;
  default:
    return isThreadSync(E) ? B | NoAfter | AnySync : B;
  }
}

/// Whether \p Wait (a consumer's last synchronisation) waits for \p Arrive.
bool pairs(const Event &Arrive, const Event &Wait) {
  if (Arrive.Kind == EffectKind::MbarrierArrive)
    return Wait.Kind == EffectKind::MbarrierWait &&
           Arrive.Mbarrier.mayAlias(Wait.Mbarrier);
  if (Arrive.Kind == EffectKind::ClusterArrive)
    return Wait.Kind == EffectKind::ClusterWait;
  return Wait.Kind == EffectKind::Barrier &&
         Arrive.Id.compare(Wait.Id) != BarrierId::Match::Different;
}

/// Program order in the root function: whether one event's statement can
/// run after another's on some path of one thread.
class ProgramOrder {
public:
  ProgramOrder(const FunctionDecl *Root, ASTContext &Ctx)
      : G(buildCFG(Root, Ctx)) {
    if (G)
      Reach.emplace(*G);
  }
  /// Whether \p To can run after \p From in one thread; true when either
  /// statement is unknown.
  bool canFollow(const Stmt *From, const Stmt *To) {
    return !Reach || Reach->canFollow(From, To, /*IfUnknown=*/true);
  }
  /// Whether every run of \p Later runs \p Earlier first, with nothing
  /// that could branch between: the same statement, or one basic block.
  bool straightBefore(const Stmt *Earlier, const Stmt *Later) {
    if (Earlier == Later)
      return true;
    if (!Reach)
      return false;
    auto A = Reach->position(Earlier), B = Reach->position(Later);
    return A && B && A->first == B->first && A->second < B->second;
  }

private:
  std::unique_ptr<CFG> G;
  std::optional<CfgReach> Reach;
};

/// Whether the hand-off \p Arrive can be the one the consumer's last
/// synchronisation \p Wait observes before \p Op, given program order.
/// A CTA barrier is one instance for all threads at a time, so in code that
/// every thread runs (neither point after the other excluded) it pairs only
/// with itself; an mbarrier arrive that every thread reaches only after the
/// consumer's operation (a later phase) pairs with nothing before it.
bool ordered(ProgramOrder &Order, const Event &Arrive, const Event &Wait,
             const Event &Op) {
  const Stmt *A = Arrive.At.S, *W = Wait.At.S, *O = Op.At.S;
  bool ArriveFirst = Order.canFollow(A, O), OpFirst = Order.canFollow(O, A);
  if (Arrive.Kind == EffectKind::Barrier && Wait.Kind == EffectKind::Barrier &&
      A != W && (Order.canFollow(A, W) || Order.canFollow(W, A)))
    return false;
  return ArriveFirst || !OpFirst;
}

/// Whether \p Arrive hands the consumer's own tcgen05 work back to it:
/// the consumer's thread arrived itself, straight before its wait \p Wait,
/// carrying only operations one thread issues (mma, cp, shift), and \p Op
/// is one too. Those of one thread run in issue order (PTX ISA 9.7.16.6.3,
/// implicitly pipelined tcgen05 instructions); the warp-wide tcgen05.ld/st
/// may be other lanes' and stay paired.
bool ownHandoff(ProgramOrder &Order, const PathHit &Arrive, const Event &Wait,
                const Event &Op) {
  return !isCommit(Arrive.E) && !(Arrive.Bits & UsedLdSt) &&
         Op.Kind == EffectKind::TmemAccess && Op.Op != AsyncOp::Tcgen05Ld &&
         Op.Op != AsyncOp::Tcgen05St &&
         Order.straightBefore(Arrive.E.At.S, Wait.At.S);
}

/// Whether a consumer's \p Op conflicts with a producer that read tensor
/// memory (\p ProducerWrote false) or wrote it: read after read is harmless.
bool conflicts(const Event &Op, bool ProducerWrote) {
  return ProducerWrote || Op.Kind == EffectKind::TmemDealloc ||
         Op.Op != AsyncOp::Tcgen05Ld;
}

std::string opName(const Event &E) {
  if (E.Kind == EffectKind::TmemDealloc)
    return "tcgen05.dealloc";
  return E.What;
}

std::string syncName(const Event &E) {
  switch (E.Kind) {
  case EffectKind::MbarrierWait:
    return "the mbarrier wait";
  case EffectKind::MbarrierArrive:
    return "the mbarrier arrive";
  case EffectKind::ClusterArrive:
    return "the cluster barrier arrive";
  case EffectKind::ClusterWait:
    return "the cluster barrier wait";
  default:
    return "the barrier";
  }
}
} // namespace

std::vector<OrderFinding>
findTcgen05Order(ASTContext &Ctx, EventExtractor &Events,
                 llvm::ArrayRef<const FunctionDecl *> Roots) {
  // Every finding is about a tcgen05 operation or deallocation: with none
  // met by the proxy analysis of the same roots, the paths need no walk.
  if (!Events.extracted(EffectKind::TmemAccess) &&
      !Events.extracted(EffectKind::TmemDealloc))
    return {};
  const SourceManager &SM = Ctx.getSourceManager();
  PathFlowSpec Spec{step, isThreadSync, [](const Event &E) {
                      return E.Kind == EffectKind::TmemAccess ||
                             E.Kind == EffectKind::TmemDealloc ||
                             isThreadHandoff(E);
                    }};
  PathFlow Flow(Ctx, Events, Spec);
  OrderFindingList Found(Tcgen05OrderRule);
  for (const FunctionDecl *Root : entryRoots(Roots)) {
    std::vector<PathHit> Hits = Flow.run(Root);
    ProgramOrder Order(Root, Ctx);
    std::vector<const PathHit *> Ops, Handoffs;
    for (const PathHit &H : Hits)
      (isThreadHandoff(H.E) ? Handoffs : Ops).push_back(&H);
    bool AnyTmemLdSt = llvm::any_of(Ops, [](const PathHit *H) {
      return H->E.Op == AsyncOp::Tcgen05Ld || H->E.Op == AsyncOp::Tcgen05St;
    });

    for (const PathHit *C : Ops) {
      const Event &Op = C->E;
      // A deallocation with no synchronisation at all on its path, in a
      // kernel whose threads read or write tensor memory.
      if (Op.Kind == EffectKind::TmemDealloc && !(C->Bits & AnySync) &&
          AnyTmemLdSt) {
        OrderFinding F;
        F.Message = "tcgen05.dealloc can run while other threads' "
                    "tcgen05.ld/st of the allocation are in flight: no thread "
                    "synchronisation orders them before it";
        F.At = Op;
        F.NoFix = "the synchronisation the other threads must signal is not "
                  "known";
        Found.add(std::move(F), 0);
        continue;
      }
      if (!C->Mark || !(C->Bits & NoAfter))
        continue;
      // The producers this synchronisation waits for.
      for (const PathHit *P : Handoffs) {
        bool Wrote = isCommit(P->E) || (P->Bits & UsedWrite);
        if (!(isCommit(P->E) || (P->Bits & (UsedLd | UsedWrite))) ||
            !pairs(P->E, *C->Mark) || !conflicts(Op, Wrote) ||
            !ordered(Order, P->E, *C->Mark, Op) ||
            ownHandoff(Order, *P, *C->Mark, Op))
          continue;
        OrderFinding F;
        F.Message = opName(Op) + " is ordered after another thread's " +
                    (isCommit(P->E) ? std::string("tcgen05 operations")
                                    : std::string("tcgen05.ld/st")) +
                    " by a thread synchronisation, with no "
                    "tcgen05.fence::after_thread_sync between them";
        F.At = Op;
        F.Notes.push_back({*C->Mark, "synchronised here; the fence goes "
                                     "after it"});
        F.Notes.push_back({P->E, "the other thread signals here (" +
                                     P->E.What + ")"});
        F.Kinds = {FixKind::TmemFenceAfter};
        F.FixAt = C->Mark->At;
        F.FixAfter = true;
        Found.add(std::move(F), 1);
        break;
      }
    }

    for (const PathHit *P : Handoffs) {
      if (isCommit(P->E) || !(P->Bits & (LdPending | StPending | Unfenced)))
        continue;
      // A consumer of another role whose last synchronisation waits for
      // this hand-off, with an operation that conflicts with ours.
      bool Wrote = P->Bits & (StPending | UsedWrite);
      auto Consumer = llvm::find_if(Ops, [&](const PathHit *C) {
        return C->Mark && pairs(P->E, *C->Mark) && conflicts(C->E, Wrote) &&
               ordered(Order, P->E, *C->Mark, C->E);
      });
      if (Consumer == Ops.end())
        continue;
      OrderFinding F;
      std::vector<std::string> Missing;
      if (P->Bits & LdPending) {
        Missing.push_back("tcgen05.wait::ld");
        F.Kinds.push_back(FixKind::TmemWaitLd);
      }
      if (P->Bits & StPending) {
        Missing.push_back("tcgen05.wait::st");
        F.Kinds.push_back(FixKind::TmemWaitSt);
      }
      Missing.push_back("tcgen05.fence::before_thread_sync");
      F.Kinds.push_back(FixKind::TmemFenceBefore);
      std::string List = Missing.front();
      for (size_t K = 1; K < Missing.size(); ++K)
        List += (K + 1 == Missing.size() ? " and " : ", ") + Missing[K];
      F.Message = syncName(P->E) + " hands this thread's tcgen05.ld/st over "
                  "to another thread's " + opName((*Consumer)->E) +
                  " with no " + List + " before it";
      F.At = P->E;
      F.Notes.push_back({(*Consumer)->E, "the other thread's " +
                                             opName((*Consumer)->E) +
                                             " after its synchronisation, " +
                                             lineOf(SM, *(*Consumer)->Mark)});
      F.FixAt = P->E.At;
      Found.add(std::move(F), 2);
    }

    // cta_group::2: the pair's deallocation waits for the peer CTA's signal.
    for (const PathHit *C : Ops) {
      if (C->E.Kind != EffectKind::TmemDealloc || !C->E.CrossCta ||
          !(C->Bits & AnySync))
        continue;
      bool Peer = C->Mark && (C->Mark->Kind == EffectKind::ClusterWait ||
                              llvm::any_of(Handoffs, [&](const PathHit *P) {
                                return P->E.CrossCta &&
                                       pairs(P->E, *C->Mark);
                              }));
      if (Peer)
        continue;
      OrderFinding F;
      F.Message = "tcgen05.dealloc.cta_group::2 frees tensor memory of both "
                  "CTAs of the pair, but its last synchronisation waits for "
                  "no signal of the peer CTA";
      F.At = C->E;
      if (C->Mark)
        F.Notes.push_back({*C->Mark, "last synchronisation before it"});
      F.NoFix = "the peer CTA's epilogue must arrive on this CTA's barrier "
                "(mapa + mbarrier.arrive.shared::cluster) or a cluster "
                "barrier must precede the deallocation";
      Found.add(std::move(F), 3);
    }
  }
  return Found.take();
}

} // namespace proxyfence
