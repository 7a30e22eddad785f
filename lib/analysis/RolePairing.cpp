//===- RolePairing.cpp - the proxy analysis pairs roles' arrives and waits -===//
//
// The part of Analyzer (ProxyDataflow.h) that pairs the role records of
// different functions: an arrive of one role with a wait of another on the
// same barrier, siblings of one class, and roots no one calls.
//
//===----------------------------------------------------------------------===//
#include "analysis/ProxyDataflow.h"
#include "clang/AST/Attr.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include <map>

using namespace clang;

namespace proxyfence {

void Analyzer::pairRoleRecords(
    const RoleArrive &Arr, const RoleWait &Wait, BarrierId::Match M,
    llvm::function_ref<void(Finding)> Report,
    llvm::function_ref<bool(const AliasSet &, const AliasSet &)> Alias) {
  if (Tracer)
    traceRolePair(Arr.Arrive, Arr.Access, Wait.Wait, Wait.Async, M);
  if (M == BarrierId::Match::Different)
    return;
  auto mayAlias = [&](const AliasSet &A, const AliasSet &B) {
    return Alias ? Alias(A, B) : A.mayAlias(B);
  };
  // Only pairs that would be a finding are worth a line in --stats.
  bool Hazard = false;
  for (const Rule *Ru : Rules)
    Hazard |= Ru->MatchesAccess(Arr.Access.Kind) && Ru->MatchesAsync(Wait.Async) &&
              mayAlias(Arr.Access.Mem, Wait.Async.Mem);
  if (!Hazard)
    return;
  if (M == BarrierId::Match::Unknown) {
    noteRolePair(Arr.Arrive, Wait.Wait, /*Matched=*/false);
    return;
  }
  noteRolePair(Arr.Arrive, Wait.Wait, /*Matched=*/true);
  for (const Rule *Ru : Rules)
    if (Ru->MatchesAccess(Arr.Access.Kind) && Ru->MatchesAsync(Wait.Async) &&
        mayAlias(Arr.Access.Mem, Wait.Async.Mem)) {
      Finding F{Ru, Arr.Access, Wait.Async, Arr.Handoff};
      if (Report)
        Report(std::move(F));
      else
        addFinding(std::move(F));
    }
}

namespace {
/// The class type a parameter's object has, looking through references and
/// qualifiers, also one the pattern leaves dependent (`PipelineTmaAsync<
/// Stages>`, `typename SharedStorage::TensorStorage`); null for scalars,
/// pointers, arrays and template type parameters.
const Type *paramClass(const ValueDecl *V) {
  if (!V)
    return nullptr;
  QualType T = V->getType().getNonReferenceType().getCanonicalType();
  // A template parameter's type is only its depth and position: `P &` of
  // one member template and `S &` of another would compare equal.
  if (T->isScalarType() || T->isArrayType() || T->isFunctionType() ||
      T->isVoidType() || isa<TemplateTypeParmType>(T))
    return nullptr;
  return T.getUnqualifiedType().getTypePtr();
}
/// The class of the object \p R is part of, when a caller binds that
/// object itself: `*this` of a member of \p Member's class, or a parameter
/// that is a reference to a class. Not what such an object points to (a
/// value loaded from `*this`, a pointer held in a by-value parameter).
const Type *boundClass(const MemRoot &R, const CXXRecordDecl *Member) {
  if (R.Kind == MemRoot::This)
    return Member ? Member->getASTContext().getCanonicalTagType(Member).getTypePtr()
                  : nullptr;
  return R.Kind == MemRoot::Param && R.ByRef ? paramClass(R.Var) : nullptr;
}

/// Whether memory \p A of one member of \p Class and \p B of another may
/// overlap when a kernel elsewhere calls both on its objects: one object
/// per class type, so parameters (or `*this`) of one class are the same
/// object, compared field by field, and of different classes different
/// objects. A pointer parameter may point anywhere.
bool siblingsMayAlias(const AliasSet &A, const AliasSet &B,
                      const CXXRecordDecl *Class) {
  if (A.empty() || B.empty())
    return false;
  if (A.isUnknown() || B.isUnknown())
    return true;
  for (const MemRoot &X : A.roots())
    for (const MemRoot &Y : B.roots()) {
      const Type *TX = boundClass(X, Class), *TY = boundClass(Y, Class);
      if (TX && TY) {
        if (TX == TY && X.overlaps(Y))
          return true;
        continue;
      }
      AliasSet SX, SY;
      SX.add(X);
      SY.add(Y);
      if (SX.mayAlias(SY))
        return true;
    }
  return false;
}
} // namespace

void Analyzer::pairSiblingRoles(llvm::ArrayRef<const FunctionDecl *> Roots) {
  std::map<const CXXRecordDecl *, std::vector<const FunctionDecl *>> ByClass;
  for (const FunctionDecl *Fn : Roots)
    if (const auto *MD = dyn_cast<CXXMethodDecl>(Fn))
      if (!Called.count(Fn) && !Fn->hasAttr<CUDAGlobalAttr>())
        ByClass[MD->getParent()].push_back(Fn);
  // The same object: `*this` in both, or parameters of one class type (the
  // pipeline a kernel passes to each role).
  auto SameRoot = [](const BarrierPath &P, const BarrierPath &Q) {
    if (P.Root == BarrierPath::This && Q.Root == BarrierPath::This)
      return true;
    if (P.Root != BarrierPath::Param || Q.Root != BarrierPath::Param)
      return false;
    const Type *T = paramClass(P.Var);
    return T && T == paramClass(Q.Var);
  };
  for (auto &Entry : ByClass) {
    const CXXRecordDecl *Class = Entry.first;
    const std::vector<const FunctionDecl *> &Fns = Entry.second;
    for (const FunctionDecl *F : Fns)
      for (const FunctionDecl *G : Fns) {
        if (F == G)
          continue;
        const ProxySummary &SF = analyze(F), &SG = analyze(G);
        for (const RoleArrive &Arr : SF.RoleArrives)
          for (const RoleWait &Wait : SG.RoleWaits)
            pairRoleRecords(
                Arr, Wait, sameRoleBarrier(Arr.Arrive, Wait.Wait, SameRoot),
                nullptr, [&](const AliasSet &X, const AliasSet &Y) {
                  return siblingsMayAlias(X, Y, Class);
                });
      }
  }
}

void Analyzer::reportUncalledRoots(llvm::ArrayRef<const FunctionDecl *> Roots) {
  for (const FunctionDecl *Fn : Roots) {
    if (Called.count(Fn) || Fn->hasAttr<CUDAGlobalAttr>())
      continue;
    for (const Finding &F : analyze(Fn).Deferred)
      if (F.Access.Mem.overlapsInSameCallerObject(F.Async.Mem))
        addFinding(F);
  }
}

} // namespace proxyfence
