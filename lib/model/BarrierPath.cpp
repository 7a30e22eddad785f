//===- BarrierPath.cpp - which mbarrier, spelled as the code reaches it ----===//
#include "model/BarrierPath.h"
#include "model/DependentCalls.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "model/Memory.h"

using namespace clang;

namespace proxyfence {

namespace {

using Path = std::optional<BarrierPath>;
using Step = BarrierPath::Step;

/// Limits the walk through calls (accessors returning accessors).
constexpr unsigned MaxDepth = 16;

class PathResolver {
public:
  explicit PathResolver(ASTContext &Ctx) : Ctx(Ctx) {}

  /// The object an lvalue designates.
  Path object(const Expr *E, const FunctionDecl *Fn, unsigned Depth = 0);
  /// The object an address value points to.
  Path value(const Expr *E, const FunctionDecl *Fn, unsigned Depth = 0);
  Path lift(const BarrierPath &Inner, const Expr *Site,
            const FunctionDecl *Callee, const FunctionDecl *Caller,
            unsigned Depth = 0);

private:
  Path loaded(const Expr *Sub, const FunctionDecl *Fn, unsigned Depth);
  Path callResult(const CallExpr *Call, const FunctionDecl *Fn, bool ByRef,
                  unsigned Depth);
  Step index(const Expr *E, const FunctionDecl *Fn);
  static Path withStep(Path P, Step S) {
    if (P)
      P->Steps.push_back(S);
    return P;
  }
  static Step deref() {
    Step S;
    S.Kind = Step::Deref;
    return S;
  }

  ASTContext &Ctx;
};

BarrierPath rootOf(BarrierPath::RootKind K, const ValueDecl *V = nullptr) {
  BarrierPath P;
  P.Root = K;
  P.Var = V;
  if (const auto *PV = dyn_cast_or_null<ParmVarDecl>(V))
    P.ParamIndex = PV->getFunctionScopeIndex();
  return P;
}

/// `*this` as \p Fn sees it. In a lambda it is the enclosing member
/// function's, named in Var: calls of the lambda, and of the functions it
/// is passed to (`poll([&] { return try_wait(); })`), keep it as it is.
BarrierPath thisRoot(const FunctionDecl *Fn) {
  return rootOf(BarrierPath::This, thisCapturedBy(Fn));
}

const Expr *argFor(const Expr *Site, const FunctionDecl *Callee,
                   unsigned Param) {
  if (const auto *Call = dyn_cast<CallExpr>(Site)) {
    if (isa<CXXOperatorCallExpr>(Call))
      if (const auto *MD = dyn_cast<CXXMethodDecl>(Callee);
          MD && MD->isInstance())
        ++Param;
    return Param < Call->getNumArgs() ? Call->getArg(Param) : nullptr;
  }
  if (const auto *Ctor = dyn_cast<CXXConstructExpr>(Site))
    return Param < Ctor->getNumArgs() ? Ctor->getArg(Param) : nullptr;
  return nullptr;
}

/// An argument passed by value or by reference: the object it copies or
/// names (`pipeline` for a copy of the pipeline).
const Expr *argumentObject(const Expr *E) {
  while (true) {
    E = E->IgnoreParens();
    if (const auto *DA = dyn_cast<CXXDefaultArgExpr>(E))
      E = DA->getExpr();
    else if (const auto *MT = dyn_cast<MaterializeTemporaryExpr>(E))
      E = MT->getSubExpr();
    else if (const auto *BT = dyn_cast<CXXBindTemporaryExpr>(E))
      E = BT->getSubExpr();
    else if (const auto *CE = dyn_cast<CXXConstructExpr>(E);
             CE && CE->getConstructor() &&
             CE->getConstructor()->isCopyOrMoveConstructor() &&
             CE->getNumArgs() >= 1)
      E = CE->getArg(0);
    else if (const auto *IC = dyn_cast<ImplicitCastExpr>(E);
             IC && (IC->getCastKind() == CK_NoOp ||
                    IC->getCastKind() == CK_LValueToRValue ||
                    IC->getCastKind() == CK_DerivedToBase ||
                    IC->getCastKind() == CK_UncheckedDerivedToBase))
      E = IC->getSubExpr();
    else
      return E;
  }
}

} // namespace

Step PathResolver::index(const Expr *E, const FunctionDecl *Fn) {
  Step S;
  S.Kind = Step::Index;
  if (!E || E->isValueDependent())
    return S;
  Expr::EvalResult R;
  if (E->EvaluateAsInt(R, Ctx)) {
    S.IndexKind = Step::Const;
    S.Value = R.Val.getInt().getExtValue();
    return S;
  }
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts()))
    if (const auto *P = dyn_cast<ParmVarDecl>(DRE->getDecl());
        P && P->getDeclContext() == Fn) {
      S.IndexKind = Step::IndexParam;
      S.Value = P->getFunctionScopeIndex();
    }
  return S;
}

Path PathResolver::object(const Expr *E, const FunctionDecl *Fn,
                          unsigned Depth) {
  if (!E || Depth > MaxDepth)
    return std::nullopt;
  E = E->IgnoreParens();
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
    const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
    if (!V)
      return std::nullopt;
    if (V->hasAttr<CUDASharedAttr>())
      return rootOf(BarrierPath::SharedVar, V);
    if (isa<ParmVarDecl>(V))
      return rootOf(BarrierPath::Param, V);
    if (!V->hasLocalStorage())
      return std::nullopt;
    if (V->getType()->isReferenceType())
      return V->getInit() ? object(V->getInit(), Fn, Depth + 1) : std::nullopt;
    return rootOf(BarrierPath::Local, V);
  }
  // `s.f` / `p->f`, also of a pattern where `s`'s type is dependent
  // (`smem.full[s]`).
  const FieldDecl *FD = nullptr;
  const Expr *Base = nullptr;
  bool Arrow = false;
  if (const auto *ME = dyn_cast<MemberExpr>(E)) {
    FD = dyn_cast<FieldDecl>(ME->getMemberDecl());
    Base = ME->getBase();
    Arrow = ME->isArrow();
  } else if (const auto *DM = dyn_cast<CXXDependentScopeMemberExpr>(E)) {
    FD = DM->isImplicitAccess() ? nullptr : patternField(DM);
    Base = DM->getBase();
    Arrow = DM->isArrow();
  }
  if (Base) {
    if (!FD)
      return std::nullopt;
    Step S;
    S.Member = FD;
    return withStep(Arrow ? value(Base, Fn, Depth + 1)
                          : object(Base, Fn, Depth + 1),
                    S);
  }
  if (const auto *ASE = dyn_cast<ArraySubscriptExpr>(E))
    return withStep(value(subscriptBase(ASE), Fn, Depth + 1),
                    index(subscriptIndex(ASE), Fn));
  if (std::optional<UnaryOperation> U = unaryOperation(E))
    return U->Opcode == UO_Deref ? value(U->Operand, Fn, Depth + 1)
                                 : std::nullopt;
  if (const auto *IC = dyn_cast<ImplicitCastExpr>(E))
    return object(IC->getSubExpr(), Fn, Depth + 1);
  if (const auto *Call = dyn_cast<CallExpr>(E))
    return Call->isGLValue() ? callResult(Call, Fn, /*ByRef=*/true, Depth)
                             : std::nullopt;
  return std::nullopt;
}

Path PathResolver::value(const Expr *E, const FunctionDecl *Fn,
                         unsigned Depth) {
  if (!E || Depth > MaxDepth)
    return std::nullopt;
  E = E->IgnoreParens();
  if (const auto *CE = dyn_cast<CastExpr>(E)) {
    switch (CE->getCastKind()) {
    case CK_ArrayToPointerDecay:
      return object(CE->getSubExpr(), Fn, Depth + 1);
    case CK_LValueToRValue:
      return loaded(CE->getSubExpr(), Fn, Depth + 1);
    default:
      return value(CE->getSubExpr(), Fn, Depth + 1);
    }
  }
  if (std::optional<UnaryOperation> U = unaryOperation(E))
    return U->Opcode == UO_AddrOf ? object(U->Operand, Fn, Depth + 1)
                                  : std::nullopt;
  if (const auto *BO = dyn_cast<BinaryOperator>(E)) {
    if (BO->getOpcode() != BO_Add && BO->getOpcode() != BO_Sub)
      return std::nullopt;
    const Expr *L = BO->getLHS(), *R = BO->getRHS();
    // `bars + s`: element s; `addr + 8 * s` (an integer address): some
    // element of whatever `addr` points into.
    if (L->getType()->isPointerType())
      return withStep(value(L, Fn, Depth + 1), index(R, Fn));
    if (R->getType()->isPointerType())
      return withStep(value(R, Fn, Depth + 1), index(L, Fn));
    Step Any;
    Any.Kind = Step::Index;
    if (Path P = value(L, Fn, Depth + 1))
      return withStep(P, Any);
    return withStep(value(R, Fn, Depth + 1), Any);
  }
  // A pattern does not decay an array member of a dependent struct.
  if (const auto *DM = dyn_cast<CXXDependentScopeMemberExpr>(E))
    if (const FieldDecl *FD = DM->isImplicitAccess() ? nullptr : patternField(DM);
        FD && FD->getType()->isArrayType())
      return object(E, Fn, Depth + 1);
  if (isa<CXXThisExpr>(E))
    return thisRoot(Fn);
  if (const auto *Call = dyn_cast<CallExpr>(E))
    return callResult(Call, Fn, /*ByRef=*/false, Depth);
  if (E->isGLValue() && isa<DeclRefExpr, MemberExpr>(E))
    return loaded(E, Fn, Depth + 1);
  return std::nullopt;
}

/// The address held in the object \p Sub designates.
Path PathResolver::loaded(const Expr *Sub, const FunctionDecl *Fn,
                          unsigned Depth) {
  Sub = Sub->IgnoreParens();
  if (const auto *DRE = dyn_cast<DeclRefExpr>(Sub))
    if (const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
        V && V->hasLocalStorage() && !isa<ParmVarDecl>(V) && V->getInit() &&
        !V->getType()->isRecordType())
      // `uint64_t *bar = &full[s]`, `uint32_t addr = smem_u32(bar)`.
      if (Path P = value(V->getInit(), Fn, Depth + 1))
        return P;
  // A parameter or a pointer field: whatever it points to.
  return withStep(object(Sub, Fn, Depth + 1), deref());
}

Path PathResolver::callResult(const CallExpr *Call, const FunctionDecl *Fn,
                              bool ByRef, unsigned Depth) {
  const FunctionDecl *Callee = Call->getDirectCallee();
  if (!Callee)
    return std::nullopt;
  const FunctionDecl *Def = nullptr;
  if (Callee->hasBody(Def) && Def && Def->getBody()) {
    auto Values = returnValues(Def->getBody());
    if (Values.size() == 1) {
      Path Inner = ByRef ? object(Values[0], Def, Depth + 1)
                         : value(Values[0], Def, Depth + 1);
      if (Inner)
        return lift(*Inner, Call, Callee, Fn, Depth + 1);
    }
  }
  if (ByRef)
    return std::nullopt;
  // A conversion without a body we can read (`__cvta_generic_to_shared`):
  // the address its one pointer argument points to.
  const Expr *Ptr = nullptr;
  for (const Expr *A : Call->arguments())
    if (A->getType()->isPointerType()) {
      if (Ptr)
        return std::nullopt;
      Ptr = A;
    }
  return Ptr ? value(Ptr, Fn, Depth + 1) : std::nullopt;
}

Path PathResolver::lift(const BarrierPath &Inner, const Expr *Site,
                        const FunctionDecl *Callee, const FunctionDecl *Caller,
                        unsigned Depth) {
  if (Depth > MaxDepth)
    return std::nullopt;
  Path Out;
  size_t Skip = 0;
  switch (Inner.Root) {
  case BarrierPath::SharedVar:
    Out = rootOf(BarrierPath::SharedVar, Inner.Var);
    break;
  case BarrierPath::Local:
    return std::nullopt; // the callee's own object, new at each call
  case BarrierPath::Param: {
    // A lambda's use of its enclosing function's parameter (captured): the
    // same variable at the call, not one of the lambda's own arguments.
    const auto *P = dyn_cast_or_null<ParmVarDecl>(Inner.Var);
    const auto *Owner = P ? dyn_cast<FunctionDecl>(P->getDeclContext()) : nullptr;
    if (Owner && Callee &&
        Owner->getCanonicalDecl() != Callee->getCanonicalDecl()) {
      Out = rootOf(BarrierPath::Param, Inner.Var);
      Out->ParamIndex = Inner.ParamIndex;
      break;
    }
    const Expr *Arg = argFor(Site, Callee, Inner.ParamIndex);
    if (!Arg)
      return std::nullopt;
    // A pointer (or integer address) parameter: the object the argument
    // points to; an object parameter: the object the argument names.
    if (!Inner.Steps.empty() && Inner.Steps[0].Kind == Step::Deref) {
      Out = value(Arg, Caller, Depth + 1);
      Skip = 1;
    } else {
      Out = object(argumentObject(Arg), Caller, Depth + 1);
    }
    break;
  }
  case BarrierPath::This: {
    // A lambda's captured `this`: the enclosing member function's, which
    // only a call of that function maps.
    if (const auto *Owner = dyn_cast_or_null<FunctionDecl>(Inner.Var);
        Owner && Callee &&
        Owner->getCanonicalDecl() != Callee->getCanonicalDecl()) {
      Out = rootOf(BarrierPath::This, Owner);
      break;
    }
    const auto *Call = dyn_cast<CallExpr>(Site);
    if (!Call)
      break;
    if (isa<CXXOperatorCallExpr>(Call) && !isa<CXXMemberCallExpr>(Call)) {
      if (Call->getNumArgs())
        Out = object(argumentObject(Call->getArg(0)), Caller, Depth + 1);
      break;
    }
    // `obj.f()`, `p->f()`, also as a pattern leaves them unresolved; a
    // pattern's `f()` of its own class keeps `*this`.
    bool Arrow = false, ImplicitThis = false;
    const Expr *Obj = memberCallObject(Call, Arrow, ImplicitThis);
    if (ImplicitThis)
      Out = thisRoot(Caller);
    else if (Obj)
      Out = Arrow ? value(Obj, Caller, Depth + 1)
                  : object(argumentObject(Obj), Caller, Depth + 1);
    break;
  }
  }
  if (!Out)
    return std::nullopt;
  for (size_t I = Skip; I < Inner.Steps.size(); ++I) {
    Step S = Inner.Steps[I];
    if (S.Kind == Step::Index && S.IndexKind == Step::IndexParam)
      S = index(argFor(Site, Callee, unsigned(S.Value)), Caller);
    Out->Steps.push_back(S);
  }
  return Out;
}

bool BarrierPath::sameRoot(const BarrierPath &O) const {
  if (Root != O.Root)
    return false;
  switch (Root) {
  case SharedVar:
  case Local:
    return Var == O.Var;
  case Param:
    return ParamIndex == O.ParamIndex && Var == O.Var;
  case This:
    return true;
  }
  return false;
}

BarrierPath::Match BarrierPath::compareSteps(const BarrierPath &O) const {
  // Fields and dereferences must agree; an index may be left out on one
  // side (`full` decayed is `&full[0]`), and two constants must agree.
  size_t I = 0, J = 0;
  bool Maybe = false;
  // Elements of an array of pointers may point to one barrier; distinct
  // pointer fields (a pipeline's full and empty arrays) are taken not to.
  auto derefFollows = [](const std::vector<Step> &S, size_t From) {
    for (size_t K = From; K < S.size(); ++K)
      if (S[K].Kind == Step::Deref)
        return true;
    return false;
  };
  while (I < Steps.size() || J < O.Steps.size()) {
    const Step *A = I < Steps.size() ? &Steps[I] : nullptr;
    const Step *B = J < O.Steps.size() ? &O.Steps[J] : nullptr;
    if (A && B && A->Kind == Step::Index && B->Kind == Step::Index) {
      if (A->IndexKind == Step::Const && B->IndexKind == Step::Const &&
          A->Value != B->Value)
        return derefFollows(Steps, I) || derefFollows(O.Steps, J)
                   ? Match::Unknown
                   : Match::Different;
      ++I, ++J;
      continue;
    }
    if (A && A->Kind == Step::Index) {
      ++I;
      continue;
    }
    if (B && B->Kind == Step::Index) {
      ++J;
      continue;
    }
    if (!A || !B) {
      Maybe = true; // one path goes deeper: a part of the other's object
      break;
    }
    if (A->Kind != B->Kind)
      return Match::Unknown;
    if (A->Kind == Step::Field && A->Member != B->Member)
      return Match::Different;
    ++I, ++J;
  }
  return Maybe ? Match::Unknown : Match::Same;
}

BarrierPath::Match BarrierPath::compare(const BarrierPath &O) const {
  if (sameRoot(O))
    return compareSteps(O);
  if (Root == SharedVar && O.Root == SharedVar)
    return Match::Different;
  return Match::Unknown;
}

std::string BarrierPath::describe() const {
  std::string S;
  switch (Root) {
  case This:
    S = "*this";
    break;
  default:
    S = Var ? "'" + Var->getNameAsString() + "'" : "?";
  }
  for (const Step &St : Steps) {
    if (St.Kind == Step::Field)
      S += "." + St.Member->getNameAsString();
    else if (St.Kind == Step::Deref)
      S = "*" + S;
    else if (St.IndexKind == Step::Const)
      S += "[" + std::to_string(St.Value) + "]";
    else
      S += "[*]";
  }
  return S;
}

std::optional<BarrierPath> barrierPathOf(const Expr *E, const FunctionDecl *Fn,
                                         ASTContext &Ctx) {
  return PathResolver(Ctx).value(E, Fn);
}

std::optional<BarrierPath> liftBarrierPath(const BarrierPath &Inner,
                                           const Expr *Site,
                                           const FunctionDecl *Callee,
                                           const FunctionDecl *Caller,
                                           ASTContext &Ctx) {
  return PathResolver(Ctx).lift(Inner, Site, Callee, Caller);
}

} // namespace proxyfence
