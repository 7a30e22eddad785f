//===- CuteCopies.cpp - CuTe copies in template patterns -------------------===//
#include "model/CuteCopies.h"
#include "model/DependentCalls.h"
#include "clang/AST/StmtVisitor.h"
#include "clang/AST/Decl.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/StringSwitch.h"

using namespace clang;

namespace proxyfence {

namespace {

/// What a tensor expression of a pattern views.
struct Tensor {
  enum KindT { Unknown, Shared, Register, TmaCoord, Global, Param } Kind = Unknown;
  AliasSet Mem; // Shared: what it views; Param: the parameter's root
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

/// Whether \p C asks an object for its iterator, as containers and CuTe
/// tensors name it (`t.data()`, `s.begin()`): the object's memory.
bool namesIterator(const Callee &C) {
  return C.Object && (C.Name == "data" || C.Name == "begin");
}

/// Whether the lookup of \p Call found CuTe's \p Name (`using namespace
/// cute;` or `cute::copy`).
bool isCuteCall(const CallExpr *Call, llvm::StringRef Name) {
  const auto *UL =
      dyn_cast<UnresolvedLookupExpr>(Call->getCallee()->IgnoreParenImpCasts());
  if (!UL || !UL->getName().isIdentifier() ||
      UL->getName().getAsIdentifierInfo()->getName() != Name)
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
    if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
      // A tensor the caller passes (a helper's or a functor's `SmemTensor
      // &&s_out`): what it views is decided at each call.
      if (const auto *P = dyn_cast<ParmVarDecl>(DRE->getDecl())) {
        QualType T = P->getType().getNonReferenceType();
        if (T->isScalarType() || T->isArrayType())
          return {};
        AliasSet M = Memory.valueOf(DRE, Fn);
        return M.hasParamOrThis() ? Tensor{Tensor::Param, M} : Tensor();
      }
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
      return viewedArgument(Call, Depth);
    // A tensor's iterator stands for the tensor (`mD.data() + offset`); other
    // accessors (`shape()`, `layout()`) are no tensors.
    return namesIterator(C) ? of(C.Object, Depth + 1) : Tensor();
  }

private:
  /// The tensor a view call views: its first argument, or the first that
  /// is a tensor (`domain_offset(coord, t)`). A pointer first
  /// (`make_tensor(gptr, layout)`) views what it points to, and a
  /// parameter is taken for a tensor only there, when no later argument is
  /// one (a shape or a coordinate parameter is none).
  Tensor viewedArgument(const CallExpr *Call, unsigned Depth) {
    const Expr *First = Call->getArg(0);
    Tensor T = of(First, Depth + 1);
    QualType FT = First->IgnoreImplicitAsWritten()->getType();
    if ((T.Kind != Tensor::Unknown && T.Kind != Tensor::Param) ||
        (!FT.isNull() && FT->isPointerType()))
      return T;
    for (const Expr *Arg : llvm::drop_begin(Call->arguments()))
      if (Tensor U = of(Arg, Depth + 1);
          U.Kind != Tensor::Unknown && U.Kind != Tensor::Param)
        return U;
    return T;
  }

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
    // `make_smem_ptr(fp8 ? s.v_out.data() : s.v.data())`: either buffer,
    // unless the condition is a constant already.
    if (const auto *CO = dyn_cast<AbstractConditionalOperator>(E)) {
      bool Value;
      if (!CO->getCond()->isValueDependent() &&
          CO->getCond()->EvaluateAsBooleanCondition(Value, Memory.context()))
        return pointee(Value ? CO->getTrueExpr() : CO->getFalseExpr(), Depth + 1);
      AliasSet M = pointee(CO->getTrueExpr(), Depth + 1);
      M.merge(pointee(CO->getFalseExpr(), Depth + 1));
      return M;
    }
    const auto *Call = dyn_cast<CallExpr>(E);
    if (!Call || Call->getNumArgs())
      return {};
    Callee C = calleeOf(Call);
    if (!namesIterator(C))
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
    if (AliasSet M = cuteTensorPointee(Call->getArg(0), Fn, Memory); !M.empty())
      return M;
  // The tensor's iterator, as containers name it.
  Callee C = calleeOf(Call);
  const Expr *Viewed = Call;
  if (!Call->getNumArgs() && namesIterator(C))
    Viewed = C.Object;
  // Else the tensor itself (`sVt(_, stage)` handed to a helper that copies
  // into it): the memory it views.
  Tensor T = TensorReader(Fn, Memory).of(Viewed);
  return T.Kind == Tensor::Shared ? T.Mem : AliasSet();
}

std::optional<CuteCopy> cuteCopyOf(const CallExpr *Call, const FunctionDecl *Fn,
                                   MemoryModel &Memory) {
  if (Call->getNumArgs() != 3 || !isCuteCall(Call, "copy"))
    return std::nullopt;
  TensorReader Read(Fn, Memory);
  Tensor Src = Read.of(Call->getArg(1)), Dst = Read.of(Call->getArg(2));
  if (Src.Kind == Tensor::Register && Dst.Kind == Tensor::Shared)
    return CuteCopy{CuteCopy::GenericWrite, Dst.Mem};
  if (Src.Kind == Tensor::Shared && Dst.Kind == Tensor::Register)
    return CuteCopy{CuteCopy::GenericRead, Src.Mem};
  // Registers to or from a tensor the caller passes: an access of whatever
  // shared memory the caller's tensor views (none for a global one).
  if (Src.Kind == Tensor::Register && Dst.Kind == Tensor::Param)
    return CuteCopy{CuteCopy::GenericWrite, Dst.Mem};
  if (Src.Kind == Tensor::Param && Dst.Kind == Tensor::Register)
    return CuteCopy{CuteCopy::GenericRead, Src.Mem};
  if (Src.Kind == Tensor::Shared && Dst.Kind == Tensor::TmaCoord)
    return CuteCopy{CuteCopy::TmaStore, Src.Mem};
  if (Src.Kind == Tensor::TmaCoord && Dst.Kind == Tensor::Shared)
    return CuteCopy{CuteCopy::TmaLoad, Dst.Mem};
  return std::nullopt;
}

namespace {

/// The statements of \p S that \p F is called on, outside lambdas (whose
/// bodies are other functions).
void forEachStmt(const Stmt *S, llvm::function_ref<void(const Stmt *)> F) {
  if (!S)
    return;
  F(S);
  if (isa<LambdaExpr>(S))
    return;
  for (const Stmt *Child : S->children())
    forEachStmt(Child, F);
}

/// A call whose arguments stand for its callee's parameters while the
/// callee's returned expressions are read.
struct ArgFrame {
  const FunctionDecl *Def;
  const CallExpr *Call;
  const ArgFrame *Caller;
};

/// What an MMA operand views: shared memory, or the parameters of the
/// function it is read in.
struct Operand {
  AliasSet Mem;
  llvm::SmallVector<unsigned, 2> Params;
};

/// Reads an expression passed as an MMA operand back to the tensor an MMA
/// partitioned, through locals, slices and the returns of helpers.
class OperandReader {
public:
  OperandReader(const FunctionDecl *Fn, MemoryModel &Memory,
                llvm::function_ref<bool(const VarDecl *, const FunctionDecl *)>
                    FilledByCopy)
      : Fn(Fn), Memory(Memory), FilledByCopy(FilledByCopy) {}

  void read(const Expr *E, const ArgFrame *Frame, Operand &Out,
            unsigned Depth = 0) {
    // Helpers with several returns nest: a budget keeps the walk linear.
    if (!E || Depth > 16 || ++Steps > MaxSteps)
      return;
    E = E->IgnoreImplicitAsWritten()->IgnoreParens();
    if (const auto *CE = dyn_cast<CXXConstructExpr>(E)) {
      if (CE->getNumArgs() == 1)
        read(CE->getArg(0), Frame, Out, Depth + 1);
      return;
    }
    if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
      if (const Expr *Bound = boundArgument(DRE, Frame))
        return read(Bound, Frame->Caller, Out, Depth + 1);
      if (!Frame)
        noteParam(DRE, Out);
      // A fragment a copy fills holds registers (an RS MMA's A from
      // `copy(s2r, partition_S(sQ), retile_D(tSrQ))`), whatever it was
      // partitioned from.
      const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
      if (V && FilledByCopy(V, Frame ? Frame->Def : Fn))
        return;
      if (const Expr *Init = localInit(DRE))
        read(Init, Frame, Out, Depth + 1);
      return;
    }
    const auto *Call = dyn_cast<CallExpr>(E);
    if (!Call)
      return;
    // `t(_, _, stage)`: a slice of the operand.
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call)) {
      if (Op->getOperator() == OO_Call && Op->getNumArgs())
        read(Op->getArg(0), Frame, Out, Depth + 1);
      return;
    }
    // `t(_, _, stage)` on a tensor of dependent type: clang keeps the
    // callee an expression of the tensor itself.
    const Expr *CalleeE = Call->getCallee()->IgnoreParenImpCasts();
    if (const auto *DRE = dyn_cast<DeclRefExpr>(CalleeE);
        (DRE && isa<VarDecl>(DRE->getDecl())) || isa<CallExpr>(CalleeE))
      return read(CalleeE, Frame, Out, Depth + 1);
    Callee C = calleeOf(Call);
    if (C.Name.starts_with("partition_fragment_") ||
        C.Name.starts_with("make_fragment_")) {
      // `thr_mma.partition_fragment_A(sA)`, `partition_fragment_A(mma, sA)`
      unsigned TensorArg = C.Object ? 0 : 1;
      if (Call->getNumArgs() > TensorArg)
        partitioned(Call->getArg(TensorArg), Frame, Out, Depth + 1);
      return;
    }
    for (const FunctionDecl *F : callees(Call)) {
      const FunctionDecl *Def = nullptr;
      if (Depth > 8 || !F->hasBody(Def) || !Def)
        continue;
      ArgFrame Inner{Def, Call, Frame};
      forEachStmt(Def->getBody(), [&](const Stmt *S) {
        if (const auto *R = dyn_cast<ReturnStmt>(S))
          read(R->getRetValue(), &Inner, Out, Depth + 1);
      });
    }
  }

private:
  /// The tensor an MMA partitions: shared memory when it views some.
  void partitioned(const Expr *E, const ArgFrame *Frame, Operand &Out,
                   unsigned Depth) {
    E = E->IgnoreImplicitAsWritten()->IgnoreParens();
    if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
      if (const Expr *Bound = boundArgument(DRE, Frame))
        return partitioned(Bound, Frame->Caller, Out, Depth + 1);
    Tensor T = TensorReader(Frame ? Frame->Def : Fn, Memory).of(E);
    if (T.Kind == Tensor::Shared)
      Out.Mem.merge(T.Mem);
  }

  /// The caller's argument for a parameter of the frame's callee.
  static const Expr *boundArgument(const DeclRefExpr *DRE,
                                   const ArgFrame *Frame) {
    const auto *P = dyn_cast<ParmVarDecl>(DRE->getDecl());
    unsigned I = P ? P->getFunctionScopeIndex() : 0;
    if (!P || !Frame || P->getDeclContext() != Frame->Def ||
        I >= Frame->Call->getNumArgs())
      return nullptr;
    return Frame->Call->getArg(I);
  }

  /// Records a parameter of the function read at the top.
  void noteParam(const DeclRefExpr *DRE, Operand &Out) const {
    const auto *P = dyn_cast<ParmVarDecl>(DRE->getDecl());
    unsigned I = P ? P->getFunctionScopeIndex() : 0;
    if (P && P->getDeclContext() == Fn && !llvm::is_contained(Out.Params, I))
      Out.Params.push_back(I);
  }

  static llvm::SmallVector<const FunctionDecl *, 2>
  callees(const CallExpr *Call) {
    if (const FunctionDecl *F = Call->getDirectCallee())
      return {F};
    DependentCallee D = dependentCallee(Call);
    return D.Viable;
  }

  static constexpr unsigned MaxSteps = 2000;
  unsigned Steps = 0;
  const FunctionDecl *Fn;
  MemoryModel &Memory;
  llvm::function_ref<bool(const VarDecl *, const FunctionDecl *)> FilledByCopy;
};

} // namespace

bool CuteMmaReader::filledByCopy(const VarDecl *V, const FunctionDecl *Fn) {
  auto [It, New] = CopyFilled.try_emplace(V, false);
  if (!New || !Fn->getBody())
    return It->second;
  bool Filled = false;
  forEachStmt(Fn->getBody(), [&](const Stmt *S) {
    const auto *Call = dyn_cast<CallExpr>(S);
    if (Filled || !Call || Call->getNumArgs() < 2 || !isCuteCall(Call, "copy"))
      return;
    forEachStmt(Call->getArg(Call->getNumArgs() - 1), [&](const Stmt *D) {
      if (const auto *DRE = dyn_cast<DeclRefExpr>(D))
        Filled |= DRE->getDecl() == V;
    });
  });
  return CopyFilled[V] = Filled;
}

bool CuteMmaReader::issuesAsm(const FunctionDecl *Fn, llvm::StringRef Needle,
                              llvm::DenseMap<const FunctionDecl *, bool> &Memo) {
  const FunctionDecl *Def = nullptr;
  if (!Fn->hasBody(Def) || !Def)
    return false;
  if (auto It = Memo.find(Def); It != Memo.end())
    return It->second;
  Memo[Def] = false; // a recursive call adds nothing
  bool Found = false;
  forEachStmt(Def->getBody(), [&](const Stmt *S) {
    if (Found)
      return;
    if (const auto *Asm = dyn_cast<GCCAsmStmt>(S))
      Found = llvm::StringRef(Asm->getAsmString()).contains(Needle);
    else if (const auto *Call = dyn_cast<CallExpr>(S);
             Call && Call->getDirectCallee())
      Found = issuesAsm(Call->getDirectCallee(), Needle, Memo);
  });
  return Memo[Def] = Found;
}

std::optional<CuteMma> CuteMmaReader::mmaOf(const CallExpr *Call,
                                            const FunctionDecl *Fn) {
  unsigned N = Call->getNumArgs();
  if ((N != 4 && N != 5) || !isCuteCall(Call, "gemm") ||
      !issuesAsm(Fn, "wgmma.fence", WgmmaFence))
    return std::nullopt;
  OperandReader Read(Fn, Memory, FilledByCopy);
  Operand O;
  Read.read(Call->getArg(N - 3), nullptr, O); // A
  Read.read(Call->getArg(N - 2), nullptr, O); // B
  return CuteMma{O.Mem, O.Params};
}

llvm::SmallVector<unsigned, 2>
CuteMmaReader::operandParams(const FunctionDecl *F) {
  const FunctionDecl *Def = nullptr;
  if (!F->hasBody(Def) || !Def)
    return {};
  if (auto It = Params.find(Def); It != Params.end())
    return It->second;
  Params[Def]; // a recursive call adds nothing
  // A wrapper that fences before its MMA would have its operands read
  // ahead of its own fence at the call: left to its body, unread.
  if (issuesAsm(Def, "fence.proxy.async", ProxyFence))
    return {};
  llvm::SmallVector<unsigned, 2> Found;
  auto add = [&](llvm::ArrayRef<unsigned> Ps) {
    for (unsigned P : Ps)
      if (!llvm::is_contained(Found, P))
        Found.push_back(P);
  };
  forEachStmt(Def->getBody(), [&](const Stmt *S) {
    const auto *Call = dyn_cast<CallExpr>(S);
    if (!Call)
      return;
    if (std::optional<CuteMma> M = mmaOf(Call, Def)) {
      add(M->ParamOperands);
      return;
    }
    // A wrapper of a wrapper: what it passes on of its own parameters.
    DependentCallee D = dependentCallee(Call);
    if (D.Viable.size() != 1)
      return;
    for (unsigned I : operandParams(D.Viable.front())) {
      if (I >= Call->getNumArgs())
        continue;
      Operand O;
      OperandReader(Def, Memory, FilledByCopy).read(Call->getArg(I), nullptr, O);
      add(O.Params);
    }
  });
  return Params[Def] = Found;
}

AliasSet CuteMmaReader::operandMemory(const Expr *Arg,
                                      const FunctionDecl *Fn) {
  Operand O;
  OperandReader(Fn, Memory, FilledByCopy).read(Arg, nullptr, O);
  return O.Mem;
}

} // namespace proxyfence
