//===- ThreadGroups.cpp - shared memory that one group of threads owns ----===//
#include "model/ThreadGroups.h"
#include "model/ThreadInvariance.h"
#include "clang/AST/Attr.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"
#include "llvm/Support/SaveAndRestore.h"
#include "llvm/Support/xxhash.h"

using namespace clang;

namespace proxyfence {

namespace {
constexpr unsigned MaxDepth = 32;

/// The CUDA builtin variable (`threadIdx`, `blockIdx`, ...) whose member
/// \p E reads, as clang spells it; empty otherwise.
llvm::StringRef builtinOf(const Expr *E, llvm::StringRef &Member) {
  if (const auto *PO = dyn_cast<PseudoObjectExpr>(E->IgnoreParens()))
    E = PO->getSyntacticForm()->IgnoreParens();
  const auto *P = dyn_cast<MSPropertyRefExpr>(E);
  if (!P)
    return "";
  const Expr *Base = P->getBaseExpr()->IgnoreParenImpCasts();
  if (const auto *O = dyn_cast<OpaqueValueExpr>(Base)) // the syntactic form's
    Base = O->getSourceExpr()->IgnoreParenImpCasts();
  const auto *DR = dyn_cast_or_null<DeclRefExpr>(Base);
  const auto *RD = DR ? DR->getType()->getAsCXXRecordDecl() : nullptr;
  if (!RD || !RD->getIdentifier())
    return "";
  Member = P->getPropertyDecl()->getName();
  return RD->getName();
}

/// `threadIdx.x`.
bool isThreadIdxX(const Expr *E) {
  llvm::StringRef Member;
  return builtinOf(E, Member) == "__cuda_builtin_threadIdx_t" && Member == "x";
}

std::optional<uint64_t> positiveConstant(const Expr *E, const ASTContext &Ctx) {
  Expr::EvalResult R;
  if (E->isValueDependent() || !E->EvaluateAsInt(R, Ctx) ||
      !R.Val.getInt().isStrictlyPositive())
    return std::nullopt;
  return R.Val.getInt().getLimitedValue();
}

/// The expression a function of no parameters returns, when its body is
/// one return statement (`canonical_warp_idx()`).
const Expr *onlyReturn(const FunctionDecl *F) {
  const FunctionDecl *Def = F ? F->getDefinition() : nullptr;
  if (!Def || Def->getNumParams())
    return nullptr;
  const auto *Body = dyn_cast_or_null<CompoundStmt>(Def->getBody());
  if (!Body || Body->size() != 1)
    return nullptr;
  const auto *R = dyn_cast<ReturnStmt>(Body->body_front());
  return R ? R->getRetValue() : nullptr;
}
} // namespace

/// Whether function \p F may compute something of the thread's identity:
/// it reads `threadIdx`, runs asm, or calls a builtin or a function that
/// may (an accessor `stride()` that returns `lane * 64`).
static bool readsThreadIdentity(const FunctionDecl *F, unsigned Depth = 0) {
  if (const auto *T = F ? F->getDescribedFunctionTemplate() : nullptr)
    F = T->getTemplatedDecl();
  const FunctionDecl *Def = F ? F->getDefinition() : nullptr;
  if (!Def || !Def->getBody())
    return false; // a declaration only: an accessor is assumed plain
  struct Finder : RecursiveASTVisitor<Finder> {
    unsigned Depth;
    bool Found = false;
    bool VisitMSPropertyRefExpr(MSPropertyRefExpr *P) {
      llvm::StringRef Member;
      Found |= builtinOf(P, Member) == "__cuda_builtin_threadIdx_t";
      return !Found;
    }
    bool VisitGCCAsmStmt(GCCAsmStmt *) { return !(Found = true); }
    bool VisitCallExpr(CallExpr *C) {
      if (const FunctionDecl *Callee = C->getDirectCallee())
        Found |= reads(Callee);
      // A pattern's call: what any candidate it names does (a dependent
      // `a * b` is the built-in operator on integers).
      else if (isa<CXXOperatorCallExpr>(C))
        return true;
      else if (const auto *O = dyn_cast<OverloadExpr>(
                   C->getCallee()->IgnoreParenImpCasts()))
        for (const NamedDecl *D : O->decls())
          if (const auto *T = dyn_cast<FunctionTemplateDecl>(
                  D->getUnderlyingDecl()))
            Found |= reads(T->getTemplatedDecl());
          else if (const auto *F = dyn_cast<FunctionDecl>(D->getUnderlyingDecl()))
            Found |= reads(F);
      return !Found;
    }
    bool reads(const FunctionDecl *F) const {
      if (unsigned Id = F->getBuiltinID()) {
        llvm::StringRef Name = F->getASTContext().BuiltinInfo.getName(Id);
        return Name.contains("sreg") || Name.contains("shfl");
      }
      return Depth < 4 && readsThreadIdentity(F, Depth + 1);
    }
  } Find;
  Find.Depth = Depth;
  Find.TraverseStmt(const_cast<Stmt *>(Def->getBody()));
  return Find.Found;
}

/// Whether \p E reads an integer field of the object a member function
/// runs on (`this->stride`, `stride`).
static bool thisField(const Expr *E) {
  E = E->IgnoreParenCasts();
  if (const auto *M = dyn_cast<MemberExpr>(E))
    return isa<FieldDecl>(M->getMemberDecl()) &&
           M->getType()->isIntegralOrEnumerationType() &&
           isa<CXXThisExpr>(M->getBase()->IgnoreParenImpCasts());
  // Or what a const accessor of it computes (`get_num_bytes_per_rank()`),
  // also in a class template's body, where the call's type is dependent.
  const auto *C = dyn_cast<CallExpr>(E);
  if (!C || C->getNumArgs() != 0 ||
      !(C->getType()->isIntegralOrEnumerationType() || C->isTypeDependent()))
    return false;
  auto onThis = [](const Expr *Base) {
    return isa<CXXThisExpr>(Base->IgnoreParenImpCasts());
  };
  // Const, and computing what every thread holding the object computes.
  auto constMethod = [](const NamedDecl *D) {
    D = D->getUnderlyingDecl();
    if (const auto *T = dyn_cast<FunctionTemplateDecl>(D))
      D = T->getTemplatedDecl();
    const auto *MD = dyn_cast<CXXMethodDecl>(D);
    return MD && MD->isConst() && !readsThreadIdentity(MD);
  };
  const Expr *Callee = C->getCallee()->IgnoreParens();
  if (const auto *ME = dyn_cast<MemberExpr>(Callee))
    return constMethod(ME->getMemberDecl()) && onThis(ME->getBase());
  // `stride<>()`, a member template of the class template being read.
  if (const auto *UM = dyn_cast<UnresolvedMemberExpr>(Callee))
    return (UM->isImplicitAccess() || onThis(UM->getBase())) &&
           UM->getNumDecls() && llvm::all_of(UM->decls(), constMethod);
  return false;
}

bool ThreadGroups::kernelArgument(const ParmVarDecl *P) {
  const auto *Kernel = dyn_cast<FunctionDecl>(P->getDeclContext());
  return Kernel && Kernel->hasAttr<CUDAGlobalAttr>() &&
         P->getType()->isIntegralOrEnumerationType() && !written(P);
}

ThreadGroups::ThreadGroups(ASTContext &Ctx) : Ctx(Ctx) {}
ThreadGroups::~ThreadGroups() = default;

bool ThreadGroups::written(const VarDecl *V) {
  const auto *Owner = dyn_cast_or_null<FunctionDecl>(V->getParentFunctionOrMethod());
  if (!Owner)
    return true;
  std::unique_ptr<ThreadInvariance> &W = Writes[Owner];
  if (!W)
    W = std::make_unique<ThreadInvariance>(Ctx, Owner);
  return W->assigned(V);
}

const Expr *ThreadGroups::fixedValue(const VarDecl *V) {
  if (!V || !V->hasLocalStorage() || isa<ParmVarDecl>(V) ||
      V->getType()->isReferenceType() || !V->getInit())
    return nullptr;
  return written(V) ? nullptr : V->getInit();
}

bool ThreadGroups::unwrittenParam(const ParmVarDecl *P) {
  if (!P)
    return false;
  // `int const &rank_idx` is the argument's value as much as `int rank_idx`.
  QualType T = P->getType();
  if (const auto *Ref = T->getAs<ReferenceType>()) {
    T = Ref->getPointeeType();
    if (!T.isConstQualified())
      return false;
  }
  return T->isIntegralOrEnumerationType() && !written(P);
}

std::optional<ThreadGroup> ThreadGroups::divided(const ThreadGroup &G,
                                                 const Expr *By) {
  ThreadGroup Out;
  // `(threadIdx.x + 16) / 32` groups threads across two warps.
  if (G.Offset)
    return std::nullopt;
  if (std::optional<uint64_t> K = positiveConstant(By, Ctx)) {
    if (!G.Threads || *K > (1u << 20))
      return std::nullopt;
    Out.Threads = G.Threads * unsigned(*K);
    return Out;
  }
  if (!G.Threads)
    return std::nullopt;
  Out.Unit = G.Threads;
  Out.Per = By;
  return Out;
}

std::optional<ThreadGroup> ThreadGroups::called(const CallExpr *C,
                                                unsigned Depth) {
  const FunctionDecl *F = C->getDirectCallee();
  if (F && F->getBuiltinID())
    return Ctx.BuiltinInfo.getName(F->getBuiltinID()) ==
                   "__nvvm_read_ptx_sreg_tid_x"
               ? std::optional(ThreadGroup{1, 0, nullptr, nullptr})
               : std::nullopt;
  // In a template, a call with dependent arguments names its callee only.
  DeclarationName Name = F ? F->getDeclName() : DeclarationName();
  if (const auto *O = dyn_cast<OverloadExpr>(C->getCallee()->IgnoreImpCasts()))
    Name = O->getName();
  // A lane's value broadcast to its warp: still the index of a group of
  // whole warps (cutlass::canonical_warp_idx_sync).
  const IdentifierInfo *Id = Name.getAsIdentifierInfo(); // null: no name
  if (Id && Id->getName() == "__shfl_sync" && C->getNumArgs() >= 2) {
    std::optional<ThreadGroup> G = index(C->getArg(1), Depth + 1);
    if (G && ((G->Threads && G->Threads % 32 == 0) ||
              (G->Unit && G->Unit % 32 == 0)))
      return G;
    return std::nullopt;
  }
  if (const Expr *R = onlyReturn(F))
    return index(R, Depth + 1);
  return std::nullopt;
}

std::optional<ThreadGroup> ThreadGroups::index(const Expr *E, unsigned Depth) {
  if (!E || Depth > MaxDepth)
    return std::nullopt;
  E = E->IgnoreParens();
  if (const auto *PO = dyn_cast<PseudoObjectExpr>(E))
    E = PO->getSyntacticForm()->IgnoreParens();
  if (isThreadIdxX(E))
    return ThreadGroup{1, 0, nullptr, nullptr};
  if (const auto *CE = dyn_cast<CastExpr>(E)) {
    // A cast to fewer than 16 bits may wrap thread indices together.
    bool Narrow = CE->getType()->isIntegerType() &&
                  Ctx.getTypeSize(CE->getType()) < 16;
    return !Narrow &&
                   (CE->getSubExpr()->getType()->isIntegralOrEnumerationType() ||
                    isa<PseudoObjectExpr>(CE->getSubExpr()->IgnoreParens()))
               ? index(CE->getSubExpr(), Depth)
               : std::nullopt;
  }
  if (const auto *DR = dyn_cast<DeclRefExpr>(E)) {
    const auto *V = dyn_cast<VarDecl>(DR->getDecl());
    // The local's initialiser is read in its function, whose launch bound
    // may tell how many groups there are.
    llvm::SaveAndRestore InFn(Within, V ? dyn_cast_or_null<FunctionDecl>(
                                              V->getParentFunctionOrMethod())
                                        : Within);
    std::optional<ThreadGroup> G = index(fixedValue(V), Depth + 1);
    if (G)
      G->Index = V;
    return G;
  }
  if (const auto *C = dyn_cast<CallExpr>(E))
    return called(C, Depth);
  const auto *B = dyn_cast<BinaryOperator>(E);
  if (!B)
    return std::nullopt;
  switch (B->getOpcode()) {
  case BO_Div:
    if (std::optional<ThreadGroup> G = index(B->getLHS(), Depth + 1))
      return divided(*G, B->getRHS());
    return std::nullopt;
  case BO_Rem:
    return rotated(B, Depth);
  case BO_Shr: {
    std::optional<uint64_t> S = positiveConstant(B->getRHS(), Ctx);
    std::optional<ThreadGroup> G = S && *S < 20 ? index(B->getLHS(), Depth + 1)
                                               : std::nullopt;
    // `(threadIdx.x + 16) >> 5` groups threads across two warps.
    if (!G || !G->Threads || G->Offset)
      return std::nullopt;
    return ThreadGroup{G->Threads << *S, 0, nullptr, nullptr};
  }
  case BO_Add:
  case BO_Sub: {
    // Moving every index by one value that all threads share keeps them
    // apart, but names another group's part.
    std::optional<int64_t> L = shift(B->getLHS(), Depth),
                           R = shift(B->getRHS(), Depth);
    int64_t Sign = B->getOpcode() == BO_Add ? 1 : -1;
    std::optional<ThreadGroup> G;
    if (R) {
      G = index(B->getLHS(), Depth + 1);
      if (G)
        G->Offset += Sign * *R;
    } else if (L && Sign > 0) {
      G = index(B->getRHS(), Depth + 1);
      if (G)
        G->Offset += *L;
    }
    return G;
  }
  default:
    return std::nullopt;
  }
}

uint64_t spellingHash(const Expr *E, const ASTContext &Ctx) {
  llvm::FoldingSetNodeID Id;
  E->IgnoreParenImpCasts()->Profile(Id, Ctx, /*Canonical=*/true);
  llvm::BumpPtrAllocator Scratch;
  llvm::FoldingSetNodeIDRef Ref = Id.Intern(Scratch);
  return llvm::xxh3_64bits(llvm::ArrayRef(
      reinterpret_cast<const uint8_t *>(Ref.getData()),
      Ref.getSize() * sizeof(unsigned)));
}

namespace {
/// \p E as a product: its constant factor and the spellings of the others
/// (`kNumWarps * 32` is 32 and {kNumWarps}); a template parameter stands
/// for its default argument.
bool productOf(const Expr *E, const ASTContext &Ctx, uint64_t &K,
               std::vector<std::string> &Factors, unsigned Depth = 0) {
  E = E->IgnoreParenImpCasts();
  if (!E->isValueDependent())
    if (std::optional<llvm::APSInt> V = E->getIntegerConstantExpr(Ctx)) {
      if (V->isNegative())
        return false;
      K *= V->getZExtValue();
      return true;
    }
  if (Depth > 8)
    return false;
  if (const auto *B = dyn_cast<BinaryOperator>(E); B && B->getOpcode() == BO_Mul)
    return productOf(B->getLHS(), Ctx, K, Factors, Depth + 1) &&
           productOf(B->getRHS(), Ctx, K, Factors, Depth + 1);
  if (const auto *DR = dyn_cast<DeclRefExpr>(E))
    if (const auto *P = dyn_cast<NonTypeTemplateParmDecl>(DR->getDecl());
        P && P->hasDefaultArgument())
      return productOf(P->getDefaultArgument().getSourceExpression(), Ctx, K,
                       Factors, Depth + 1);
  Factors.push_back(std::to_string(spellingHash(E, Ctx)));
  return true;
}
} // namespace

std::optional<ThreadGroup> ThreadGroups::rotated(const BinaryOperator *B,
                                                 unsigned Depth) {
  // `(warp + rank) % kNumWarps` in a kernel of at most kNumWarps warps
  // (`__launch_bounds__(kNumWarps * 32)`) gives each warp a distinct value,
  // reading the template's defaults where nothing instantiates it.
  // In unsigned arithmetic a negative rank wraps modulo 2^32, which n need
  // not divide: the remainders then repeat.
  std::optional<ThreadGroup> G = index(B->getLHS(), Depth + 1);
  const auto *LB = Within ? Within->getAttr<CUDALaunchBoundsAttr>() : nullptr;
  if (!G || !G->Threads || G->Threads % 32 || !LB || !LB->getMaxThreads() ||
      !B->getType()->isSignedIntegerType() || !uniform(B->getRHS(), Depth + 1))
    return std::nullopt;
  uint64_t Bound = 1, Parts = G->Threads;
  std::vector<std::string> BoundFactors, PartFactors;
  if (!productOf(LB->getMaxThreads(), Ctx, Bound, BoundFactors) ||
      !productOf(B->getRHS(), Ctx, Parts, PartFactors))
    return std::nullopt;
  llvm::sort(BoundFactors);
  llvm::sort(PartFactors);
  if (BoundFactors != PartFactors || Bound > Parts)
    return std::nullopt;
  // Another part than the warp's own: named by the rotation's spelling.
  G->Offset = int64_t(spellingHash(B, Ctx));
  G->Index = nullptr;
  return G;
}

std::optional<int64_t> ThreadGroups::shift(const Expr *E, unsigned Depth) {
  if (!E->isValueDependent())
    if (std::optional<llvm::APSInt> K = E->getIntegerConstantExpr(Ctx))
      return K->getExtValue();
  if (!uniform(E, Depth + 1))
    return std::nullopt;
  // A template's value or a kernel argument: unknown, but the same wherever
  // the same expression is read, so its spelling's hash stands for it.
  return int64_t(spellingHash(E, Ctx));
}

std::optional<ThreadGroup> ThreadGroups::offset(const Expr *E, unsigned Depth) {
  if (!E || Depth > MaxDepth)
    return std::nullopt;
  if (std::optional<ThreadGroup> G = index(E, Depth))
    return G;
  E = E->IgnoreParenCasts();
  if (const auto *DR = dyn_cast<DeclRefExpr>(E)) {
    // A helper's integer parameter: the group is the argument's.
    if (const auto *P = dyn_cast<ParmVarDecl>(DR->getDecl()))
      return unwrittenParam(P) ? std::optional(ThreadGroup{0, 0, nullptr,
                                                           nullptr, 0, P})
                               : std::nullopt;
    return offset(fixedValue(dyn_cast<VarDecl>(DR->getDecl())), Depth + 1);
  }
  // `a * b` of a pattern whose operands have dependent types is an
  // operator call: read as the built-in operator it is on integers.
  BinaryOperatorKind Op;
  const Expr *LHS, *RHS;
  if (const auto *B = dyn_cast<BinaryOperator>(E)) {
    Op = B->getOpcode();
    LHS = B->getLHS();
    RHS = B->getRHS();
  } else if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(E);
             OC && OC->getNumArgs() == 2 && OC->isInfixBinaryOp() &&
             !OC->getDirectCallee()) {
    Op = BinaryOperator::getOverloadedOpcode(OC->getOperator());
    LHS = OC->getArg(0);
    RHS = OC->getArg(1);
  } else {
    return std::nullopt;
  }
  // A group's multiple plus or times what every thread computes alike:
  // `threadIdx.x - warp * 32` is not one. A layout object's stride field
  // (`i * this->bytes_per_rank`) is set alike in every thread too.
  bool Mul = Op == BO_Mul;
  auto alike = [&](const Expr *X) {
    return uniform(X, Depth + 1) || (Mul && thisField(X));
  };
  switch (Op) {
  case BO_Mul:
  case BO_Add:
  case BO_Sub:
    if (alike(RHS))
      if (std::optional<ThreadGroup> G = offset(LHS, Depth + 1))
        return G;
    if (Op != BO_Sub && alike(LHS))
      return offset(RHS, Depth + 1);
    return std::nullopt;
  case BO_Shl:
    return uniform(RHS, Depth + 1) ? offset(LHS, Depth + 1) : std::nullopt;
  default:
    return std::nullopt;
  }
}

bool ThreadGroups::uniform(const Expr *E, unsigned Depth) {
  if (!E || Depth > MaxDepth)
    return false;
  if (!E->isValueDependent() && E->isIntegerConstantExpr(Ctx))
    return true;
  llvm::StringRef Member;
  if (llvm::StringRef B = builtinOf(E, Member); !B.empty())
    return B != "__cuda_builtin_threadIdx_t";
  E = E->IgnoreParenCasts();
  // `sizeof(T)`, `Traits::kStages`, a template's value: constants.
  if (isa<UnaryExprOrTypeTraitExpr, DependentScopeDeclRefExpr,
          SubstNonTypeTemplateParmExpr, IntegerLiteral>(E))
    return true;
  if (const auto *M = dyn_cast<MemberExpr>(E))
    if (const auto *V = dyn_cast<VarDecl>(M->getMemberDecl()))
      return V->getType().isConstQualified(); // a static data member
  if (const auto *DR = dyn_cast<DeclRefExpr>(E)) {
    const ValueDecl *D = DR->getDecl();
    if (isa<EnumConstantDecl, NonTypeTemplateParmDecl>(D))
      return true;
    const auto *V = dyn_cast<VarDecl>(D);
    if (const auto *P = dyn_cast_or_null<ParmVarDecl>(V))
      return kernelArgument(P); // a helper's may differ from thread to thread
    if (!V)
      return false;
    if (!V->hasLocalStorage())
      return V->getType().isConstQualified();
    return uniform(fixedValue(V), Depth + 1);
  }
  if (const auto *B = dyn_cast<BinaryOperator>(E))
    return !B->isAssignmentOp() && uniform(B->getLHS(), Depth + 1) &&
           uniform(B->getRHS(), Depth + 1);
  if (const auto *U = dyn_cast<UnaryOperator>(E))
    return (U->getOpcode() == UO_Minus || U->getOpcode() == UO_Not ||
            U->getOpcode() == UO_Plus || U->getOpcode() == UO_LNot) &&
           uniform(U->getSubExpr(), Depth + 1);
  if (const auto *C = dyn_cast<ConditionalOperator>(E))
    return uniform(C->getCond(), Depth + 1) &&
           uniform(C->getTrueExpr(), Depth + 1) &&
           uniform(C->getFalseExpr(), Depth + 1);
  return isa<CXXBoolLiteralExpr, CharacterLiteral>(E);
}

bool ThreadGroups::readsWarpGroupIndex(const Expr *E) {
  if (!E)
    return false;
  if (std::optional<ThreadGroup> G = indexOf(E))
    if (G->Unit || G->Threads >= 32)
      return true;
  for (const Stmt *Child : E->children())
    if (readsWarpGroupIndex(dyn_cast_or_null<Expr>(Child)))
      return true;
  return false;
}

bool ThreadGroups::unchanging(const Expr *E) {
  if (!E)
    return true;
  E = E->IgnoreParenImpCasts();
  if (isa<CallExpr, ArraySubscriptExpr, MemberExpr, CXXDependentScopeMemberExpr,
          UnresolvedMemberExpr>(E))
    return false;
  if (const auto *U = dyn_cast<UnaryOperator>(E);
      U && (U->getOpcode() == UO_Deref || U->isIncrementDecrementOp()))
    return false;
  if (const auto *B = dyn_cast<BinaryOperator>(E); B && B->isAssignmentOp())
    return false;
  if (const auto *DR = dyn_cast<DeclRefExpr>(E))
    if (const auto *V = dyn_cast<VarDecl>(DR->getDecl());
        V && V->hasLocalStorage() && written(V))
      return false;
  for (const Stmt *Child : E->children())
    if (!unchanging(dyn_cast_or_null<Expr>(Child)))
      return false;
  return true;
}

bool ThreadGroups::tellsGroupsApart(const Expr *Cond) {
  if (!Cond)
    return false;
  Cond = Cond->IgnoreParenImpCasts();
  if (const auto *B = dyn_cast<BinaryOperator>(Cond)) {
    // `x % 32`, `x & 31`: a place inside a group, the same in each.
    if (B->getOpcode() == BO_Rem || B->getOpcode() == BO_And)
      return tellsGroupsApart(B->getRHS());
    return tellsGroupsApart(B->getLHS()) || tellsGroupsApart(B->getRHS());
  }
  if (const auto *U = dyn_cast<UnaryOperator>(Cond))
    return tellsGroupsApart(U->getSubExpr());
  if (const auto *C = dyn_cast<ConditionalOperator>(Cond))
    return tellsGroupsApart(C->getCond()) ||
           tellsGroupsApart(C->getTrueExpr()) ||
           tellsGroupsApart(C->getFalseExpr());
  return indexOf(Cond).has_value();
}

} // namespace proxyfence
