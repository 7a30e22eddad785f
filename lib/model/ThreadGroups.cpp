//===- ThreadGroups.cpp - shared memory that one group of threads owns ----===//
#include "model/ThreadGroups.h"
#include "model/ThreadInvariance.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"

using namespace clang;

namespace proxyfence {

namespace {
constexpr unsigned MaxDepth = 32;

/// `threadIdx.x`, as clang spells CUDA's builtin variable.
bool isThreadIdxX(const Expr *E) {
  const auto *P = dyn_cast<MSPropertyRefExpr>(E);
  if (!P || P->getPropertyDecl()->getName() != "x")
    return false;
  const Expr *Base = P->getBaseExpr()->IgnoreParenImpCasts();
  if (const auto *O = dyn_cast<OpaqueValueExpr>(Base)) // the syntactic form's
    Base = O->getSourceExpr()->IgnoreParenImpCasts();
  const auto *DR = dyn_cast_or_null<DeclRefExpr>(Base);
  const auto *RD = DR ? DR->getType()->getAsCXXRecordDecl() : nullptr;
  return RD && RD->getIdentifier() &&
         RD->getName() == "__cuda_builtin_threadIdx_t";
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

ThreadGroups::ThreadGroups(ASTContext &Ctx) : Ctx(Ctx) {}
ThreadGroups::~ThreadGroups() = default;

const Expr *ThreadGroups::fixedValue(const VarDecl *V) {
  if (!V || !V->hasLocalStorage() || isa<ParmVarDecl>(V) ||
      V->getType()->isReferenceType() || !V->getInit())
    return nullptr;
  const auto *Owner = dyn_cast_or_null<FunctionDecl>(V->getParentFunctionOrMethod());
  if (!Owner)
    return nullptr;
  std::unique_ptr<ThreadInvariance> &W = Writes[Owner];
  if (!W)
    W = std::make_unique<ThreadInvariance>(Ctx, Owner);
  return W->written(V) ? nullptr : V->getInit();
}

std::optional<ThreadGroup> ThreadGroups::divided(const ThreadGroup &G,
                                                 const Expr *By) {
  ThreadGroup Out;
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
    if (G && (G->Threads >= 32 || G->Unit >= 32))
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
  if (const auto *CE = dyn_cast<CastExpr>(E))
    return CE->getSubExpr()->getType()->isIntegralOrEnumerationType() ||
                   isa<PseudoObjectExpr>(CE->getSubExpr()->IgnoreParens())
               ? index(CE->getSubExpr(), Depth)
               : std::nullopt;
  if (const auto *DR = dyn_cast<DeclRefExpr>(E)) {
    const auto *V = dyn_cast<VarDecl>(DR->getDecl());
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
  case BO_Shr: {
    std::optional<uint64_t> S = positiveConstant(B->getRHS(), Ctx);
    std::optional<ThreadGroup> G = S && *S < 20 ? index(B->getLHS(), Depth + 1)
                                               : std::nullopt;
    if (!G || !G->Threads)
      return std::nullopt;
    return ThreadGroup{G->Threads << *S, 0, nullptr, nullptr};
  }
  case BO_Add:
  case BO_Sub: {
    // Moving every index by one constant keeps them apart.
    bool LeftConst = B->getLHS()->isIntegerConstantExpr(Ctx);
    bool RightConst = B->getRHS()->isIntegerConstantExpr(Ctx);
    if (RightConst)
      return index(B->getLHS(), Depth + 1);
    if (LeftConst && B->getOpcode() == BO_Add)
      return index(B->getRHS(), Depth + 1);
    return std::nullopt;
  }
  default:
    return std::nullopt;
  }
}

std::optional<ThreadGroup> ThreadGroups::offset(const Expr *E, unsigned Depth) {
  if (!E || Depth > MaxDepth)
    return std::nullopt;
  if (std::optional<ThreadGroup> G = index(E, Depth))
    return G;
  E = E->IgnoreParenCasts();
  if (const auto *DR = dyn_cast<DeclRefExpr>(E))
    return offset(fixedValue(dyn_cast<VarDecl>(DR->getDecl())), Depth + 1);
  const auto *B = dyn_cast<BinaryOperator>(E);
  if (!B)
    return std::nullopt;
  switch (B->getOpcode()) {
  case BO_Mul:
  case BO_Add:
  case BO_Sub:
    if (std::optional<ThreadGroup> G = offset(B->getLHS(), Depth + 1))
      return G;
    return offset(B->getRHS(), Depth + 1);
  case BO_Shl:
    return offset(B->getLHS(), Depth + 1);
  default:
    return std::nullopt;
  }
}

} // namespace proxyfence
