//===- CuteCopies.cpp - CuTe copies in template patterns -------------------===//
#include "model/CuteCopies.h"
#include "clang/AST/Decl.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/StringSwitch.h"

using namespace clang;

namespace proxyfence {

namespace {

/// What a tensor expression of a pattern views.
struct Tensor {
  enum KindT { Unknown, Shared, Register, TmaCoord, Global } Kind = Unknown;
  AliasSet Mem; // Shared: what it views
};

/// The name a call spells and whether it gives template arguments.
struct Callee {
  llvm::StringRef Name;
  bool ExplicitArgs = false;
  const Expr *Object = nullptr; // a member call's object
};

Callee calleeOf(const CallExpr *Call) {
  Callee C;
  const Expr *E = Call->getCallee()->IgnoreParenImpCasts();
  auto name = [](DeclarationName N) {
    return N.isIdentifier() ? N.getAsIdentifierInfo()->getName()
                            : llvm::StringRef();
  };
  if (const auto *UL = dyn_cast<UnresolvedLookupExpr>(E)) {
    C.Name = name(UL->getName());
    C.ExplicitArgs = UL->hasExplicitTemplateArgs();
  } else if (const auto *DM = dyn_cast<CXXDependentScopeMemberExpr>(E)) {
    C.Name = name(DM->getMember());
    C.ExplicitArgs = DM->hasExplicitTemplateArgs();
    if (!DM->isImplicitAccess())
      C.Object = DM->getBase();
  } else if (const auto *UM = dyn_cast<UnresolvedMemberExpr>(E)) {
    C.Name = name(UM->getMemberName());
    C.ExplicitArgs = UM->hasExplicitTemplateArgs();
    if (!UM->isImplicitAccess())
      C.Object = UM->getBase();
  } else if (const auto *DS = dyn_cast<DependentScopeDeclRefExpr>(E)) {
    C.Name = name(DS->getDeclName());
    C.ExplicitArgs = DS->hasExplicitTemplateArgs();
  } else if (const auto *DR = dyn_cast<DeclRefExpr>(E)) {
    if (isa<FunctionDecl>(DR->getDecl())) {
      C.Name = name(DR->getDecl()->getDeclName());
      C.ExplicitArgs = DR->hasExplicitTemplateArgs();
    }
  } else if (const auto *ME = dyn_cast<MemberExpr>(E)) {
    if (isa<CXXMethodDecl>(ME->getMemberDecl())) {
      C.Name = name(ME->getMemberDecl()->getDeclName());
      C.Object = ME->getBase();
    }
  }
  return C;
}

/// Whether the lookup of \p Call found CuTe's `copy` (`using namespace
/// cute;` or `cute::copy`).
bool isCuteCopy(const CallExpr *Call) {
  const auto *UL =
      dyn_cast<UnresolvedLookupExpr>(Call->getCallee()->IgnoreParenImpCasts());
  if (!UL || !UL->getName().isIdentifier() ||
      UL->getName().getAsIdentifierInfo()->getName() != "copy")
    return false;
  for (const NamedDecl *D : UL->decls()) {
    const auto *NS = dyn_cast<NamespaceDecl>(
        D->getUnderlyingDecl()->getDeclContext()->getEnclosingNamespaceContext());
    for (; NS; NS = dyn_cast<NamespaceDecl>(NS->getParent()))
      if (NS->getName() == "cute")
        return true;
  }
  return false;
}

/// The initialiser of the local variable (not a parameter) \p E names.
const Expr *localInit(const Expr *E) {
  const auto *DRE = dyn_cast<DeclRefExpr>(E);
  const auto *V = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
  return V && V->hasLocalStorage() && !isa<ParmVarDecl>(V) ? V->getInit()
                                                           : nullptr;
}

class TensorReader {
public:
  TensorReader(const FunctionDecl *Fn, MemoryModel &Memory)
      : Fn(Fn), Memory(Memory) {}

  Tensor of(const Expr *E, unsigned Depth = 0) {
    if (!E || Depth > 24)
      return {};
    E = E->IgnoreImplicitAsWritten()->IgnoreParens();
    if (const auto *PL = dyn_cast<ParenListExpr>(E))
      return PL->getNumExprs() == 1 ? of(PL->getExpr(0), Depth + 1) : Tensor();
    if (const auto *IL = dyn_cast<InitListExpr>(E))
      return IL->getNumInits() == 1 ? of(IL->getInit(0), Depth + 1) : Tensor();
    if (const auto *FC = dyn_cast<CXXFunctionalCastExpr>(E))
      return of(FC->getSubExpr(), Depth + 1);
    if (const auto *CE = dyn_cast<CXXConstructExpr>(E))
      return CE->getNumArgs() == 1 ? of(CE->getArg(0), Depth + 1) : Tensor();
    // `t.data() + offset`: an iterator moved along is still one into the
    // same tensor (a TMA tensor rebased by pointer arithmetic).
    if (const auto *BO = dyn_cast<BinaryOperator>(E); BO && BO->isAdditiveOp())
      return of(offsetBase(BO->getLHS(), BO->getRHS()), Depth + 1);
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E);
        Op && (Op->getOperator() == OO_Plus || Op->getOperator() == OO_Minus) &&
        Op->getNumArgs() == 2)
      return of(offsetBase(Op->getArg(0), Op->getArg(1)), Depth + 1);
    if (isa<DeclRefExpr>(E)) {
      const Expr *Init = localInit(E);
      return Init ? of(Init, Depth + 1) : Tensor();
    }
    const auto *Call = dyn_cast<CallExpr>(E);
    if (!Call)
      return {};
    // `t(_, _, stage)`: the tensor the call is made on.
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call))
      return Op->getOperator() == OO_Call && Op->getNumArgs()
                 ? of(Op->getArg(0), Depth + 1)
                 : Tensor();
    // `t(_, stage)` on a tensor variable, or on a tensor a call returns
    // (`tma.get_tma_tensor(shape)(_, _, bidh)`).
    const Expr *CalleeE = Call->getCallee()->IgnoreParenImpCasts();
    if (const auto *DRE = dyn_cast<DeclRefExpr>(CalleeE);
        DRE && isa<VarDecl>(DRE->getDecl()))
      return of(DRE, Depth + 1);
    if (isa<CallExpr>(CalleeE))
      return of(CalleeE, Depth + 1);
    Callee C = calleeOf(Call);
    if (C.Name.empty())
      return {};
    if (C.Name == "make_smem_ptr") {
      if (!Call->getNumArgs())
        return {};
      AliasSet M = pointee(Call->getArg(0), Depth + 1);
      if (M.empty())
        return {};
      return {Tensor::Shared, M};
    }
    if (C.Name == "make_gmem_ptr")
      return {Tensor::Global, {}};
    if (C.Name == "get_tma_tensor")
      return {Tensor::TmaCoord, {}};
    bool Owning = llvm::StringSwitch<bool>(C.Name)
                      .Case("make_tensor", C.ExplicitArgs)
                      .Cases({"make_fragment_like", "make_tensor_like",
                              "make_rmem_tensor", "make_rmem_tensor_like"},
                             true)
                      .StartsWith("partition_fragment", true)
                      .Default(false);
    if (Owning)
      return {Tensor::Register, {}};
    if (Call->getNumArgs())
      return of(Call->getArg(0), Depth + 1);
    return C.Object ? of(C.Object, Depth + 1) : Tensor();
  }

private:
  /// Of `a + b`, the operand that is not the integer offset.
  static const Expr *offsetBase(const Expr *L, const Expr *R) {
    QualType T = L->IgnoreParenImpCasts()->getType();
    return !T.isNull() && T->isIntegralOrEnumerationType() ? R : L;
  }

  /// The shared memory a pointer passed to make_smem_ptr points into: a
  /// value the memory model knows, or `storage.member.begin()` / `.data()`
  /// of an object it does.
  AliasSet pointee(const Expr *E, unsigned Depth) {
    if (Depth > 24)
      return {};
    AliasSet M = Memory.valueOf(E, Fn);
    if (!M.empty())
      return M;
    E = E->IgnoreImplicitAsWritten()->IgnoreParens();
    if (isa<DeclRefExpr>(E)) {
      const Expr *Init = localInit(E);
      return Init ? pointee(Init, Depth + 1) : AliasSet();
    }
    const auto *Call = dyn_cast<CallExpr>(E);
    if (!Call || Call->getNumArgs())
      return {};
    Callee C = calleeOf(Call);
    if (!C.Object || (C.Name != "begin" && C.Name != "data"))
      return {};
    return Memory.objectOf(C.Object, Fn);
  }

  const FunctionDecl *Fn;
  MemoryModel &Memory;
};

} // namespace

AliasSet cuteTensorPointee(const Expr *E, const FunctionDecl *Fn,
                           MemoryModel &Memory) {
  const auto *Call = dyn_cast<CallExpr>(E->IgnoreImplicitAsWritten()->IgnoreParens());
  if (!Call)
    return {};
  // A conversion of such a pointer (`raw_pointer_cast(p)`,
  // `cast_smem_ptr_to_uint(p)`): the same address.
  if (Call->getNumArgs() == 1)
    return cuteTensorPointee(Call->getArg(0), Fn, Memory);
  // The tensor's iterator, as containers name it.
  Callee C = calleeOf(Call);
  if (Call->getNumArgs() || !C.Object || (C.Name != "data" && C.Name != "begin"))
    return {};
  Tensor T = TensorReader(Fn, Memory).of(C.Object);
  return T.Kind == Tensor::Shared ? T.Mem : AliasSet();
}

std::optional<CuteCopy> cuteCopyOf(const CallExpr *Call, const FunctionDecl *Fn,
                                   MemoryModel &Memory) {
  if (Call->getNumArgs() != 3 || !isCuteCopy(Call))
    return std::nullopt;
  TensorReader Read(Fn, Memory);
  Tensor Src = Read.of(Call->getArg(1)), Dst = Read.of(Call->getArg(2));
  if (Src.Kind == Tensor::Register && Dst.Kind == Tensor::Shared)
    return CuteCopy{CuteCopy::GenericWrite, Dst.Mem};
  if (Src.Kind == Tensor::Shared && Dst.Kind == Tensor::Register)
    return CuteCopy{CuteCopy::GenericRead, Src.Mem};
  if (Src.Kind == Tensor::Shared && Dst.Kind == Tensor::TmaCoord)
    return CuteCopy{CuteCopy::TmaStore, Src.Mem};
  if (Src.Kind == Tensor::TmaCoord && Dst.Kind == Tensor::Shared)
    return CuteCopy{CuteCopy::TmaLoad, Dst.Mem};
  return std::nullopt;
}

} // namespace proxyfence
