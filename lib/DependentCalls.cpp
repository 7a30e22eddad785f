//===- DependentCalls.cpp - calls in template patterns, as written --------===//
#include "proxyfence/DependentCalls.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "llvm/ADT/STLExtras.h"

using namespace clang;

namespace proxyfence {

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
  return nullptr;
}

namespace {
/// Collects the dependent-typed lvalues of a pattern that are not read.
class NotReadIndexer : public RecursiveASTVisitor<NotReadIndexer> {
public:
  NotReadIndexer(llvm::DenseSet<const Expr *> &Out,
                 llvm::DenseSet<const Expr *> &Statements)
      : Out(Out), Statements(Statements) {}
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
    return true;
  }
  bool VisitUnaryOperator(UnaryOperator *UO) {
    if (UO->getOpcode() == UO_AddrOf || UO->isIncrementDecrementOp())
      add(UO->getSubExpr());
    return true;
  }
  bool VisitArraySubscriptExpr(ArraySubscriptExpr *ASE) {
    add(ASE->getBase());
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
  llvm::DenseSet<const Expr *> &Out;
  llvm::DenseSet<const Expr *> &Statements;
};
} // namespace

bool PatternReads::isRead(const Expr *E, const FunctionDecl *Fn) {
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
  if (Stmt *Body = Fn->getBody())
    NotReadIndexer(NotRead, Statements).TraverseStmt(Body);
}

} // namespace proxyfence
