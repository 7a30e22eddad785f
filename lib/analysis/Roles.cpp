//===- Roles.cpp - arrive/wait pairs of roles in different functions ------===//
#include "analysis/Roles.h"
#include "clang/AST/Attr.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
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
  if (Arr.Mem.empty() || Wait.Mem.empty() || Arr.Mem.isUnknown() ||
      Wait.Mem.isUnknown())
    return BarrierId::Match::Unknown;
  if (!Arr.Mem.mayAlias(Wait.Mem))
    return BarrierId::Match::Different;
  return AliasIsSame ? BarrierId::Match::Same : BarrierId::Match::Unknown;
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
      return Arr.Id.compare(Wait.Id);
    // Different functions: only constants mean the same in both, and
    // barrier 0 (`__syncthreads`) is every thread's, not a hand-off
    // between two roles.
    if (Arr.Id.Kind == BarrierId::Const && Wait.Id.Kind == BarrierId::Const)
      return Arr.Id.Offset == 0 ? BarrierId::Match::Different
                                : Arr.Id.compare(Wait.Id);
    return BarrierId::Match::Unknown;
  }
  if (Arr.MbarrierPath && Wait.MbarrierPath && SameRoot &&
      SameRoot(*Arr.MbarrierPath, *Wait.MbarrierPath))
    return fromPath(Arr.MbarrierPath->compareSteps(*Wait.MbarrierPath));
  return sameMbarrier(Arr, Wait, /*AliasIsSame=*/false);
}

void addRoleRecord(std::vector<RoleArrive> &Into, const RoleArrive &R) {
  for (const RoleArrive &X : Into)
    if (sameStatements(X.Arrive, R.Arrive) &&
        sameStatements(X.Access, R.Access) && X.Handoff.S == R.Handoff.S)
      return;
  Into.push_back(R);
}

void addRoleRecord(std::vector<RoleWait> &Into, const RoleWait &R) {
  for (const RoleWait &X : Into)
    if (sameStatements(X.Wait, R.Wait) && sameStatements(X.Async, R.Async) &&
        X.Async.Op == R.Async.Op)
      return;
  Into.push_back(R);
}

} // namespace proxyfence
