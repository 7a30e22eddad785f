//===- LaunchClusterDims.cpp - cluster dimensions host code launches with -===//
#include "model/LaunchClusterDims.h"
#include "clang/AST/Attr.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Analysis/Analyses/ExprMutationAnalyzer.h"
#include <array>
#include <optional>

using namespace clang;

namespace proxyfence {

namespace {

using Dims = std::array<uint64_t, 3>;

/// A function whose body is read, with the arguments of the call that
/// reached it (none for the launching function itself).
struct Frame {
  const FunctionDecl *Fn;
  llvm::ArrayRef<const Expr *> Args;
  const Frame *Caller;
};

/// Helpers deeper than this, or more of them than the budget, leave the
/// launch unknown: launchers are a few calls deep, not whole programs.
constexpr unsigned MaxDepth = 4;
constexpr unsigned MaxFunctions = 256;
/// Steps from a use to the constant it stands for.
constexpr unsigned MaxHops = 24;

static bool isDimensionMember(const Expr *E) {
  const auto *M = dyn_cast<MemberExpr>(E->IgnoreParenImpCasts());
  const auto *F = M ? dyn_cast<FieldDecl>(M->getMemberDecl()) : nullptr;
  return F && F->getDeclName().isIdentifier() &&
         (F->getName() == "clusterDim" || F->getName() == "preferredClusterDim");
}

/// 0, 1 or 2 for a member `x`, `y` or `z` of a dim3-like struct.
static std::optional<unsigned> componentIndex(const MemberExpr *M) {
  const auto *F = dyn_cast<FieldDecl>(M->getMemberDecl());
  if (!F || !F->getDeclName().isIdentifier() || F->getName().size() != 1)
    return std::nullopt;
  char C = F->getName()[0];
  if (C < 'x' || C > 'z')
    return std::nullopt;
  return unsigned(C - 'x');
}

static const Expr *strip(const Expr *E) {
  while (true) {
    const Expr *Next = E->IgnoreParens()->IgnoreImplicit();
    if (const auto *C = dyn_cast<CXXFunctionalCastExpr>(Next))
      Next = C->getSubExpr();
    else if (const auto *D = dyn_cast<CXXDefaultArgExpr>(Next))
      Next = D->getExpr();
    if (Next == E)
      return E;
    E = Next;
  }
}

class StoreScan {
public:
  explicit StoreScan(ASTContext &Ctx) : Ctx(Ctx) {}

  unsigned Stores = 0;
  /// A store of more than one CTA, or of a value not known here.
  bool Other = false;

  void scan(const Frame &F, unsigned Depth) {
    if (++Functions > MaxFunctions) {
      Other = true;
      return;
    }
    visit(F.Fn->getBody(), F, Depth);
  }

private:
  void visit(const Stmt *S, const Frame &F, unsigned Depth) {
    if (!S || Other)
      return;
    if (const auto *B = dyn_cast<BinaryOperator>(S);
        B && B->getOpcode() == BO_Assign)
      store(B->getLHS(), B->getRHS(), F);
    else if (const auto *O = dyn_cast<CXXOperatorCallExpr>(S);
             O && O->getOperator() == OO_Equal && O->getNumArgs() == 2)
      store(O->getArg(0), O->getArg(1), F);
    else if (const auto *C = dyn_cast<CallExpr>(S);
             C && !isa<CXXOperatorCallExpr>(C))
      call(C, F, Depth);
    for (const Stmt *Child : S->children())
      visit(Child, F, Depth);
  }

  /// Reads a host helper's body with its parameters bound to \p C's
  /// arguments.
  void call(const CallExpr *C, const Frame &F, unsigned Depth) {
    const FunctionDecl *Callee = C->getDirectCallee();
    const FunctionDecl *Def = nullptr;
    if (!Callee || Depth >= MaxDepth || !Callee->hasBody(Def) ||
        Def->hasAttr<CUDAGlobalAttr>() ||
        (Def->hasAttr<CUDADeviceAttr>() && !Def->hasAttr<CUDAHostAttr>()))
      return;
    for (const Frame *Up = &F; Up; Up = Up->Caller)
      if (Up->Fn == Def)
        return;
    scan(Frame{Def, llvm::ArrayRef(C->getArgs(), C->getNumArgs()), &F},
         Depth + 1);
  }

  void store(const Expr *Lhs, const Expr *Rhs, const Frame &F) {
    Lhs = Lhs->IgnoreParenImpCasts();
    if (isDimensionMember(Lhs)) {
      ++Stores;
      std::optional<Dims> D = dims(Rhs, F, 0);
      if (!D || (*D)[0] > 1 || (*D)[1] > 1 || (*D)[2] > 1)
        Other = true;
      return;
    }
    const auto *M = dyn_cast<MemberExpr>(Lhs);
    if (!M || !componentIndex(M) || !isDimensionMember(M->getBase()))
      return;
    ++Stores;
    std::optional<uint64_t> V = scalar(Rhs, F, 0);
    if (!V || *V > 1)
      Other = true;
  }

  /// What the variable \p D names stands for, and the frame to read it in:
  /// a parameter's argument (or default), a local's unchanged initialiser.
  std::optional<std::pair<const Expr *, const Frame *>>
  valueOf(const DeclRefExpr *D, const Frame &F) {
    if (const auto *P = dyn_cast<ParmVarDecl>(D->getDecl())) {
      if (P->getDeclContext() != F.Fn)
        return std::nullopt;
      unsigned I = P->getFunctionScopeIndex();
      if (I < F.Args.size() && F.Caller)
        return std::make_pair(F.Args[I], F.Caller);
      if (F.Caller && P->hasDefaultArg() && !P->hasUnparsedDefaultArg() &&
          !P->hasUninstantiatedDefaultArg())
        return std::make_pair(P->getDefaultArg(), &F);
      return std::nullopt;
    }
    const auto *V = dyn_cast<VarDecl>(D->getDecl());
    if (!V || !V->hasLocalStorage() || !V->getInit() ||
        V->getDeclContext() != F.Fn)
      return std::nullopt;
    if (!V->getType().isConstQualified() &&
        ExprMutationAnalyzer(*F.Fn->getBody(), Ctx).isMutated(V))
      return std::nullopt;
    return std::make_pair(V->getInit(), &F);
  }

  std::optional<uint64_t> scalar(const Expr *E, const Frame &F, unsigned Hops) {
    if (Hops > MaxHops)
      return std::nullopt;
    Expr::EvalResult R;
    if (!E->isValueDependent() && E->EvaluateAsInt(R, Ctx)) {
      if (R.Val.getInt().isSigned() && R.Val.getInt().isNegative())
        return std::nullopt;
      return R.Val.getInt().getLimitedValue();
    }
    E = strip(E);
    if (const auto *M = dyn_cast<MemberExpr>(E)) {
      std::optional<unsigned> I = componentIndex(M);
      std::optional<Dims> D = I ? dims(M->getBase(), F, Hops + 1) : std::nullopt;
      return D ? std::optional<uint64_t>((*D)[*I]) : std::nullopt;
    }
    if (const auto *D = dyn_cast<DeclRefExpr>(E))
      if (auto V = valueOf(D, F))
        return scalar(V->first, *V->second, Hops + 1);
    return std::nullopt;
  }

  /// The three extents of a dim3-like value: a braced list, a constructor
  /// call, a copy, or a variable standing for one; missing extents are 1.
  std::optional<Dims> dims(const Expr *E, const Frame &F, unsigned Hops) {
    if (Hops > MaxHops)
      return std::nullopt;
    E = strip(E);
    llvm::SmallVector<const Expr *, 3> Parts;
    if (const auto *L = dyn_cast<InitListExpr>(E)) {
      Parts.append(L->inits().begin(), L->inits().end());
    } else if (const auto *C = dyn_cast<CXXConstructExpr>(E)) {
      if (C->getNumArgs() == 1 &&
          Ctx.hasSameUnqualifiedType(C->getArg(0)->getType(), C->getType()))
        return dims(C->getArg(0), F, Hops + 1);
      Parts.append(C->arg_begin(), C->arg_end());
    } else if (const auto *D = dyn_cast<DeclRefExpr>(E)) {
      if (auto V = valueOf(D, F))
        return dims(V->first, *V->second, Hops + 1);
      return std::nullopt;
    } else {
      return std::nullopt;
    }
    if (Parts.size() > 3)
      return std::nullopt;
    Dims Out = {1, 1, 1};
    for (unsigned I = 0; I < Parts.size(); ++I) {
      std::optional<uint64_t> V = scalar(Parts[I], F, Hops + 1);
      if (!V)
        return std::nullopt;
      Out[I] = *V;
    }
    return Out;
  }

  ASTContext &Ctx;
  unsigned Functions = 0;
};

} // namespace

bool LaunchClusterDims::onlyOneCtaClusters(const FunctionDecl *Host) {
  const FunctionDecl *Def = nullptr;
  if (!Host || !Host->hasBody(Def))
    return false;
  auto [It, New] = Known.try_emplace(Def, false);
  if (!New)
    return It->second;
  StoreScan Scan(Ctx);
  Scan.scan(Frame{Def, {}, nullptr}, 0);
  return It->second = Scan.Stores > 0 && !Scan.Other;
}

} // namespace proxyfence
