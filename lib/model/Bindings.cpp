//===- Bindings.cpp - constant arguments a summary is specialised on ------===//
#include "model/Bindings.h"
#include "model/DependentCalls.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"

using namespace clang;

namespace proxyfence {

static const ParmVarDecl *paramRef(const Expr *E) {
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts()))
    return dyn_cast<ParmVarDecl>(DRE->getDecl());
  return nullptr;
}

/// The parameter a call goes through: `f(x)` or `(*f)(x)`.
static const ParmVarDecl *calleeParam(const Expr *Callee) {
  Callee = Callee->IgnoreParenImpCasts();
  if (const auto *UO = dyn_cast<UnaryOperator>(Callee);
      UO && UO->getOpcode() == UO_Deref)
    Callee = UO->getSubExpr();
  return paramRef(Callee);
}

std::optional<int64_t> Bindings::evaluate(const Expr *E,
                                          ASTContext &Ctx) const {
  if (!E || E->isValueDependent() || E->isTypeDependent())
    return std::nullopt;
  E = E->IgnoreParens();
  if (const ParmVarDecl *P = paramRef(E)) {
    auto It = Ints.find(P->getFunctionScopeIndex());
    if (It != Ints.end())
      return It->second;
    return std::nullopt;
  }
  if (const auto *CE = dyn_cast<CastExpr>(E))
    if (CE->getType()->isIntegralOrEnumerationType() ||
        CE->getType()->isBooleanType()) {
      if (auto V = evaluate(CE->getSubExpr(), Ctx))
        return CE->getType()->isBooleanType() ? int64_t(*V != 0) : *V;
    }
  if (const auto *UO = dyn_cast<UnaryOperator>(E)) {
    auto V = evaluate(UO->getSubExpr(), Ctx);
    if (!V)
      return std::nullopt;
    switch (UO->getOpcode()) {
    case UO_LNot:
      return int64_t(!*V);
    case UO_Minus:
      return -*V;
    case UO_Plus:
      return *V;
    default:
      return std::nullopt;
    }
  }
  if (const auto *BO = dyn_cast<BinaryOperator>(E)) {
    auto L = evaluate(BO->getLHS(), Ctx);
    // `a && b`, `a || b`: one side may decide.
    if (BO->getOpcode() == BO_LAnd || BO->getOpcode() == BO_LOr) {
      bool Or = BO->getOpcode() == BO_LOr;
      if (L && bool(*L) == Or)
        return int64_t(Or);
      auto R = evaluate(BO->getRHS(), Ctx);
      if (R && bool(*R) == Or)
        return int64_t(Or);
      if (L && R)
        return int64_t(Or ? (*L || *R) : (*L && *R));
      return std::nullopt;
    }
    auto R = evaluate(BO->getRHS(), Ctx);
    if (!L || !R)
      return std::nullopt;
    switch (BO->getOpcode()) {
    case BO_EQ: return int64_t(*L == *R);
    case BO_NE: return int64_t(*L != *R);
    case BO_LT: return int64_t(*L < *R);
    case BO_GT: return int64_t(*L > *R);
    case BO_LE: return int64_t(*L <= *R);
    case BO_GE: return int64_t(*L >= *R);
    case BO_Add: return *L + *R;
    case BO_Sub: return *L - *R;
    case BO_Mul: return *L * *R;
    case BO_And: return *L & *R;
    case BO_Or: return *L | *R;
    default: return std::nullopt;
    }
  }
  Expr::EvalResult R;
  if (E->EvaluateAsInt(R, Ctx) && R.Val.getInt().getSignificantBits() <= 64)
    return R.Val.getInt().getExtValue();
  return std::nullopt;
}

const FunctionDecl *Bindings::function(const Expr *E) const {
  if (Functions.empty())
    return nullptr;
  const ParmVarDecl *P = calleeParam(E);
  if (!P)
    return nullptr;
  auto It = Functions.find(P->getFunctionScopeIndex());
  return It == Functions.end() ? nullptr : It->second;
}

const FunctionDecl *Bindings::callee(const CallExpr *Call) const {
  return function(Call->getCallee());
}

bool Bindings::feasible(const CFGBlock &B, unsigned Succ,
                        ASTContext &Ctx) const {
  if (Ints.empty() || B.succ_size() != 2)
    return true;
  // Two-way branches (`if`, `?:`, `&&`, `||`, loops): successor 0 is taken
  // when the condition holds.
  const auto *Cond = dyn_cast_or_null<Expr>(B.getTerminatorCondition());
  if (!B.getTerminatorStmt() || !Cond)
    return true;
  auto V = evaluate(Cond, Ctx);
  if (!V)
    return true;
  return Succ == (*V ? 0u : 1u);
}

/// The function an argument names (`fn`, `&fn`, `Op::fma`), if any.
static const FunctionDecl *functionArg(const Expr *E) {
  E = E->IgnoreParenImpCasts();
  if (const auto *UO = dyn_cast<UnaryOperator>(E); UO && UO->getOpcode() == UO_AddrOf)
    E = UO->getSubExpr()->IgnoreParenImpCasts();
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
    return dyn_cast<FunctionDecl>(DRE->getDecl());
  return nullptr;
}

namespace {
/// Parameters named in the conditions of `if` and `?:`, or called.
class DecisiveParams : public RecursiveASTVisitor<DecisiveParams> {
public:
  std::set<unsigned> &Out;
  explicit DecisiveParams(std::set<unsigned> &Out) : Out(Out) {}
  void collect(const Expr *E) {
    if (!E)
      return;
    struct Refs : RecursiveASTVisitor<Refs> {
      std::set<unsigned> &Out;
      explicit Refs(std::set<unsigned> &Out) : Out(Out) {}
      bool VisitDeclRefExpr(DeclRefExpr *D) {
        if (const auto *P = dyn_cast<ParmVarDecl>(D->getDecl()))
          Out.insert(P->getFunctionScopeIndex());
        return true;
      }
    } R(Out);
    R.TraverseStmt(const_cast<Expr *>(E));
  }
  bool VisitIfStmt(IfStmt *S) {
    collect(S->getCond());
    return true;
  }
  bool VisitConditionalOperator(ConditionalOperator *C) {
    collect(C->getCond());
    return true;
  }
  bool VisitCallExpr(CallExpr *C) {
    if (!C->getDirectCallee())
      if (const ParmVarDecl *P = calleeParam(C->getCallee()))
        Out.insert(P->getFunctionScopeIndex());
    return true;
  }
  bool TraverseLambdaExpr(LambdaExpr *) { return true; }

  /// Parameters the body modifies (`u %= t` in a gcd loop): their value at
  /// the call says nothing about later conditions, so none is bound.
  std::set<unsigned> Modified;
  void modifies(const Expr *E) {
    if (const ParmVarDecl *P = paramRef(E->IgnoreParenImpCasts()))
      Modified.insert(P->getFunctionScopeIndex());
  }
  bool VisitBinaryOperator(BinaryOperator *B) {
    if (B->isAssignmentOp())
      modifies(B->getLHS());
    return true;
  }
  bool VisitUnaryOperator(UnaryOperator *U) {
    if (U->isIncrementDecrementOp() || U->getOpcode() == UO_AddrOf)
      modifies(U->getSubExpr());
    return true;
  }
};
} // namespace

const std::set<unsigned> &ArgumentBinder::decisive(const FunctionDecl *Def) {
  auto [It, New] = Decisive.try_emplace(Def);
  if (New && Def->getBody()) {
    DecisiveParams Visitor(It->second);
    Visitor.TraverseStmt(Def->getBody());
    for (unsigned P : Visitor.Modified)
      It->second.erase(P);
  }
  return It->second;
}

Bindings ArgumentBinder::bind(const Expr *Call, const FunctionDecl *Callee,
                              const Bindings &Outer) {
  Bindings B;
  const std::set<unsigned> &Wanted = decisive(Callee);
  if (Wanted.empty())
    return B;
  llvm::ArrayRef<const Expr *> Args;
  unsigned Skip = 0;
  if (const auto *CE = dyn_cast<CallExpr>(Call)) {
    Args = llvm::ArrayRef(CE->getArgs(), CE->getNumArgs());
    // A member operator call passes the object as argument 0.
    if (isa<CXXOperatorCallExpr>(CE))
      if (const auto *MD = dyn_cast<CXXMethodDecl>(Callee); MD && MD->isInstance())
        Skip = 1;
  } else if (const auto *Ctor = dyn_cast<CXXConstructExpr>(Call)) {
    Args = llvm::ArrayRef(Ctor->getArgs(), Ctor->getNumArgs());
  }
  for (unsigned I = 0; I < Callee->getNumParams(); ++I) {
    if (!Wanted.count(I))
      continue;
    const ParmVarDecl *P = Callee->getParamDecl(I);
    // A template pattern's call leaves default arguments out: the default.
    const Expr *Arg = I + Skip < Args.size()          ? Args[I + Skip]
                      : P->hasDefaultArg() && !P->hasUnparsedDefaultArg() &&
                              !P->hasUninstantiatedDefaultArg()
                          ? P->getDefaultArg()
                          : nullptr;
    if (!Arg)
      break;
    if (const auto *D = dyn_cast<CXXDefaultArgExpr>(Arg))
      Arg = D->getExpr();
    // A lambda handed to a callable parameter (`Func &&f` of a pattern,
    // where `f(x)` names no callee until instantiation).
    if (const CXXMethodDecl *Op = lambdaCallOperator(Arg)) {
      B.Functions[I] = Op;
      continue;
    }
    QualType T = P->getType().getNonReferenceType();
    if (T->isFunctionPointerType() || T->isFunctionType() ||
        T->isMemberFunctionPointerType()) {
      if (const FunctionDecl *F = functionArg(Arg))
        B.Functions[I] = F;
      else if (const FunctionDecl *F = Outer.function(Arg))
        B.Functions[I] = F; // passed on from the caller's own binding
      continue;
    }
    if (!T->isIntegralOrEnumerationType()) {
      if (const FunctionDecl *F = Outer.function(Arg))
        B.Functions[I] = F; // a lambda the caller's own binding passes on
      continue;
    }
    if (auto V = Outer.evaluate(Arg, Ctx))
      B.Ints[I] = *V;
  }
  return B;
}

} // namespace proxyfence
