//===- DependentCalls.cpp - calls in template patterns, as written --------===//
#include "model/DependentCalls.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace clang;

namespace proxyfence {

namespace {
class ReturnCollector : public RecursiveASTVisitor<ReturnCollector> {
public:
  llvm::SmallVector<const Expr *, 2> Values;
  bool VisitReturnStmt(ReturnStmt *R) {
    if (R->getRetValue())
      Values.push_back(R->getRetValue());
    return true;
  }
  bool TraverseLambdaExpr(LambdaExpr *) { return true; }
};
} // namespace

llvm::SmallVector<const Expr *, 2> returnValues(const Stmt *Body) {
  ReturnCollector RC;
  RC.TraverseStmt(const_cast<Stmt *>(Body));
  return RC.Values;
}


namespace {
/// Whether \p FD can take \p Args arguments (a pack takes any number).
bool takesArgs(const FunctionDecl *FD, unsigned Args) {
  if (Args < FD->getMinRequiredArguments())
    return false;
  if (Args <= FD->getNumParams() || FD->isVariadic())
    return true;
  return llvm::any_of(FD->parameters(), [](const ParmVarDecl *P) {
    return P->isParameterPack();
  });
}
/// Whether argument \p ArgE can never convert to a parameter of type
/// \p Param, where the pattern tells its type: an integer to a pointer (but
/// for a literal 0), a pointer to a number. Other conversions are not
/// judged.
bool cannotConvert(const Expr *ArgE, QualType Param, ASTContext &Ctx);

/// Adds \p ND to the candidates when it can take the call: its arguments
/// and \p ExplicitArgs explicit template arguments (-1: none written).
void addCandidate(DependentCallee &R, const NamedDecl *ND, const CallExpr *Call,
                  int ExplicitArgs) {
  ND = ND->getUnderlyingDecl();
  const auto *Template = dyn_cast<FunctionTemplateDecl>(ND);
  const FunctionDecl *FD =
      Template ? Template->getTemplatedDecl() : dyn_cast<FunctionDecl>(ND);
  if (!FD)
    return;
  if (ExplicitArgs >= 0) {
    if (!Template)
      return;
    const TemplateParameterList *Params = Template->getTemplateParameters();
    if (unsigned(ExplicitArgs) > Params->size() && !Params->hasParameterPack())
      return;
  }
  unsigned Args = Call->getNumArgs();
  // An operator that is a member takes its left operand as the object.
  if (isa<CXXOperatorCallExpr>(Call) && Args)
    if (const auto *MD = dyn_cast<CXXMethodDecl>(FD); MD && MD->isInstance())
      --Args;
  if (!takesArgs(FD, Args))
    return;
  // `b->arrive(cta)` is not the static `arrive(const uint64_t *)` overload.
  unsigned First = Call->getNumArgs() - Args;
  for (unsigned I = 0; I < Args && I < FD->getNumParams(); ++I)
    if (!FD->getParamDecl(I)->isParameterPack() &&
        cannotConvert(Call->getArg(First + I), FD->getParamDecl(I)->getType(),
                      FD->getASTContext()))
      return;
  const FunctionDecl *Canon = FD->getCanonicalDecl();
  if (llvm::none_of(R.Viable, [&](const FunctionDecl *V) {
        return V->getCanonicalDecl() == Canon;
      }))
    R.Viable.push_back(FD);
}

/// The classes a qualifier `conditional_t<C, A, B>` (std, cuda::std, cute;
/// also `conditional<C, A, B>::type`) may name when C depends on template
/// parameters: A and B, each a class the pattern already knows.
llvm::SmallVector<const CXXRecordDecl *, 2>
conditionalChoices(NestedNameSpecifier Q) {
  llvm::SmallVector<const CXXRecordDecl *, 2> Out;
  if (Q.getKind() != NestedNameSpecifier::Kind::Type)
    return Out;
  const Type *T = Q.getAsType();
  // `typename conditional<C, A, B>::type`: the specialisation is the prefix.
  if (const auto *DN = T->getAs<DependentNameType>();
      DN && DN->getIdentifier() && DN->getIdentifier()->getName() == "type" &&
      DN->getQualifier().getKind() == NestedNameSpecifier::Kind::Type)
    T = DN->getQualifier().getAsType();
  const auto *TST = T->getAs<TemplateSpecializationType>();
  const TemplateDecl *TD =
      TST ? TST->getTemplateName().getAsTemplateDecl() : nullptr;
  if (!TD || (TD->getName() != "conditional_t" &&
              TD->getName() != "conditional") ||
      TST->template_arguments().size() != 3)
    return Out;
  for (const TemplateArgument &A : TST->template_arguments().drop_front()) {
    if (A.getKind() != TemplateArgument::Type || A.getAsType()->isDependentType())
      return {};
    const CXXRecordDecl *RD = A.getAsType()->getAsCXXRecordDecl();
    if (!RD || !RD->hasDefinition())
      return {};
    Out.push_back(RD->getDefinition());
  }
  return Out;
}

} // namespace

const CXXMethodDecl *lambdaCallOperator(const Expr *E) {
  if (!E)
    return nullptr;
  E = E->IgnoreImplicitAsWritten()->IgnoreParens();
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
    if (const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
        V && V->hasLocalStorage() && !isa<ParmVarDecl>(V) && V->getInit())
      E = V->getInit()->IgnoreImplicitAsWritten()->IgnoreParens();
  const auto *L = dyn_cast<LambdaExpr>(E);
  return L ? L->getCallOperator() : nullptr;
}

namespace {

/// The type \p T names when it is a lambda's closure type, spelled
/// `decltype(f)` or as the closure itself: its call operator.
const CXXMethodDecl *closureCallOperator(QualType T) {
  if (T.isNull())
    return nullptr;
  T = T.getNonReferenceType();
  if (const auto *DT = T->getAs<DecltypeType>())
    return lambdaCallOperator(DT->getUnderlyingExpr());
  const CXXRecordDecl *RD = T->getAsCXXRecordDecl();
  return RD && RD->isLambda() ? RD->getLambdaCallOperator() : nullptr;
}

/// In the pattern of class template \p CTD, the index of the type
/// parameter of the field that every `operator[]` calls with its own
/// parameters and returns the result of: `return func(i);` with `FuncT func`.
std::optional<unsigned> storedCallableParam(const ClassTemplateDecl *CTD,
                                            unsigned Args) {
  const CXXRecordDecl *RD = CTD->getTemplatedDecl();
  if (!RD || !RD->hasDefinition())
    return std::nullopt;
  RD = RD->getDefinition();
  std::optional<unsigned> Index;
  ASTContext &Ctx = RD->getASTContext();
  for (const NamedDecl *ND : RD->lookup(
           Ctx.DeclarationNames.getCXXOperatorName(OO_Subscript))) {
    const auto *MD = dyn_cast<CXXMethodDecl>(ND->getUnderlyingDecl());
    const auto *Body = MD ? dyn_cast_or_null<CompoundStmt>(MD->getBody())
                          : nullptr;
    if (!Body || MD->getNumParams() != Args || Body->size() != 1)
      return std::nullopt;
    const auto *Ret = dyn_cast<ReturnStmt>(Body->body_front());
    const auto *Call = Ret && Ret->getRetValue()
                           ? dyn_cast<CallExpr>(Ret->getRetValue()
                                                    ->IgnoreImplicitAsWritten()
                                                    ->IgnoreParens())
                           : nullptr;
    if (!Call || Call->getNumArgs() != Args)
      return std::nullopt;
    // The arguments: the operator's own parameters, in order, unchanged.
    for (unsigned I = 0; I < Args; ++I) {
      const auto *DRE = dyn_cast<DeclRefExpr>(
          Call->getArg(I)->IgnoreImplicitAsWritten()->IgnoreParens());
      if (!DRE || DRE->getDecl() != MD->getParamDecl(I))
        return std::nullopt;
    }
    const auto *ME =
        dyn_cast<MemberExpr>(Call->getCallee()->IgnoreImplicitAsWritten());
    const auto *Field = ME && isa<CXXThisExpr>(ME->getBase()->IgnoreImpCasts())
                            ? dyn_cast<FieldDecl>(ME->getMemberDecl())
                            : nullptr;
    const auto *Param =
        Field ? Field->getType().getNonReferenceType()
                    ->getAs<TemplateTypeParmType>()
              : nullptr;
    if (!Param || Param->getDepth() != CTD->getTemplateParameters()->getDepth() ||
        (Index && *Index != Param->getIndex()))
      return std::nullopt;
    Index = Param->getIndex();
  }
  return Index;
}

/// The class template and the arguments a local variable is constructed
/// from: `auto v = Visitor(f)` (deduced), `Visitor<decltype(f)> v(f)`.
struct Construction {
  const ClassTemplateDecl *Template = nullptr;
  ArrayRef<TemplateArgument> Written; // empty when deduced
  llvm::SmallVector<const Expr *, 2> Args;
};

std::optional<Construction> constructionOf(const VarDecl *V) {
  if (!V->hasLocalStorage() || isa<ParmVarDecl>(V) || !V->getInit())
    return std::nullopt;
  Construction C;
  auto templateOf = [&](QualType T) {
    if (T.isNull())
      return;
    if (const auto *TST = T->getAs<TemplateSpecializationType>()) {
      C.Template = dyn_cast_or_null<ClassTemplateDecl>(
          TST->getTemplateName().getAsTemplateDecl());
      C.Written = TST->template_arguments();
    } else if (const auto *DT = T->getAs<DeducedTemplateSpecializationType>()) {
      C.Template = dyn_cast_or_null<ClassTemplateDecl>(
          DT->getTemplateName().getAsTemplateDecl());
    }
  };
  const Expr *Init = V->getInit()->IgnoreImplicitAsWritten()->IgnoreParens();
  if (const auto *UC = dyn_cast<CXXUnresolvedConstructExpr>(Init)) {
    templateOf(UC->getTypeAsWritten());
    C.Args.append(UC->arg_begin(), UC->arg_end());
  } else if (const auto *PL = dyn_cast<ParenListExpr>(Init)) {
    for (unsigned I = 0; I < PL->getNumExprs(); ++I)
      C.Args.push_back(PL->getExpr(I));
  } else if (const auto *IL = dyn_cast<InitListExpr>(Init)) {
    C.Args.append(IL->inits().begin(), IL->inits().end());
  }
  if (!C.Template)
    templateOf(V->getType());
  if (!C.Template)
    return std::nullopt;
  return C;
}

/// The call operator of the callable \p C stores as template parameter
/// \p Index: the written argument, or the constructor argument of that
/// parameter's type.
const CXXMethodDecl *storedCallable(const Construction &C, unsigned Index) {
  if (Index < C.Written.size()) {
    const TemplateArgument &A = C.Written[Index];
    return A.getKind() == TemplateArgument::Type
               ? closureCallOperator(A.getAsType())
               : nullptr;
  }
  const CXXRecordDecl *RD = C.Template->getTemplatedDecl()->getDefinition();
  if (!RD)
    return nullptr;
  const CXXMethodDecl *Found = nullptr;
  for (const CXXConstructorDecl *Ctor : RD->ctors()) {
    if (Ctor->getNumParams() != C.Args.size())
      continue;
    for (unsigned I = 0; I < C.Args.size(); ++I) {
      const auto *P = Ctor->getParamDecl(I)
                          ->getType()
                          .getNonReferenceType()
                          ->getAs<TemplateTypeParmType>();
      if (!P || P->getIndex() != Index)
        continue;
      const CXXMethodDecl *Op = lambdaCallOperator(C.Args[I]);
      if (!Op || (Found && Found != Op))
        return nullptr;
      Found = Op;
    }
  }
  return Found;
}

/// The type a function returns, its `auto` deduced from the returned
/// expressions as written (all of one type that depends on nothing).
QualType returnTypeOf(const FunctionDecl *FD) {
  QualType R = FD->getReturnType();
  const auto *Auto = dyn_cast<AutoType>(R.getTypePtr());
  if (!Auto)
    return R->isDependentType() ? QualType() : R;
  // In a pattern the `auto` is left undeduced, or deduced as dependent.
  if (QualType Deduced = Auto->getDeducedType();
      !Deduced.isNull() && !Deduced->isDependentType())
    return Deduced;
  if (Auto->isDecltypeAuto() || Auto->isConstrained() || !FD->getBody())
    return {};
  QualType Out;
  for (const Expr *V : returnValues(FD->getBody())) {
    QualType T = V->getType();
    if (T->isDependentType())
      return {};
    T = T.getNonReferenceType().getUnqualifiedType();
    if (T->isArrayType() || T->isFunctionType())
      T = FD->getASTContext().getDecayedType(T);
    if (!Out.isNull() &&
        !FD->getASTContext().hasSameType(Out, T))
      return {};
    Out = T;
  }
  return Out;
}
} // namespace

const CXXMethodDecl *subscriptCallable(const Expr *Object, unsigned Args) {
  const auto *DRE =
      Object ? dyn_cast<DeclRefExpr>(Object->IgnoreParenImpCasts()) : nullptr;
  const auto *V = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
  if (!V)
    return nullptr;
  std::optional<Construction> C = constructionOf(V);
  if (!C)
    return nullptr;
  std::optional<unsigned> Index = storedCallableParam(C->Template, Args);
  if (!Index)
    return nullptr;
  const CXXMethodDecl *Op = storedCallable(*C, *Index);
  return Op && takesArgs(Op, Args) ? Op : nullptr;
}

QualType patternType(const Expr *E) {
  if (!E)
    return {};
  E = E->IgnoreParens();
  if (!E->isTypeDependent())
    return E->getType();
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
    // `auto x = ...` / `auto &x = ...`: what the initialiser gives.
    const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
    if (V && V->hasLocalStorage() && !isa<ParmVarDecl>(V) && V->getInit() &&
        V->getType()->getContainedAutoType())
      return patternType(V->getInit());
    // As declared: `Barrier *bars[kStages]` is dependent only through its
    // bound, and its elements' class is known (a template parameter's type
    // names no class, so calls on it stay unresolved).
    if (V && !V->getType()->getContainedAutoType())
      return V->getType();
    return {};
  }
  // `reinterpret_cast<Storage<N> *>(p)`: the type it names.
  if (const auto *EC = dyn_cast<ExplicitCastExpr>(E))
    return EC->getTypeAsWritten();
  // `smem.bars`: the member's declared type.
  if (const auto *DM = dyn_cast<CXXDependentScopeMemberExpr>(E)) {
    const FieldDecl *FD = DM->isImplicitAccess() ? nullptr : patternField(DM);
    return FD ? FD->getType() : QualType();
  }
  if (const auto *UO = dyn_cast<UnaryOperator>(E)) {
    QualType Sub = patternType(UO->getSubExpr());
    if (UO->getOpcode() == UO_Deref && !Sub.isNull() && Sub->isPointerType())
      return Sub->getPointeeType();
    return {};
  }
  if (const auto *ASE = dyn_cast<ArraySubscriptExpr>(E)) {
    // getBase() guesses by type, which a dependent index does not have.
    if (const CXXMethodDecl *Op = subscriptCallable(ASE->getLHS(), 1))
      return returnTypeOf(Op);
    QualType Base = patternType(subscriptBase(ASE));
    if (!Base.isNull() && Base->isPointerType())
      return Base->getPointeeType();
    if (!Base.isNull() && Base->isArrayType())
      return Base->getAsArrayTypeUnsafe()->getElementType();
    return {};
  }
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    DependentCallee D = dependentCallee(Call);
    return D.Viable.size() == 1 ? returnTypeOf(D.Viable.front()) : QualType();
  }
  return {};
}

const CXXRecordDecl *classPattern(QualType T) {
  if (T.isNull())
    return nullptr;
  T = T.getNonReferenceType();
  if (const CXXRecordDecl *RD = T->getAsCXXRecordDecl())
    return RD->hasDefinition() ? RD->getDefinition() : nullptr;
  const auto *TST = T->getAs<TemplateSpecializationType>();
  const auto *CTD =
      TST ? dyn_cast_or_null<ClassTemplateDecl>(
                TST->getTemplateName().getAsTemplateDecl())
          : nullptr;
  if (!CTD)
    return nullptr;
  llvm::SmallVector<ClassTemplatePartialSpecializationDecl *, 2> Partial;
  const_cast<ClassTemplateDecl *>(CTD)->getPartialSpecializations(Partial);
  if (!Partial.empty() ||
      llvm::any_of(CTD->specializations(), [](const auto *S) {
        return S->getSpecializationKind() == TSK_ExplicitSpecialization;
      }))
    return nullptr;
  const CXXRecordDecl *RD = CTD->getTemplatedDecl();
  return RD && RD->hasDefinition() ? RD->getDefinition() : nullptr;
}

namespace {

/// Whether a value of a scalar type may convert to class \p RD: through a
/// constructor that is not explicit and takes one argument (copy and move
/// constructors need one of the class already).
bool convertsFromScalar(const CXXRecordDecl *RD) {
  for (const Decl *D : RD->decls()) {
    if (isa<UsingDecl>(D)) // perhaps inherited constructors: not judged
      return true;
    if (const auto *FT = dyn_cast<FunctionTemplateDecl>(D))
      D = FT->getTemplatedDecl();
    const auto *Ctor = dyn_cast<CXXConstructorDecl>(D);
    if (Ctor && !Ctor->isExplicit() && !Ctor->isCopyOrMoveConstructor() &&
        Ctor->getMinRequiredArguments() <= 1 &&
        (Ctor->getNumParams() >= 1 || Ctor->isVariadic()))
      return true;
  }
  return false;
}

/// Whether class \p RD may convert to a scalar: through a conversion
/// function of its own or of a base.
bool convertsToScalar(const CXXRecordDecl *RD, unsigned Depth = 0) {
  if (Depth > 8)
    return true;
  for (const Decl *D : RD->decls()) {
    if (const auto *FT = dyn_cast<FunctionTemplateDecl>(D))
      D = FT->getTemplatedDecl();
    if (isa<CXXConversionDecl>(D))
      return true;
  }
  for (const CXXBaseSpecifier &B : RD->bases()) {
    const CXXRecordDecl *Base = classPattern(B.getType());
    if (!Base || convertsToScalar(Base, Depth + 1))
      return true;
  }
  return false;
}

bool isScalar(QualType T) {
  return !T->isDependentType() &&
         (T->isIntegralOrEnumerationType() || T->isFloatingType() ||
          T->isPointerType());
}

bool cannotConvert(const Expr *ArgE, QualType Param, ASTContext &Ctx) {
  QualType Arg = patternType(ArgE);
  // A parameter or member of a dependent class type (`PipelineState<N>
  // state`): the type it is declared with.
  if (Arg.isNull() && isa<DeclRefExpr, MemberExpr>(ArgE->IgnoreParenImpCasts()))
    Arg = ArgE->IgnoreParenImpCasts()->getType();
  if (Arg.isNull())
    return false;
  Param = Param.getNonReferenceType();
  Arg = Arg.getNonReferenceType();
  // A class and a scalar convert only through a constructor or a conversion
  // function.
  if (isScalar(Arg) && !Param->isBuiltinType() && !Param->isPointerType())
    if (const CXXRecordDecl *RD = classPattern(Param))
      return !convertsFromScalar(RD);
  if (isScalar(Param) && !Arg->isBuiltinType() && !Arg->isPointerType())
    if (const CXXRecordDecl *RD = classPattern(Arg))
      return !convertsToScalar(RD);
  if (Param->isDependentType() || Arg->isDependentType())
    return false;
  if (Param->isPointerType())
    return (Arg->isIntegralOrEnumerationType() || Arg->isFloatingType()) &&
           (ArgE->isValueDependent() ||
            !ArgE->isNullPointerConstant(Ctx, Expr::NPC_ValueDependentIsNull));
  if (Param->isIntegralOrEnumerationType() && !Param->isBooleanType())
    return Arg->isPointerType() || Arg->isArrayType();
  if (Param->isFloatingType())
    return Arg->isPointerType() || Arg->isArrayType();
  return false;
}

/// The members named \p Name of \p RD, or else of the nearest bases that
/// declare it (`init` of a barrier class derived from another).
void lookupMember(const CXXRecordDecl *RD, DeclarationName Name,
                  llvm::SmallVectorImpl<const NamedDecl *> &Out) {
  auto Found = RD->lookup(Name);
  if (!Found.empty()) {
    Out.append(Found.begin(), Found.end());
    return;
  }
  for (const CXXBaseSpecifier &B : RD->bases())
    if (const CXXRecordDecl *Base = B.getType()->getAsCXXRecordDecl();
        Base && !B.isVirtual() && Base->hasDefinition())
      lookupMember(Base->getDefinition(), Name, Out);
}

/// `b->arrive(0u)`: `arrive(uint32_t)` and the static `arrive(const T *)`
/// both take it, but the integer parameter is the better match; keeps the
/// candidates that take every argument of integer type at an integer
/// parameter, when some do.
void preferExactIntegers(DependentCallee &R, const CallExpr *Call) {
  if (R.Viable.size() < 2)
    return;
  auto integral = [&](const FunctionDecl *FD) {
    for (unsigned I = 0; I < Call->getNumArgs() && I < FD->getNumParams(); ++I) {
      QualType Arg = patternType(Call->getArg(I));
      if (!Arg.isNull() && Arg->isIntegralOrEnumerationType() &&
          FD->getParamDecl(I)->getType().getNonReferenceType()->isPointerType())
        return false;
    }
    return true;
  };
  llvm::SmallVector<const FunctionDecl *, 2> Better;
  llvm::copy_if(R.Viable, std::back_inserter(Better), integral);
  if (!Better.empty())
    R.Viable.assign(Better.begin(), Better.end());
}

/// The class whose members `obj.f` / `p->f` names, when the pattern tells
/// the object's type.
const CXXRecordDecl *memberBaseClass(const CXXDependentScopeMemberExpr *ME) {
  if (ME->isImplicitAccess())
    return nullptr;
  QualType T = patternType(ME->getBase());
  // A parameter or member declared with a specialisation of a class
  // template (`LoadPipeline pipeline`): the template's pattern.
  const Expr *Base = ME->getBase()->IgnoreParenImpCasts();
  if (T.isNull() && isa<DeclRefExpr, MemberExpr>(Base))
    T = Base->getType();
  if (T.isNull())
    return nullptr;
  T = T.getNonReferenceType();
  if (ME->isArrow()) {
    if (!T->isPointerType())
      return nullptr;
    T = T->getPointeeType();
  }
  return classPattern(T);
}
} // namespace

DependentCallee dependentCallee(const CallExpr *Call) {
  DependentCallee R;
  if (Call->getDirectCallee() || !Call->getCallee())
    return R;
  const Expr *Callee = Call->getCallee()->IgnoreParenImpCasts();
  if (const auto *Q = dyn_cast<DependentScopeDeclRefExpr>(Callee)) {
    // `Op::copy(...)` with `using Op = conditional_t<C, A, B>`: A's or B's.
    R.Dependent = true;
    for (const CXXRecordDecl *RD : conditionalChoices(Q->getQualifier()))
      for (const NamedDecl *ND : RD->lookup(Q->getDeclName()))
        addCandidate(R, ND, Call,
                     Q->hasExplicitTemplateArgs() ? int(Q->getNumTemplateArgs())
                                                  : -1);
    return R;
  }
  // `f(x)` with `auto f = [&](const T *p) { ... };` in the same function:
  // the lambda's call operator, whatever the arguments' types.
  if (const auto *DRE = dyn_cast<DeclRefExpr>(Callee))
    if (const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
        V && V->hasLocalStorage() && V->getInit())
      if (const auto *L =
              dyn_cast<LambdaExpr>(V->getInit()->IgnoreImplicitAsWritten()))
        if (const CXXMethodDecl *Op = L->getCallOperator();
            Op && takesArgs(Op, Call->getNumArgs())) {
          R.Dependent = true;
          R.Viable.push_back(Op);
          return R;
        }
  // `tile(r, c)` with `Tile tile(p)` of a class template's specialisation:
  // that class's call operator.
  if (isa<DeclRefExpr, MemberExpr>(Callee)) {
    QualType T = patternType(Callee);
    if (const CXXRecordDecl *RD =
            classPattern(T.isNull() ? Callee->getType() : T)) {
      R.Dependent = true;
      llvm::SmallVector<const NamedDecl *, 4> Members;
      lookupMember(RD,
                   RD->getASTContext().DeclarationNames.getCXXOperatorName(
                       OO_Call),
                   Members);
      for (const NamedDecl *ND : Members)
        addCandidate(R, ND, Call, -1);
      preferExactIntegers(R, Call);
      return R;
    }
  }
  if (const auto *ME = dyn_cast<CXXDependentScopeMemberExpr>(Callee)) {
    // `v.operator[](i)` of a visitor storing a lambda: the lambda's call.
    if (ME->getMember().getCXXOverloadedOperator() == OO_Subscript &&
        !ME->isArrow() && !ME->isImplicitAccess())
      if (const CXXMethodDecl *Op =
              subscriptCallable(ME->getBase(), Call->getNumArgs())) {
        R.Dependent = true;
        R.Viable.push_back(Op);
        return R;
      }
    // `v[i]->init(1)`, `(*p).f()`: a member of the class the object has.
    if (const CXXRecordDecl *RD = memberBaseClass(ME)) {
      R.Dependent = true;
      llvm::SmallVector<const NamedDecl *, 4> Members;
      lookupMember(RD, ME->getMember(), Members);
      for (const NamedDecl *ND : Members)
        addCandidate(R, ND, Call,
                     ME->hasExplicitTemplateArgs() ? int(ME->getNumTemplateArgs())
                                                   : -1);
      preferExactIntegers(R, Call);
      return R;
    }
  }
  const auto *Lookup = dyn_cast<OverloadExpr>(Callee);
  if (!Lookup) {
    // `op(x)` with `Op op`, `t.f()` with `T t`, `T::f()`: nothing known.
    R.Dependent = Callee->isTypeDependent() ||
                  isa<CXXDependentScopeMemberExpr, DependentScopeDeclRefExpr>(
                      Callee);
    return R;
  }
  R.Dependent = true;
  for (const NamedDecl *ND : Lookup->decls())
    addCandidate(R, ND, Call,
                 Lookup->hasExplicitTemplateArgs()
                     ? int(Lookup->getNumTemplateArgs())
                     : -1);
  return R;
}

void MemberNameIndex::addClass(const CXXRecordDecl *RD) {
  if (RD->isLambda() || !RD->isThisDeclarationADefinition())
    return;
  for (const Decl *D : RD->decls()) {
    const auto *Template = dyn_cast<FunctionTemplateDecl>(D);
    if (isa<CXXMethodDecl>(Template ? Template->getTemplatedDecl() : D))
      if (const IdentifierInfo *II = cast<NamedDecl>(D)->getIdentifier())
        ByName[II].push_back(cast<NamedDecl>(D));
  }
  addContext(RD); // its nested classes
}

void MemberNameIndex::addContext(const DeclContext *DC) {
  for (const Decl *D : DC->decls()) {
    if (isa<NamespaceDecl, LinkageSpecDecl, ExportDecl>(D))
      addContext(cast<DeclContext>(D));
    else if (const auto *CT = dyn_cast<ClassTemplateDecl>(D))
      addClass(CT->getTemplatedDecl());
    else if (const auto *RD = dyn_cast<CXXRecordDecl>(D)) {
      // An explicit instantiation is its template's pattern again.
      if (const auto *S = dyn_cast<ClassTemplateSpecializationDecl>(RD);
          S && !S->isExplicitSpecialization() &&
          !isa<ClassTemplatePartialSpecializationDecl>(S))
        continue;
      addClass(RD);
    }
  }
}

llvm::SmallVector<const FunctionDecl *, 4>
MemberNameIndex::candidates(const CallExpr *Call, const ASTContext &Ctx,
                            unsigned Limit) {
  const auto *ME = dyn_cast_or_null<CXXDependentScopeMemberExpr>(
      Call->getCallee() ? Call->getCallee()->IgnoreParenImpCasts() : nullptr);
  if (!ME || ME->isImplicitAccess() || !ME->getMember().isIdentifier() ||
      memberBaseClass(ME))
    return {};
  if (!Built) {
    Built = true;
    addContext(Ctx.getTranslationUnitDecl());
  }
  auto It = ByName.find(ME->getMember().getAsIdentifierInfo());
  if (It == ByName.end())
    return {};
  DependentCallee R;
  for (const NamedDecl *ND : It->second)
    addCandidate(R, ND, Call,
                 ME->hasExplicitTemplateArgs() ? int(ME->getNumTemplateArgs())
                                               : -1);
  llvm::SmallPtrSet<const DeclContext *, 8> Classes;
  for (const FunctionDecl *F : R.Viable)
    Classes.insert(F->getDeclContext());
  if (Classes.size() > Limit)
    return {};
  return {R.Viable.begin(), R.Viable.end()};
}

const CXXMethodDecl *thisCapturedBy(const FunctionDecl *Fn) {
  const auto *MD = dyn_cast_or_null<CXXMethodDecl>(Fn);
  while (MD && MD->getParent()->isLambda())
    MD = dyn_cast<CXXMethodDecl>(MD->getParent()->getDeclContext());
  return MD && MD != Fn ? MD : nullptr;
}

const Expr *memberCallObject(const CallExpr *Call, bool &Arrow,
                             bool &ImplicitThis) {
  Arrow = ImplicitThis = false;
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call)) {
    const auto *ME = dyn_cast<MemberExpr>(MC->getCallee()->IgnoreParens());
    Arrow = ME && ME->isArrow();
    return MC->getImplicitObjectArgument();
  }
  if (!Call->getCallee())
    return nullptr;
  const Expr *Callee = Call->getCallee()->IgnoreParens();
  // A pattern's call of a member of its own class: a plain call of a bound
  // member.
  if (const auto *ME = dyn_cast<MemberExpr>(Callee)) {
    Arrow = ME->isArrow();
    return ME->getBase();
  }
  // `this->f(x)` / `obj.f(x)` left unresolved, the object known or implicit.
  auto object = [&](const auto *Member) -> const Expr * {
    if (Member->isImplicitAccess()) {
      ImplicitThis = true;
      return nullptr;
    }
    Arrow = Member->isArrow();
    return Member->getBase();
  };
  if (const auto *UM = dyn_cast<UnresolvedMemberExpr>(Callee))
    return object(UM);
  if (const auto *DM = dyn_cast<CXXDependentScopeMemberExpr>(Callee))
    return object(DM);
  // `tile(r, c)` in a pattern, `tile` an object of a class template's
  // specialisation: its call operator's object.
  if (const auto *DRE = dyn_cast<DeclRefExpr>(Callee);
      DRE && isa<VarDecl>(DRE->getDecl()) && Call->isTypeDependent())
    if (const CXXRecordDecl *RD = classPattern(DRE->getType());
        RD && !RD->isLambda())
      return DRE;
  return nullptr;
}

bool isTemplateConstant(const Expr *E) {
  E = E->IgnoreParenImpCasts();
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
    const ValueDecl *D = DRE->getDecl();
    if (isa<NonTypeTemplateParmDecl, EnumConstantDecl>(D))
      return true;
    const auto *V = dyn_cast<VarDecl>(D);
    return V && (V->isConstexpr() ||
                 (V->getType().isConstQualified() && V->hasGlobalStorage() &&
                  V->getInit() && V->getInit()->isValueDependent()));
  }
  if (isa<IntegerLiteral, CXXBoolLiteralExpr, SizeOfPackExpr,
          UnaryExprOrTypeTraitExpr, DependentScopeDeclRefExpr,
          SubstNonTypeTemplateParmExpr>(E))
    return true;
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    const FunctionDecl *FD = Call->getDirectCallee();
    if (FD ? !FD->isConstexpr()
           : !isa<UnresolvedLookupExpr>(Call->getCallee()->IgnoreParenImpCasts()))
      return false;
    return llvm::all_of(Call->arguments(), isTemplateConstant);
  }
  if (isa<CXXUnresolvedConstructExpr, CXXTemporaryObjectExpr,
          CXXScalarValueInitExpr>(E))
    return llvm::all_of(E->children(), [](const Stmt *C) {
      return !C || (isa<Expr>(C) && isTemplateConstant(cast<Expr>(C)));
    });
  if (isa<UnaryOperator, BinaryOperator, ConditionalOperator>(E))
    return llvm::all_of(E->children(), [](const Stmt *C) {
      return isa<Expr>(C) && isTemplateConstant(cast<Expr>(C));
    });
  return false;
}

static bool indexFirst(const ArraySubscriptExpr *ASE) {
  // `i[a]`: only when the left side is known to be the integer.
  return ASE->getLHS()->getType()->isIntegerType() &&
         !ASE->getLHS()->isTypeDependent();
}

std::optional<UnaryOperation> unaryOperation(const Expr *E) {
  if (const auto *UO = dyn_cast<UnaryOperator>(E))
    return UnaryOperation{UO->getOpcode(), UO->getSubExpr()};
  const auto *OC = dyn_cast<CXXOperatorCallExpr>(E);
  // `x++` passes a second, dummy argument.
  if (!OC || OC->getDirectCallee() || OC->getNumArgs() != 1)
    return std::nullopt;
  switch (OC->getOperator()) {
  case OO_Amp:
    return UnaryOperation{UO_AddrOf, OC->getArg(0)};
  case OO_Star:
    return UnaryOperation{UO_Deref, OC->getArg(0)};
  case OO_PlusPlus:
    return UnaryOperation{UO_PreInc, OC->getArg(0)};
  case OO_MinusMinus:
    return UnaryOperation{UO_PreDec, OC->getArg(0)};
  case OO_Exclaim:
    return UnaryOperation{UO_LNot, OC->getArg(0)};
  default:
    return std::nullopt;
  }
}

const Expr *subscriptBase(const ArraySubscriptExpr *ASE) {
  if (!ASE->getRHS()->isTypeDependent())
    return ASE->getBase();
  return indexFirst(ASE) ? ASE->getRHS() : ASE->getLHS();
}

const Expr *subscriptIndex(const ArraySubscriptExpr *ASE) {
  if (!ASE->getRHS()->isTypeDependent())
    return ASE->getIdx();
  return indexFirst(ASE) ? ASE->getLHS() : ASE->getRHS();
}

const FieldDecl *patternField(const CXXDependentScopeMemberExpr *ME) {
  if (!ME->getMember().isIdentifier())
    return nullptr;
  QualType T = patternType(ME->getBase());
  if (T.isNull())
    T = ME->getBaseType();
  if (T.isNull())
    return nullptr;
  if (ME->isArrow() && T->isPointerType())
    T = T->getPointeeType();
  T = T.getNonReferenceType();
  const CXXRecordDecl *RD = nullptr;
  if (const auto *TST = T->getAs<TemplateSpecializationType>()) {
    const auto *CTD = dyn_cast_or_null<ClassTemplateDecl>(
        TST->getTemplateName().getAsTemplateDecl());
    if (!CTD)
      return nullptr;
    llvm::SmallVector<ClassTemplatePartialSpecializationDecl *, 2> Partial;
    const_cast<ClassTemplateDecl *>(CTD)->getPartialSpecializations(Partial);
    if (!Partial.empty())
      return nullptr;
    RD = CTD->getTemplatedDecl();
  } else {
    RD = T->getAsCXXRecordDecl();
  }
  if (!RD || !RD->hasDefinition())
    return nullptr;
  for (const NamedDecl *D : RD->getDefinition()->lookup(ME->getMember()))
    if (const auto *FD = dyn_cast<FieldDecl>(D))
      return FD;
  return nullptr;
}

namespace {
/// Collects the dependent-typed lvalues of a pattern that are not read.
class NotReadIndexer : public RecursiveASTVisitor<NotReadIndexer> {
public:
  NotReadIndexer(llvm::DenseSet<const Expr *> &Out,
                 llvm::DenseSet<const Expr *> &Statements,
                 llvm::DenseSet<const Expr *> &Unconverted)
      : Out(Out), Statements(Statements), Unconverted(Unconverted) {}
  bool VisitCompoundStmt(CompoundStmt *CS) {
    for (Stmt *S : CS->body())
      statement(S);
    return true;
  }
  bool VisitIfStmt(IfStmt *If) {
    statement(If->getThen());
    statement(If->getElse());
    return true;
  }
  bool VisitForStmt(ForStmt *For) {
    statement(For->getBody());
    statement(For->getInc());
    return true;
  }
  bool VisitWhileStmt(WhileStmt *W) {
    statement(W->getBody());
    return true;
  }
  bool VisitDoStmt(DoStmt *D) {
    statement(D->getBody());
    return true;
  }
  bool VisitBinaryOperator(BinaryOperator *BO) {
    // Compound assignments are read and written by the assignment itself.
    if (BO->isAssignmentOp())
      add(BO->getLHS());
    // `v[0] = row[1]` with `v` of dependent type: the operator is resolved
    // only at instantiation, so the pattern converts no operand to a value.
    if (BO->isTypeDependent() && BO->getOpcode() != BO_Comma) {
      unconverted(BO->getRHS());
      if (!BO->isAssignmentOp())
        unconverted(BO->getLHS());
    }
    return true;
  }
  bool VisitUnaryOperator(UnaryOperator *UO) {
    if (UO->getOpcode() == UO_AddrOf || UO->isIncrementDecrementOp())
      add(UO->getSubExpr());
    else if (UO->isTypeDependent() && UO->getOpcode() != UO_Deref)
      unconverted(UO->getSubExpr());
    return true;
  }
  bool VisitVarDecl(VarDecl *V) {
    // `auto &s = *p;` binds the object: no read.
    if (V->getType()->isReferenceType())
      add(V->getInit());
    // `T x = row[1];`: initialised by value once T is known.
    else if (V->getType()->isDependentType() && V->getInit() &&
             V->getInitStyle() == VarDecl::CInit)
      unconverted(V->getInit());
    return true;
  }
  bool VisitArraySubscriptExpr(ArraySubscriptExpr *ASE) {
    add(subscriptBase(ASE));
    return true;
  }
  bool VisitMemberExpr(MemberExpr *ME) {
    if (!ME->isArrow())
      add(ME->getBase());
    return true;
  }
  bool VisitCXXDependentScopeMemberExpr(CXXDependentScopeMemberExpr *ME) {
    if (!ME->isImplicitAccess() && !ME->isArrow())
      add(ME->getBase());
    return true;
  }
  bool VisitCallExpr(CallExpr *Call) {
    // `p->f()` names the member it calls: it reads no field of `*p`.
    add(Call->getCallee());
    if (!Call->getDirectCallee())
      for (const Expr *Arg : Call->arguments())
        add(Arg);
    return true;
  }
  bool VisitGCCAsmStmt(GCCAsmStmt *Asm) {
    for (const Expr *O : Asm->outputs())
      add(O);
    return true;
  }

private:
  void add(const Expr *E) {
    if (E)
      Out.insert(E->IgnoreParens());
  }
  void statement(const Stmt *S) {
    if (const auto *E = dyn_cast_or_null<Expr>(S))
      Statements.insert(E->IgnoreParenImpCasts());
  }
  void unconverted(const Expr *E) {
    if (E && !E->isTypeDependent() && E->isGLValue())
      Unconverted.insert(E->IgnoreParens());
  }
  llvm::DenseSet<const Expr *> &Out;
  llvm::DenseSet<const Expr *> &Statements;
  llvm::DenseSet<const Expr *> &Unconverted;
};
} // namespace

bool PatternReads::isRead(const Expr *E, const FunctionDecl *Fn) {
  // An array is not loaded as a whole: it decays to a pointer to its first
  // element (`return storage;` in `T *begin()`).
  if (!E->getType().isNull() && E->getType()->isArrayType())
    return false;
  // `s.f` of a dependent `s` is read only when it names a data member that
  // is not an array: a member function is named to be called
  // (`smem.bars[i].wait(p)`), an array decays to a pointer (`s.full_bar`
  // with `uint64_t full_bar[kStages]`).
  if (const auto *DM = dyn_cast<CXXDependentScopeMemberExpr>(E);
      DM && !DM->isImplicitAccess()) {
    const FieldDecl *FD = patternField(DM);
    if (!FD || FD->getType()->isArrayType())
      return false;
  }
  // An lvalue of known type, used as a dependent operator's operand.
  if (!E->isTypeDependent() &&
      isa<ArraySubscriptExpr, MemberExpr, UnaryOperator>(E)) {
    if (const auto *UO = dyn_cast<UnaryOperator>(E);
        UO && UO->getOpcode() != UO_Deref)
      return false;
    index(Fn);
    return Unconverted.contains(E) && !NotRead.contains(E);
  }
  if (!E->isTypeDependent() ||
      !isa<ArraySubscriptExpr, CXXDependentScopeMemberExpr, MemberExpr>(E)) {
    const auto *UO = dyn_cast<UnaryOperator>(E);
    if (!UO || UO->getOpcode() != UO_Deref || !E->isTypeDependent())
      return false;
  }
  index(Fn);
  return !NotRead.contains(E);
}

bool PatternReads::isStatement(const Expr *E, const FunctionDecl *Fn) {
  index(Fn);
  return Statements.contains(E);
}

void PatternReads::index(const FunctionDecl *Fn) {
  if (Fn == Indexed)
    return;
  Indexed = Fn;
  NotRead.clear();
  Statements.clear();
  Unconverted.clear();
  if (Stmt *Body = Fn->getBody())
    NotReadIndexer(NotRead, Statements, Unconverted).TraverseStmt(Body);
}

} // namespace proxyfence
