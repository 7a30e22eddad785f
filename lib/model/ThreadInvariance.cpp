//===- ThreadInvariance.cpp - values a thread computes the same every time ===//
#include "model/ThreadInvariance.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/Stmt.h"

using namespace clang;

namespace proxyfence {

namespace {

constexpr unsigned MaxCallDepth = 4;

/// The variable \p E names, or whose field or element it names.
const VarDecl *writtenVariable(const Expr *E) {
  while (E) {
    E = E->IgnoreParenImpCasts();
    if (const auto *DR = dyn_cast<DeclRefExpr>(E))
      return dyn_cast<VarDecl>(DR->getDecl());
    if (const auto *M = dyn_cast<MemberExpr>(E))
      E = M->getBase();
    else if (const auto *A = dyn_cast<ArraySubscriptExpr>(E))
      E = A->getBase();
    else
      return nullptr;
  }
  return nullptr;
}

/// An asm that reads only who the thread is: a special register of its
/// identity or `elect.sync`, and no memory, barrier or async state.
bool readsOnlyIdentity(const GCCAsmStmt *A) {
  std::string Text = A->getAsmString();
  llvm::StringRef S = Text;
  static constexpr llvm::StringLiteral Identity[] = {
      "elect.sync", "%laneid", "%warpid", "%tid.", "%ctaid.", "%clusterid.",
      "%cluster_ctaid.", "%cluster_ctarank", "%smid"};
  static constexpr llvm::StringLiteral State[] = {
      "ld.", "st.", "atom", "red.", "mbarrier", "bar.", "barrier", "cp.",
      "wgmma", "tcgen05", "fence", "%clock", "%globaltimer", "shfl", "vote"};
  bool Reads = false;
  for (llvm::StringRef W : Identity)
    Reads |= S.contains(W);
  for (llvm::StringRef W : State)
    if (S.contains(W))
      return false;
  return Reads;
}

/// Builtins whose value follows from their operands or the thread's
/// identity: special registers (not clocks), warp shuffles and votes.
bool identityBuiltin(llvm::StringRef Name) {
  if (Name.starts_with("__nvvm_read_ptx_sreg_"))
    return !Name.contains("clock") && !Name.contains("timer") &&
           !Name.contains("_pm");
  return Name.starts_with("__nvvm_shfl") || Name.starts_with("__nvvm_vote") ||
         Name == "__builtin_expect" || Name == "__builtin_assume";
}

/// An operator that computes a value from its operands without writing any
/// of them, when applied to built-in types (not `<<` and `>>`, which stream
/// into a reference as often).
bool valueOperator(OverloadedOperatorKind Op) {
  switch (Op) {
  case OO_Plus: case OO_Minus: case OO_Star: case OO_Slash: case OO_Percent:
  case OO_Caret: case OO_Amp: case OO_Pipe: case OO_Tilde: case OO_Exclaim:
  case OO_Less: case OO_Greater: case OO_LessEqual: case OO_GreaterEqual:
  case OO_EqualEqual: case OO_ExclaimEqual: case OO_AmpAmp: case OO_PipePipe:
  case OO_Spaceship:
    return true;
  default:
    return false;
  }
}

class WriteCollector : public RecursiveASTVisitor<WriteCollector> {
public:
  WriteCollector(
      llvm::DenseSet<const VarDecl *> &Written,
      llvm::DenseMap<const VarDecl *, llvm::SmallVector<const GCCAsmStmt *, 1>>
          &IdentityAsm)
      : Written(Written), IdentityAsm(IdentityAsm) {}

  bool VisitBinaryOperator(BinaryOperator *B) {
    if (B->isAssignmentOp())
      mark(B->getLHS());
    // A pattern's `in >> x` or `out << x` whose operator only argument-
    // dependent lookup finds may take either side by reference.
    if (B->isShiftOp() && B->isTypeDependent()) {
      mark(B->getLHS());
      mark(B->getRHS());
    }
    return true;
  }
  bool VisitUnaryOperator(UnaryOperator *U) {
    if (U->isIncrementDecrementOp() || U->getOpcode() == UO_AddrOf)
      mark(U->getSubExpr());
    return true;
  }
  bool VisitCallExpr(CallExpr *C) {
    const FunctionDecl *F = C->getDirectCallee();
    unsigned Skip = 0;
    if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(C)) {
      // A pattern's `a * b` on dependent types is the built-in operator on
      // integers: it writes neither operand.
      if (!F && valueOperator(OC->getOperator()))
        return true;
      const auto *M = dyn_cast_or_null<CXXMethodDecl>(F);
      if (C->getNumArgs() && (!M || !M->isConst()))
        mark(C->getArg(0)); // `x = y`, `x += y` on a class, or any mutator
      Skip = M ? 1 : 0;
    }
    for (unsigned I = Skip; I < C->getNumArgs(); ++I) {
      const ParmVarDecl *P =
          F && I - Skip < F->getNumParams() ? F->getParamDecl(I - Skip) : nullptr;
      // Unknown callee (a pattern): any argument may be taken by reference.
      if (!P || (P->getType()->isReferenceType() &&
                 !P->getType().getNonReferenceType().isConstQualified()))
        mark(C->getArg(I));
    }
    return true;
  }
  bool VisitCXXMemberCallExpr(CXXMemberCallExpr *C) {
    const CXXMethodDecl *M = C->getMethodDecl();
    if (!M || !M->isConst())
      mark(C->getImplicitObjectArgument());
    return true;
  }
  bool VisitGCCAsmStmt(GCCAsmStmt *A) {
    bool Identity = readsOnlyIdentity(A);
    for (unsigned I = 0; I < A->getNumOutputs(); ++I)
      if (const VarDecl *V = writtenVariable(A->getOutputExpr(I))) {
        if (Identity)
          IdentityAsm[V].push_back(A);
        else
          Written.insert(V);
      }
    return true;
  }
  bool VisitLambdaExpr(LambdaExpr *L) {
    for (const LambdaCapture &C : L->captures())
      if (C.capturesVariable() && C.getCaptureKind() == LCK_ByRef)
        if (const auto *V = dyn_cast<VarDecl>(C.getCapturedVar()))
          Written.insert(V);
    return true;
  }

private:
  void mark(const Expr *E) {
    // A const object (`int const &rank_idx`, `const int warp`) cannot be
    // written through its name; a call that may take it by reference reads it.
    if (const VarDecl *V = writtenVariable(E);
        V && !V->getType().getNonReferenceType().isConstQualified())
      Written.insert(V);
  }
  llvm::DenseSet<const VarDecl *> &Written;
  llvm::DenseMap<const VarDecl *, llvm::SmallVector<const GCCAsmStmt *, 1>>
      &IdentityAsm;
};

/// The variable of CUDA's threadIdx, blockIdx, blockDim or gridDim.
bool builtinIndexVariable(const VarDecl *V) {
  const auto *RD = V->getType()->getAsCXXRecordDecl();
  return RD && RD->getIdentifier() &&
         RD->getName().starts_with("__cuda_builtin_");
}

} // namespace

ThreadInvariance::ThreadInvariance(ASTContext &Ctx, const FunctionDecl *Fn)
    : Ctx(Ctx), Fn(Fn) {
  if (Fn && Fn->getBody())
    WriteCollector(Written, IdentityAsm)
        .TraverseStmt(const_cast<Stmt *>(Fn->getBody()));
}

bool ThreadInvariance::expr(const Expr *E, unsigned Depth) {
  if (!E)
    return false;
  E = E->IgnoreParens();
  if (const auto *PO = dyn_cast<PseudoObjectExpr>(E)) // threadIdx.x
    return expr(PO->getSyntacticForm(), Depth);
  if (const auto *P = dyn_cast<MSPropertyRefExpr>(E))
    return expr(P->getBaseExpr(), Depth);
  if (!E->isValueDependent() && !E->isTypeDependent() &&
      E->getType()->isIntegralOrEnumerationType() &&
      E->isIntegerConstantExpr(Ctx))
    return true;
  if (isa<IntegerLiteral, CXXBoolLiteralExpr, CharacterLiteral, FloatingLiteral,
          SubstNonTypeTemplateParmExpr, DependentScopeDeclRefExpr,
          UnaryExprOrTypeTraitExpr, CXXNullPtrLiteralExpr>(E))
    return true;
  if (const auto *DR = dyn_cast<DeclRefExpr>(E)) {
    const ValueDecl *D = DR->getDecl();
    if (isa<EnumConstantDecl, NonTypeTemplateParmDecl>(D))
      return true;
    const auto *V = dyn_cast<VarDecl>(D);
    return V && variable(V, Depth);
  }
  if (const auto *M = dyn_cast<MemberExpr>(E)) {
    // A field of an invariant value (`cfg.role`), never through a pointer.
    const auto *V = dyn_cast<VarDecl>(M->getMemberDecl());
    if (V) // a static data member
      return variable(V, Depth);
    return !M->isArrow() && expr(M->getBase(), Depth);
  }
  if (const auto *U = dyn_cast<UnaryOperator>(E))
    return !U->isIncrementDecrementOp() && U->getOpcode() != UO_Deref &&
           U->getOpcode() != UO_AddrOf && expr(U->getSubExpr(), Depth);
  if (const auto *B = dyn_cast<BinaryOperator>(E))
    return !B->isAssignmentOp() && expr(B->getLHS(), Depth) &&
           expr(B->getRHS(), Depth);
  if (const auto *C = dyn_cast<AbstractConditionalOperator>(E))
    return expr(C->getCond(), Depth) && expr(C->getTrueExpr(), Depth) &&
           expr(C->getFalseExpr(), Depth);
  if (const auto *C = dyn_cast<CastExpr>(E))
    return expr(C->getSubExpr(), Depth);
  if (const auto *F = dyn_cast<FullExpr>(E))
    return expr(F->getSubExpr(), Depth);
  if (const auto *M = dyn_cast<MaterializeTemporaryExpr>(E))
    return expr(M->getSubExpr(), Depth);
  if (const auto *B = dyn_cast<CXXBindTemporaryExpr>(E))
    return expr(B->getSubExpr(), Depth);
  if (const auto *C = dyn_cast<CXXConstructExpr>(E))
    return C->getNumArgs() == 1 && C->getConstructor()->isCopyOrMoveConstructor() &&
           expr(C->getArg(0), Depth);
  if (const auto *O = dyn_cast<OpaqueValueExpr>(E))
    return expr(O->getSourceExpr(), Depth);
  if (const auto *D = dyn_cast<CXXDefaultArgExpr>(E))
    return expr(D->getExpr(), Depth);
  if (const auto *C = dyn_cast<CallExpr>(E))
    return call(C, Depth);
  return false;
}

bool ThreadInvariance::variable(const VarDecl *V, unsigned Depth) {
  if (builtinIndexVariable(V))
    return true;
  auto [It, New] = Known.try_emplace(V, false); // a cycle is not invariant
  if (!New)
    return It->second;
  bool Result = false;
  // A reference may name memory that other threads write (a flag in
  // shared memory that one thread sets each iteration).
  if (V->getType()->isReferenceType())
    Result = false;
  else if (V->isConstexpr() ||
      (V->getType().isConstQualified() && !V->hasLocalStorage() &&
       V->getType()->isIntegralOrEnumerationType() && V->getInit()))
    Result = true; // a constant of the program
  else if (isa<ParmVarDecl>(V))
    Result = !Written.count(V) && !IdentityAsm.count(V);
  else if (V->hasLocalStorage() && !Written.count(V)) {
    const Expr *Init = V->getInit();
    Result = (!Init || expr(Init, Depth)) && asmWrites(V, Depth) &&
             (Init || IdentityAsm.count(V));
  }
  Known[V] = Result;
  return Result;
}

bool ThreadInvariance::asmWrites(const VarDecl *V, unsigned Depth) {
  auto It = IdentityAsm.find(V);
  if (It == IdentityAsm.end())
    return true;
  for (const GCCAsmStmt *A : It->second)
    for (unsigned I = 0; I < A->getNumInputs(); ++I)
      if (!expr(A->getInputExpr(I), Depth))
        return false;
  return true;
}

bool ThreadInvariance::call(const CallExpr *C, unsigned Depth) {
  for (const Expr *Arg : C->arguments())
    if (!expr(Arg, Depth))
      return false;
  if (isa<CXXMemberCallExpr>(C))
    return false; // the object's state is not followed
  const FunctionDecl *F = C->getDirectCallee();
  if (!F)
    return false;
  if (unsigned ID = F->getBuiltinID())
    return identityBuiltin(Ctx.BuiltinInfo.getName(ID));
  const FunctionDecl *Def = F->getDefinition();
  if (!Def || !Def->getBody() || Depth >= MaxCallDepth || Def == Fn)
    return false;
  // Every value it returns, its parameters bound to invariant arguments.
  ThreadInvariance Callee(Ctx, Def);
  bool Returns = false, All = true;
  struct ReturnFinder : RecursiveASTVisitor<ReturnFinder> {
    ThreadInvariance &In;
    unsigned Depth;
    bool &Returns, &All;
    bool VisitReturnStmt(ReturnStmt *R) {
      Returns = true;
      All = All && R->getRetValue() && In.expr(R->getRetValue(), Depth);
      return All;
    }
    bool TraverseLambdaExpr(LambdaExpr *) { return true; }
  } Finder{{}, Callee, Depth + 1, Returns, All};
  Finder.TraverseStmt(const_cast<Stmt *>(Def->getBody()));
  return Returns && All;
}

} // namespace proxyfence
