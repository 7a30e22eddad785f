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

/// Helpers deeper than this that are handed a launch's configuration, or
/// more helpers than the budget, leave the launch unknown: launchers are a
/// few calls deep, not whole programs.
constexpr unsigned MaxDepth = 4;
constexpr unsigned MaxFunctions = 256;
/// Steps from a use to the constant it stands for.
constexpr unsigned MaxHops = 24;

static bool isDimensionField(const FieldDecl *F) {
  return F && F->getDeclName().isIdentifier() &&
         (F->getName() == "clusterDim" || F->getName() == "preferredClusterDim");
}

static bool isDimensionMember(const Expr *E) {
  const auto *M = dyn_cast<MemberExpr>(E->IgnoreParenImpCasts());
  return M && isDimensionField(dyn_cast<FieldDecl>(M->getMemberDecl()));
}

/// The CUDA runtime's record of \p T (an element of it, what it points or
/// refers to), named as the runtime names it.
static llvm::StringRef runtimeRecordName(QualType T) {
  T = T.getNonReferenceType();
  while (true) {
    if (const auto *P = T->getAs<PointerType>())
      T = P->getPointeeType();
    else if (const auto *A = T->getAsArrayTypeUnsafe())
      T = A->getElementType();
    else
      break;
  }
  const auto *RD = T->getAsRecordDecl();
  if (!RD)
    return {};
  if (const TypedefNameDecl *TD = RD->getTypedefNameForAnonDecl())
    return TD->getName();
  return RD->getDeclName().isIdentifier() ? RD->getName() : llvm::StringRef();
}

/// What a helper that sets a launch's cluster could be handed: a launch
/// configuration or attribute, a dim3, or where one lies.
static bool carriesLaunchConfiguration(QualType T) {
  llvm::StringRef N = runtimeRecordName(T);
  return N.starts_with("cudaLaunchAttribute") ||
         N.starts_with("cudaLaunchConfig") || N == "dim3";
}

/// An attribute (or its value) itself, not a pointer to one: assigning it
/// copies a dimension in.
static bool isLaunchAttributeObject(QualType T) {
  T = T.getNonReferenceType();
  return !T->isPointerType() &&
         runtimeRecordName(T).starts_with("cudaLaunchAttribute");
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

/// A record whose first fields are x, y, z (a braced list fills them in
/// that order).
static bool extentsInOrder(QualType T) {
  const auto *RD = T->getAsRecordDecl();
  if (!RD)
    return false;
  unsigned I = 0;
  for (const FieldDecl *F : RD->fields()) {
    if (I == 3)
      break;
    if (!F->getDeclName().isIdentifier() || F->getName() != StringRef(&"xyz"[I], 1))
      return false;
    ++I;
  }
  return I > 0;
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
    const Expr *Lhs = nullptr, *Rhs = nullptr;
    if (const auto *B = dyn_cast<BinaryOperator>(S);
        B && B->getOpcode() == BO_Assign)
      Lhs = B->getLHS(), Rhs = B->getRHS();
    else if (const auto *O = dyn_cast<CXXOperatorCallExpr>(S);
             O && O->getOperator() == OO_Equal && O->getNumArgs() == 2)
      Lhs = O->getArg(0), Rhs = O->getArg(1);
    if (Lhs && store(Lhs, Rhs, F)) {
      visit(Rhs, F, Depth);
      return;
    }
    if (Lhs && isLaunchAttributeObject(Lhs->getType()))
      Other = true; // a whole attribute copied in: its dimension unseen
    if (const auto *L = dyn_cast<InitListExpr>(S);
        L && L->getInitializedFieldInUnion() &&
        isDimensionField(L->getInitializedFieldInUnion()))
      Other = true; // `{.clusterDim = {2, 1, 1}}`
    if (isa<MemberExpr>(S) && isDimensionMember(cast<Expr>(S)))
      Other = true; // any other write: `.x *= 2`, a reference bound to it
    if (const auto *C = dyn_cast<CallExpr>(S))
      call(C->getDirectCallee(), callArguments(C), F, Depth);
    else if (const auto *C = dyn_cast<CXXConstructExpr>(S))
      call(C->getConstructor(), llvm::ArrayRef(C->getArgs(), C->getNumArgs()),
           F, Depth);
    for (const Stmt *Child : S->children())
      visit(Child, F, Depth);
  }

  /// A call's arguments as its callee's parameters see them (an operator
  /// member's object is not one).
  static llvm::ArrayRef<const Expr *> callArguments(const CallExpr *C) {
    llvm::ArrayRef<const Expr *> Args(C->getArgs(), C->getNumArgs());
    if (isa<CXXOperatorCallExpr>(C) && !Args.empty() &&
        isa_and_nonnull<CXXMethodDecl>(C->getDirectCallee()))
      return Args.drop_front();
    return Args;
  }

  /// Reads a host helper's body with its parameters bound to \p Args. A
  /// call that is not read (too deep, no body in sight, through a pointer)
  /// and that is handed a launch's configuration may set a dimension
  /// unseen; the CUDA runtime's own functions only read it.
  void call(const FunctionDecl *Callee, llvm::ArrayRef<const Expr *> Args,
            const Frame &F, unsigned Depth) {
    const FunctionDecl *Def = nullptr;
    if (Callee && Callee->hasBody(Def) &&
        (Def->hasAttr<CUDAGlobalAttr>() ||
         (Def->hasAttr<CUDADeviceAttr>() && !Def->hasAttr<CUDAHostAttr>())))
      return;
    bool Readable = Def && Depth < MaxDepth;
    for (const Frame *Up = &F; Readable && Up; Up = Up->Caller)
      if (Up->Fn == Def)
        return;
    if (!Readable) {
      bool Runtime = Callee && Ctx.getSourceManager().isInSystemHeader(
                                   Callee->getLocation());
      if (!Runtime && llvm::any_of(Args, [&](const Expr *A) {
            return carriesLaunchConfiguration(A->getType());
          }))
        Other = true;
      return;
    }
    scan(Frame{Def, Args, &F}, Depth + 1);
  }

  /// Whether \p Lhs is a cluster dimension (or one of its extents), and
  /// then records the store of \p Rhs there.
  bool store(const Expr *Lhs, const Expr *Rhs, const Frame &F) {
    Lhs = Lhs->IgnoreParenImpCasts();
    if (isDimensionMember(Lhs)) {
      ++Stores;
      std::optional<Dims> D = dims(Rhs, F, 0);
      if (!D || (*D)[0] > 1 || (*D)[1] > 1 || (*D)[2] > 1)
        Other = true;
      return true;
    }
    const auto *M = dyn_cast<MemberExpr>(Lhs);
    if (!M || !componentIndex(M) || !isDimensionMember(M->getBase()))
      return false;
    ++Stores;
    std::optional<uint64_t> V = scalar(Rhs, F, 0);
    if (!V || *V > 1)
      Other = true;
    return true;
  }

  /// Whether \p F's body may change \p V after it is bound.
  bool changedIn(const Frame &F, const VarDecl *V) {
    return !V->getType().isConstQualified() &&
           ExprMutationAnalyzer(*F.Fn->getBody(), Ctx).isMutated(V);
  }

  /// What the variable \p D names stands for, and the frame to read it in:
  /// a parameter's argument (or default), a local's unchanged initialiser.
  std::optional<std::pair<const Expr *, const Frame *>>
  valueOf(const DeclRefExpr *D, const Frame &F) {
    if (const auto *P = dyn_cast<ParmVarDecl>(D->getDecl())) {
      if (P->getDeclContext() != F.Fn)
        return std::nullopt;
      unsigned I = P->getFunctionScopeIndex();
      if (changedIn(F, P))
        return std::nullopt;
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
    if (changedIn(F, V))
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
      if (!extentsInOrder(L->getType()))
        return std::nullopt;
      Parts.append(L->inits().begin(), L->inits().end());
    } else if (const auto *C = dyn_cast<CXXConstructExpr>(E)) {
      if (C->getNumArgs() == 1 &&
          Ctx.hasSameUnqualifiedType(C->getArg(0)->getType(), C->getType()))
        return dims(C->getArg(0), F, Hops + 1);
      // dim3's constructor takes x, y, z, each defaulting to 1; another
      // class's arguments say nothing of its extents.
      if (runtimeRecordName(C->getType()) != "dim3")
        return std::nullopt;
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
