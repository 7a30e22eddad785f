//===- BumpAllocator.cpp - members that hand out fresh memory -------------===//
#include "model/BumpAllocator.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"

using namespace clang;

namespace proxyfence {

namespace {
/// The field of `*this` that \p E names (`ptr`, `this->ptr`), through
/// parentheses and casts.
const FieldDecl *thisField(const Expr *E) {
  if (!E)
    return nullptr;
  const auto *ME = dyn_cast<MemberExpr>(E->IgnoreParenCasts());
  if (!ME || !isa<CXXThisExpr>(ME->getBase()->IgnoreParenImpCasts()))
    return nullptr;
  return dyn_cast<FieldDecl>(ME->getMemberDecl());
}

bool sameField(const FieldDecl *A, const FieldDecl *B) {
  return A && B && A->getDeclName() == B->getDeclName();
}

/// Whether \p E reads field \p F: directly, or through a local initialised
/// from it (`uint64_t p = reinterpret_cast<uint64_t>(ptr)`).
bool readsField(const Expr *E, const FieldDecl *F) {
  if (!E)
    return false;
  E = E->IgnoreParenCasts();
  if (sameField(thisField(E), F))
    return true;
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
    if (const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
        V && V->hasLocalStorage() && !isa<ParmVarDecl>(V) && V->getInit())
      return sameField(thisField(V->getInit()), F);
  return false;
}

/// Whether \p RHS, assigned to field \p F, is its value moved forward:
/// `F + n`, `(T *)(p + pad)` with `p` read from F.
bool advances(const Expr *RHS, const FieldDecl *F) {
  const auto *BO = dyn_cast<BinaryOperator>(RHS->IgnoreParenCasts());
  return BO && BO->getOpcode() == BO_Add &&
         (readsField(BO->getLHS(), F) || readsField(BO->getRHS(), F));
}

/// Every write of one field in a body: how it changes it.
class FieldWrites : public RecursiveASTVisitor<FieldWrites> {
public:
  explicit FieldWrites(const FieldDecl *F) : F(F) {}
  const FieldDecl *F;
  bool Advanced = false; // `F += n`, `++F`, `F = F + n`
  bool Other = false;    // anything else
  const Stmt *FirstAdvance = nullptr;

  bool VisitBinaryOperator(BinaryOperator *BO) {
    if (!sameField(thisField(BO->getLHS()), F))
      return true;
    if (BO->getOpcode() == BO_AddAssign ||
        (BO->getOpcode() == BO_Assign && advances(BO->getRHS(), F)))
      advance(BO);
    else if (BO->isAssignmentOp())
      Other = true;
    return true;
  }
  bool VisitUnaryOperator(UnaryOperator *UO) {
    if (!sameField(thisField(UO->getSubExpr()), F))
      return true;
    if (UO->isIncrementOp())
      advance(UO);
    else if (UO->isDecrementOp())
      Other = true;
    return true;
  }
  bool TraverseLambdaExpr(LambdaExpr *) { return true; }

private:
  void advance(const Stmt *S) {
    Advanced = true;
    if (!FirstAdvance)
      FirstAdvance = S;
  }
};

/// The locals of \p Body that the returned values name, for \p F: each
/// initialised from F (`T *p = reinterpret_cast<T *>(ptr);`).
class ReturnedLocals : public RecursiveASTVisitor<ReturnedLocals> {
public:
  llvm::SmallVector<const VarDecl *, 2> Locals;
  bool Plain = true; // every return names such a local
  bool VisitReturnStmt(ReturnStmt *R) {
    const Expr *E = R->getRetValue();
    if (!E) {
      Plain = false;
      return true;
    }
    E = E->IgnoreParenCasts();
    if (const auto *UO = dyn_cast<UnaryOperator>(E);
        UO && UO->getOpcode() == UO_Deref)
      E = UO->getSubExpr()->IgnoreParenCasts();
    const auto *DRE = dyn_cast<DeclRefExpr>(E);
    const auto *V = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
    if (!V || !V->hasLocalStorage() || isa<ParmVarDecl>(V) || !V->getInit())
      Plain = false;
    else
      Locals.push_back(V);
    return true;
  }
  bool TraverseLambdaExpr(LambdaExpr *) { return true; }
};

/// Whether no member of \p RD other than its constructors and assignment
/// operators sets \p F other than by advancing it (an assignment of the
/// whole object is the caller's, judged where the object is). Members are
/// read in the class template's pattern where there is one, member
/// templates included.
bool onlyAdvanced(const CXXRecordDecl *RD, const FieldDecl *F) {
  if (const CXXRecordDecl *Pattern = RD->getTemplateInstantiationPattern())
    RD = Pattern;
  for (const Decl *D : RD->decls()) {
    const FunctionDecl *FD = dyn_cast<FunctionDecl>(D);
    if (const auto *FT = dyn_cast<FunctionTemplateDecl>(D))
      FD = FT->getTemplatedDecl();
    if (!FD || isa<CXXConstructorDecl>(FD) || !FD->getBody())
      continue;
    if (const auto *MD = dyn_cast<CXXMethodDecl>(FD);
        MD && (MD->isCopyAssignmentOperator() || MD->isMoveAssignmentOperator()))
      continue;
    FieldWrites W(F);
    W.TraverseStmt(FD->getBody());
    if (W.Other)
      return false;
  }
  return true;
}

const FieldDecl *compute(const FunctionDecl *Def) {
  const auto *MD = dyn_cast<CXXMethodDecl>(Def);
  if (!MD || !MD->isInstance() || isa<CXXConstructorDecl>(MD) ||
      !MD->getBody())
    return nullptr;
  QualType Ret = MD->getReturnType();
  if (!Ret->isReferenceType() && !Ret->isPointerType())
    return nullptr;
  ReturnedLocals RL;
  RL.TraverseStmt(MD->getBody());
  if (!RL.Plain || RL.Locals.empty())
    return nullptr;
  const FieldDecl *F = thisField(RL.Locals.front()->getInit());
  if (!F || !F->getType()->isPointerType())
    return nullptr;
  FieldWrites W(F);
  W.TraverseStmt(MD->getBody());
  if (!W.Advanced || W.Other)
    return nullptr;
  // Each returned local holds the field's value from before it advances.
  const SourceManager &SM = Def->getASTContext().getSourceManager();
  for (const VarDecl *V : RL.Locals)
    if (!sameField(thisField(V->getInit()), F) ||
        !SM.isBeforeInTranslationUnit(V->getEndLoc(),
                                      W.FirstAdvance->getBeginLoc()))
      return nullptr;
  return onlyAdvanced(MD->getParent(), F) ? F : nullptr;
}
} // namespace

const FieldDecl *bumpedField(const FunctionDecl *Def) { return compute(Def); }

} // namespace proxyfence
