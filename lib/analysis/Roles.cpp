//===- Roles.cpp - arrive/wait pairs of roles in different functions ------===//
#include "analysis/Roles.h"
#include "clang/AST/Attr.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/Hashing.h"
#include <map>

using namespace clang;

namespace proxyfence {

namespace {
BarrierId::Match fromPath(BarrierPath::Match M) {
  switch (M) {
  case BarrierPath::Match::Same:
    return BarrierId::Match::Same;
  case BarrierPath::Match::Different:
    return BarrierId::Match::Different;
  case BarrierPath::Match::Unknown:
    break;
  }
  return BarrierId::Match::Unknown;
}

bool sameStatements(const Event &A, const Event &B) {
  return A.At.S == B.At.S && A.Loc == B.Loc;
}
} // namespace

BarrierId::Match sameMbarrier(const Event &Arr, const Event &Wait,
                              bool AliasIsSame) {
  if (Arr.MbarrierPath && Wait.MbarrierPath) {
    BarrierId::Match M =
        fromPath(Arr.MbarrierPath->compare(*Wait.MbarrierPath));
    if (M != BarrierId::Match::Unknown)
      return M;
  }
  // The barrier objects, where the events name them; else what they touch,
  // unless a path names the barrier (then what it touches says nothing
  // more: a pipeline's stage pointer and a storage field both reach "some
  // word of dynamic shared memory").
  bool Paths = Arr.MbarrierPath || Wait.MbarrierPath;
  static const AliasSet None;
  auto object = [&](const Event &E) -> const AliasSet & {
    if (!E.Mbarrier.empty() && !E.Mbarrier.isUnknown())
      return E.Mbarrier;
    return Paths ? None : E.Mem;
  };
  const AliasSet &A = object(Arr), &W = object(Wait);
  if (A.empty() || W.empty() || A.isUnknown() || W.isUnknown())
    return BarrierId::Match::Unknown;
  if (!A.mayAlias(W))
    return BarrierId::Match::Different;
  // Two paths that do not decide (a pipeline's stage pointer, a storage
  // field) are not made the same by overlapping memory.
  bool BothPaths = Arr.MbarrierPath && Wait.MbarrierPath;
  return AliasIsSame && !BothPaths ? BarrierId::Match::Same
                                   : BarrierId::Match::Unknown;
}

BarrierId::Match sameNamedBarrier(const Event &A, const Event &B) {
  // One barrier instance counts one number of threads (bar.sync's b).
  if (A.ThreadCount && B.ThreadCount && A.ThreadCount != B.ThreadCount)
    return BarrierId::Match::Different;
  return A.Id.compare(B.Id);
}

BarrierId::Match sameRoleBarrier(
    const Event &Arr, const Event &Wait,
    llvm::function_ref<bool(const BarrierPath &, const BarrierPath &)>
        SameRoot) {
  bool Named = Arr.Kind == EffectKind::Barrier;
  if (Named != (Wait.Kind == EffectKind::Barrier))
    return BarrierId::Match::Different;
  if (Named) {
    if (!SameRoot)
      return sameNamedBarrier(Arr, Wait);
    // Different functions: only constants and rows mean the same in both,
    // and barrier 0 (`__syncthreads`) is every thread's, not a hand-off
    // between two roles.
    if (Arr.Id.Kind == BarrierId::Const && Wait.Id.Kind == BarrierId::Const)
      return Arr.Id.Offset == 0 ? BarrierId::Match::Different
                                : sameNamedBarrier(Arr, Wait);
    if (Arr.Id.Kind == BarrierId::Indexed && Wait.Id.Kind == BarrierId::Indexed)
      return sameNamedBarrier(Arr, Wait);
    return BarrierId::Match::Unknown;
  }
  if (Arr.MbarrierPath && Wait.MbarrierPath && SameRoot &&
      SameRoot(*Arr.MbarrierPath, *Wait.MbarrierPath))
    return fromPath(Arr.MbarrierPath->compareSteps(*Wait.MbarrierPath));
  return sameMbarrier(Arr, Wait, /*AliasIsSame=*/false);
}

bool sameBarrierOperand(const Event &A, const Event &B) {
  if (A.Kind == EffectKind::Barrier || B.Kind == EffectKind::Barrier)
    return A.Kind == B.Kind && A.Id.Kind == B.Id.Kind &&
           A.Id.Offset == B.Id.Offset && A.Id.Variable == B.Id.Variable &&
           A.Id.Member == B.Id.Member;
  if (A.MbarrierPath || B.MbarrierPath)
    return A.MbarrierPath && B.MbarrierPath &&
           *A.MbarrierPath == *B.MbarrierPath;
  return A.Mbarrier.isUnknown() == B.Mbarrier.isUnknown() &&
         llvm::equal(A.Mbarrier.roots(), B.Mbarrier.roots());
}

namespace {
size_t statementsKey(const RoleArrive &R) {
  return llvm::hash_combine(R.Arrive.At.S, R.Arrive.Loc.getRawEncoding(),
                            R.Access.At.S, R.Access.Loc.getRawEncoding(),
                            R.Handoff.S);
}
size_t statementsKey(const RoleWait &R) {
  return llvm::hash_combine(R.Wait.At.S, R.Wait.Loc.getRawEncoding(),
                            R.Async.At.S, R.Async.Loc.getRawEncoding(),
                            int(R.Async.Op));
}
bool sameRecord(const RoleArrive &X, const RoleArrive &R) {
  return sameStatements(X.Arrive, R.Arrive) &&
         sameBarrierOperand(X.Arrive, R.Arrive) &&
         sameStatements(X.Access, R.Access) && X.Handoff.S == R.Handoff.S;
}
bool sameRecord(const RoleWait &X, const RoleWait &R) {
  return sameStatements(X.Wait, R.Wait) && sameBarrierOperand(X.Wait, R.Wait) &&
         sameStatements(X.Async, R.Async) && X.Async.Op == R.Async.Op;
}
} // namespace

template <typename Record> void RoleRecordSet<Record>::add(const Record &R) {
  llvm::SmallVector<unsigned, 1> &Same = ByStatements[statementsKey(R)];
  for (unsigned I : Same)
    if (sameRecord(Records[I], R))
      return;
  Same.push_back(Records.size());
  Records.push_back(R);
}

template class RoleRecordSet<RoleArrive>;
template class RoleRecordSet<RoleWait>;

} // namespace proxyfence
