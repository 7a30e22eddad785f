//===- Roles.cpp - arrive/wait pairs of roles in different functions ------===//
#include "proxyfence/Roles.h"
#include "proxyfence/Analysis.h"
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

void Analyzer::pairRoleRecords(
    const RoleArrive &Arr, const RoleWait &Wait, BarrierId::Match M,
    llvm::function_ref<void(Finding)> Report,
    llvm::function_ref<bool(const AliasSet &, const AliasSet &)> Alias) {
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
        const Summary &SF = analyze(F), &SG = analyze(G);
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

BarrierId EventExtractor::memberBarrierId(const BarrierId &Inner,
                                          const CallSite &C,
                                          const FunctionDecl *Fn) {
  const auto *MC = dyn_cast<CXXMemberCallExpr>(C.Site);
  if (!MC || !MC->getImplicitObjectArgument())
    return BarrierId();
  const Expr *Obj = MC->getImplicitObjectArgument()->IgnoreParenImpCasts();
  // Another member of the same object: still its field.
  if (isa<CXXThisExpr>(Obj))
    return Inner;
  // The construction of the object: a local `NamedBarrier b(n, id)` or a
  // temporary `NamedBarrier(n, id).sync()`.
  const Expr *Init = nullptr;
  if (const auto *DRE = dyn_cast<DeclRefExpr>(Obj)) {
    const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
    if (!V || !V->hasLocalStorage() || isa<ParmVarDecl>(V) || !V->getInit())
      return BarrierId();
    Init = V->getInit();
  } else {
    Init = Obj;
  }
  while (true) {
    Init = Init->IgnoreParenImpCasts();
    if (const auto *EWC = dyn_cast<ExprWithCleanups>(Init))
      Init = EWC->getSubExpr();
    else if (const auto *MT = dyn_cast<MaterializeTemporaryExpr>(Init))
      Init = MT->getSubExpr();
    else if (const auto *BT = dyn_cast<CXXBindTemporaryExpr>(Init))
      Init = BT->getSubExpr();
    else
      break;
  }
  const auto *CE = dyn_cast<CXXConstructExpr>(Init);
  if (!CE || !CE->getConstructor())
    return BarrierId();
  const FunctionDecl *Def = nullptr;
  if (!CE->getConstructor()->hasBody(Def) || !Def)
    return BarrierId();
  const auto *Ctor = cast<CXXConstructorDecl>(Def);
  for (const CXXCtorInitializer *I : Ctor->inits()) {
    if (I->getMember() != Inner.Member)
      continue;
    BarrierId Stored = barrierIdOf(I->getInit(), Ctor);
    if (Stored.Kind == BarrierId::Const) {
      Stored.Offset += Inner.Offset;
      return Stored;
    }
    if (Stored.Kind != BarrierId::Param)
      return BarrierId();
    unsigned K = cast<ParmVarDecl>(Stored.Variable)->getFunctionScopeIndex();
    if (K >= CE->getNumArgs())
      return BarrierId();
    BarrierId Out = barrierIdOf(CE->getArg(K), Fn);
    if (Out.Kind != BarrierId::Unknown)
      Out.Offset += Stored.Offset + Inner.Offset;
    return Out;
  }
  return BarrierId();
}

} // namespace proxyfence
