//===- Events.cpp - statements of device code as events -------------------===//
#include "model/Events.h"
#include "model/CuteCopies.h"
#include "clang/AST/ASTContext.h"
#include "model/TensorMapWrites.h"
#include "model/DependentCalls.h"
#include "clang/AST/ParentMapContext.h"
#include "model/Vocabulary.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Basic/SourceManager.h"
#include <algorithm>
#include <map>

using namespace clang;

namespace proxyfence {

namespace {
/// "st.shared", "stmatrix", "atom.shared", "mbarrier.arrive.shared::cluster",
/// "tcgen05.commit.cta_group::2", "st.async.shared::cluster": enough to
/// recognise the line.
std::string opcodeLabel(const ptx::Instruction &I) {
  if (I.Parts.empty())
    return I.Opcode;
  std::string L = I.Parts[0];
  size_t K = 1;
  // The second part names the operation (or its asynchrony) for these.
  if (I.Parts.size() > 1 &&
      (L == "mbarrier" || L == "tcgen05" || I.Parts[1] == "async"))
    L += "." + I.Parts[K++];
  for (; K < I.Parts.size(); ++K) {
    llvm::StringRef P = I.Parts[K];
    if (P.starts_with("shared") || P.starts_with("cta_group") ||
        P.starts_with("multicast")) {
      L += "." + I.Parts[K];
      break;
    }
  }
  return L;
}

} // namespace

BarrierId::Match BarrierId::compare(const BarrierId &O) const {
  if (Kind == Unknown || O.Kind == Unknown)
    return Match::Unknown;
  if (Kind == Const && O.Kind == Const)
    return Offset == O.Offset ? Match::Same : Match::Different;
  // Rows indexed by different values (the same const local is one value,
  // compared below like any variable).
  if (Kind == Indexed && O.Kind == Indexed && !(Variable && Variable == O.Variable))
    return Offset == O.Offset && (Walks || O.Walks) ? Match::Same
                                                    : Match::Unknown;
  if (Kind == O.Kind && Variable == O.Variable && Member == O.Member)
    return Offset == O.Offset ? Match::Same : Match::Different;
  return Match::Unknown;
}

std::string BarrierId::describe() const {
  if (Kind == Unknown)
    return "an id that is not a constant";
  if (Kind == Const)
    return "id " + std::to_string(Offset);
  if (Kind == Indexed)
    return "id " + std::to_string(Offset) + " + a runtime index";
  std::string S = "id '" + (Kind == Field ? Member->getNameAsString()
                                          : Variable->getNameAsString());
  if (Offset)
    S += (Offset > 0 ? " + " : " - ") + std::to_string(std::abs(Offset));
  return S + "'";
}

Event eventOf(const ptx::Effect &Eff, StmtRef At, SourceLocation Loc,
              std::string What) {
  Event Ev;
  Ev.Kind = Eff.Kind;
  Ev.Op = Eff.Op;
  Ev.Scope = Eff.Scope;
  Ev.Space = Eff.Space;
  Ev.ArriveOnly = Eff.ArriveOnly;
  Ev.Relaxed = Eff.Relaxed;
  Ev.CrossCta = Eff.CrossCta;
  Ev.At = At;
  Ev.Loc = Loc;
  Ev.What = std::move(What);
  return Ev;
}

namespace {

/// A C++ store, copy or memcpy into a tensor map (TensorMapWrites.h).
Event tensorMapStore(const Expr *E, const FunctionDecl *Fn, AliasSet Mem) {
  Event Ev;
  Ev.Kind = EffectKind::TensormapWrite;
  Ev.Mem = std::move(Mem); // shared memory, when the map is known to be there
  Ev.At = {E, Fn};
  Ev.Loc = E->getBeginLoc();
  Ev.What = "C++ store into a tensor map";
  return Ev;
}

/// Whether the call \p Call writes into a tensor map: `map = other` (a
/// struct copy), memcpy/memset into one.
bool callWritesTensorMap(const CallExpr *Call) {
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call))
    return Op->getOperator() == OO_Equal && Op->getNumArgs() &&
           writesTensorMap(Op->getArg(0));
  const FunctionDecl *Callee = Call->getDirectCallee();
  if (!Callee || !Call->getNumArgs() || !Callee->getIdentifier())
    return false;
  llvm::StringRef Name = Callee->getName();
  return (Name == "memcpy" || Name == "__builtin_memcpy" || Name == "memset" ||
          Name == "__builtin_memset") &&
         pointsIntoTensorMap(Call->getArg(0));
}

Event cxxAccess(EffectKind K, AliasSet M, const Expr *E,
                const FunctionDecl *Fn) {
  Event Ev;
  Ev.Kind = K;
  Ev.Mem = std::move(M);
  Ev.At = {E, Fn};
  Ev.Loc = E->getBeginLoc();
  Ev.What = K == EffectKind::GenericWrite ? "store" : "load";
  return Ev;
}

/// A CuTe copy of a pattern (CuteCopies.h) as the event it is.
Event cuteCopyEvent(const CuteCopy &C, const CallExpr *Call,
                    const FunctionDecl *Fn) {
  if (C.Kind == CuteCopy::GenericWrite || C.Kind == CuteCopy::GenericRead) {
    Event Ev = cxxAccess(C.Kind == CuteCopy::GenericWrite
                             ? EffectKind::GenericWrite
                             : EffectKind::GenericRead,
                         C.Mem, Call, Fn);
    Ev.What = "CuTe copy";
    return Ev;
  }
  ptx::Effect Eff;
  bool Store = C.Kind == CuteCopy::TmaStore;
  Eff.Kind = Store ? EffectKind::AsyncRead : EffectKind::AsyncWrite;
  Eff.Op = Store ? AsyncOp::TensorStore : AsyncOp::TensorLoad;
  Event Ev = eventOf(Eff, {Call, Fn}, Call->getBeginLoc(),
                     asyncOpName(Eff.Op));
  Ev.Mem = C.Mem;
  Ev.ExplicitShared = true;
  if (!Store) // completes on the barrier its atom was given (`.with(*bar)`)
    Ev.Mbarrier = AliasSet::unknown();
  return Ev;
}

/// A warpgroup MMA of a pattern (CuteCopies.h) reading shared operands.
Event cuteMmaRead(const AliasSet &Mem, const CallExpr *Call,
                  const FunctionDecl *Fn) {
  ptx::Effect Eff;
  Eff.Kind = EffectKind::AsyncRead;
  Eff.Op = AsyncOp::Wgmma;
  Event Ev = eventOf(Eff, {Call, Fn}, Call->getBeginLoc(), asyncOpName(Eff.Op));
  Ev.Mem = Mem;
  Ev.ExplicitShared = true;
  return Ev;
}

/// The expression an asm operand reference (%N) stands for.
const Expr *asmOperandExpr(const GCCAsmStmt *Asm, int N) {
  if (N < 0)
    return nullptr;
  unsigned U = N;
  if (U < Asm->getNumOutputs())
    return Asm->getOutputExpr(U);
  U -= Asm->getNumOutputs();
  return U < Asm->getNumInputs() ? Asm->getInputExpr(U) : nullptr;
}
} // namespace

std::optional<CallSite>
EventExtractor::extract(const Stmt *S, const FunctionDecl *Fn, Sink All,
                        const Bindings *B) {
  // An access in an arm that runs only off shared memory is none of it.
  auto Kept = [&](const Event &E, unsigned Ordinal) {
    KindsSeen |= kindBit(E.Kind);
    if (!isGenericAccess(E) || !Guards.excludesShared(S, Fn, E.Mem))
      All(E, Ordinal);
  };
  Sink Out = Kept;
  if (const auto *Asm = dyn_cast<GCCAsmStmt>(S)) {
    asmStmt(Asm, Fn, Out);
    return std::nullopt;
  }
  if (const auto *Call = dyn_cast<CallExpr>(S)) {
    if (callWritesTensorMap(Call)) {
      const Expr *Dest = Call->getNumArgs() ? Call->getArg(0) : nullptr;
      Out(tensorMapStore(Call, Fn,
                         isa<CXXOperatorCallExpr>(Call)
                             ? Memory.objectOf(Dest, Fn)
                             : Memory.valueOf(Dest, Fn)),
          2);
    }
    const FunctionDecl *Callee = Call->getDirectCallee();
    if (!Callee) {
      // `f(a, b)` through a function parameter bound at the call of Fn.
      if (const FunctionDecl *Bound = B ? B->callee(Call) : nullptr) {
        const FunctionDecl *Def = nullptr;
        if (Bound->hasBody(Def) && Def && Def->getBody())
          return CallSite{Call, Bound, Def};
        return std::nullopt;
      }
      return dependentCall(Call, Fn, Out);
    }
    // `dst = src` of a class the compiler copies bitwise (the `uint128_t`
    // vectors of CuTe's recast copies): a load and a store, as for a
    // built-in type.
    if (const auto *MD = dyn_cast<CXXMethodDecl>(Callee);
        MD && isa<CXXOperatorCallExpr>(Call) && Call->getNumArgs() == 2 &&
        (MD->isCopyAssignmentOperator() || MD->isMoveAssignmentOperator()) &&
        MD->isTrivial()) {
      AliasSet Src = Memory.objectOf(Call->getArg(1), Fn);
      if (!Src.empty())
        Out(cxxAccess(EffectKind::GenericRead, Src, Call, Fn), 0);
      AliasSet Dst = Memory.objectOf(Call->getArg(0), Fn);
      if (!Dst.empty())
        Out(cxxAccess(EffectKind::GenericWrite, Dst, Call, Fn), 1);
      return std::nullopt;
    }
    return callOf(Call, Callee, Fn, Out);
  }
  if (const auto *Ctor = dyn_cast<CXXConstructExpr>(S)) {
    const CXXConstructorDecl *CD = Ctor->getConstructor();
    // `T v = src` of a class the compiler copies bitwise: a load, whether
    // or not Sema gave the trivial constructor a body (it gives none to a
    // class with a variant member, such as CUTLASS's `uint128_t`).
    if (CD && CD->isCopyOrMoveConstructor() && CD->isTrivial() &&
        Ctor->getNumArgs() >= 1) {
      AliasSet Src = Memory.objectOf(Ctor->getArg(0), Fn);
      if (!Src.empty())
        Out(cxxAccess(EffectKind::GenericRead, Src, Ctor, Fn), 0);
      return std::nullopt;
    }
    const FunctionDecl *Def = nullptr;
    if (CD && CD->hasBody(Def) && Def)
      return CallSite{Ctor, CD, Def};
    return std::nullopt;
  }
  // A template pattern converts no dependent-typed lvalue to an rvalue.
  if (const auto *E = dyn_cast<Expr>(S);
      E && Fn->isDependentContext() && Reads->isRead(E, Fn)) {
    AliasSet M = Memory.objectOf(E, Fn);
    if (!M.empty())
      Out(cxxAccess(EffectKind::GenericRead, M, E, Fn), 0);
    return std::nullopt;
  }
  if (const auto *BO = dyn_cast<BinaryOperator>(S)) {
    if (!BO->isAssignmentOp())
      return std::nullopt;
    if (writesTensorMap(BO->getLHS()))
      Out(tensorMapStore(BO, Fn, Memory.objectOf(BO->getLHS(), Fn)), 2);
    AliasSet M = Memory.objectOf(BO->getLHS(), Fn);
    if (M.empty())
      return std::nullopt;
    if (BO->isCompoundAssignmentOp())
      Out(cxxAccess(EffectKind::GenericRead, M, BO, Fn), 0);
    Out(cxxAccess(EffectKind::GenericWrite, M, BO, Fn), 0);
    return std::nullopt;
  }
  if (const auto *UO = dyn_cast<UnaryOperator>(S)) {
    if (!UO->isIncrementDecrementOp())
      return std::nullopt;
    AliasSet M = Memory.objectOf(UO->getSubExpr(), Fn);
    if (!M.empty())
      Out(cxxAccess(EffectKind::GenericWrite, M, UO, Fn), 0);
    return std::nullopt;
  }
  if (const auto *IC = dyn_cast<ImplicitCastExpr>(S)) {
    if (IC->getCastKind() != CK_LValueToRValue)
      return std::nullopt;
    AliasSet M = Memory.objectOf(IC->getSubExpr(), Fn);
    if (!M.empty())
      Out(cxxAccess(EffectKind::GenericRead, M, IC, Fn), 0);
  }
  return std::nullopt;
}

std::optional<CallSite> EventExtractor::callOf(const CallExpr *Call,
                                               const FunctionDecl *Callee,
                                               const FunctionDecl *Fn,
                                               Sink Out) {
  // Also a member of a class template specialization that only a pattern
  // calls (`Stsm<bf16x2>::copy(...)`, `Mma<128, 96>::foreach_C(frag, f)`),
  // read in the class template's body.
  if (const FunctionDecl *Def = bodyToRead(Callee))
    return CallSite{Call, Callee, Def};
  bodilessCall(Call, Callee, Fn, Out);
  return std::nullopt;
}

EventExtractor::EventExtractor(MemoryModel &Memory, unsigned &AsmStatements,
                               unsigned &AsmInstructions)
    : Memory(Memory), AsmStatements(AsmStatements),
      AsmInstructions(AsmInstructions) {
  // The memory model asks here how a CuTe tensor reads (CuteCopies.h).
  Memory.setTensorPointee([&Memory](const Expr *E, const FunctionDecl *Fn) {
    return cuteTensorPointee(E, Fn, Memory);
  });
}

std::optional<CallSite> EventExtractor::dependentCall(const CallExpr *Call,
                                                      const FunctionDecl *Fn,
                                                      Sink Out) {
  DependentCallee D = dependentCallee(Call);
  if (!D.Dependent)
    return std::nullopt;
  // `tile[i] += v`, `++tile[i]` on dependent operands: lookup saw operator
  // overloads, but on the built-in types it is an access all the same.
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call);
      Op && Op->getNumArgs() &&
      (Op->isAssignmentOp() || Op->getOperator() == OO_PlusPlus ||
       Op->getOperator() == OO_MinusMinus)) {
    AliasSet M = Memory.objectOf(Op->getArg(0), Fn);
    if (!M.empty()) {
      if (Op->getOperator() != OO_Equal)
        Out(cxxAccess(EffectKind::GenericRead, M, Op, Fn), 0);
      Out(cxxAccess(EffectKind::GenericWrite, M, Op, Fn), 1);
      return std::nullopt;
    }
  }
  if (std::optional<CuteCopy> C = cuteCopyOf(Call, Fn, Memory)) {
    Out(cuteCopyEvent(*C, Call, Fn), 0);
    return std::nullopt;
  }
  // CuTe's gemm of a warpgroup MMA: the async proxy reads its shared
  // operands, and it fences nothing.
  if (std::optional<CuteMma> M = Mmas.mmaOf(Call, Fn)) {
    if (!M->Mem.empty())
      Out(cuteMmaRead(M->Mem, Call, Fn), 0);
    return std::nullopt;
  }
  if (D.Viable.size() == 1) {
    // A wrapper of one (`gemm(tiled_mma, tOrP, tOrV, acc)`): its operands
    // are read where the caller's tensors are known.
    unsigned Ordinal = 0;
    for (unsigned I : Mmas.operandParams(D.Viable.front()))
      if (I < Call->getNumArgs())
        if (AliasSet M = Mmas.operandMemory(Call->getArg(I), Fn); !M.empty())
          Out(cuteMmaRead(M, Call, Fn), Ordinal++);
    return callOf(Call, D.Viable.front(), Fn, Out);
  }
  // `Traits::foreach(frag, [&](auto &x, int i) {...})` with no one callee:
  // the lambda the pattern hands over is what the call runs, whatever the
  // candidates do without it.
  for (const Expr *Arg : Call->arguments()) {
    const FunctionDecl *Def = nullptr;
    if (const CXXMethodDecl *Op = lambdaCallOperator(Arg);
        Op && Op->hasBody(Def) && Def)
      return CallSite{Call, Op, Def};
  }
  // Overloads of one bodiless function share its vocabulary entry.
  auto bodiless = [](const FunctionDecl *F) { return !F->hasBody(); };
  if (!D.Viable.empty() && llvm::all_of(D.Viable, bodiless) &&
      llvm::all_of(D.Viable, [&](const FunctionDecl *F) {
        return F->getQualifiedNameAsString() ==
               D.Viable.front()->getQualifiedNameAsString();
      }))
    return callOf(Call, D.Viable.front(), Fn, Out);
  if (!D.Viable.empty() && llvm::all_of(D.Viable, [&](const FunctionDecl *F) {
        return hasNoEffect(F);
      }))
    return std::nullopt;
  if (D.Viable.size() > 1 && sameEffects(D.Viable))
    return callOf(Call, D.Viable.front(), Fn, Out);
  // `out.store(p, c)` on an object of template-parameter type: the classes
  // of the translation unit that declare a `store` for these arguments, when
  // those that write, synchronise, fence or issue async operations all do
  // the same. Those that only read (a class this configuration compiles to
  // a trap, a placeholder) are not what a caller passes for the effect;
  // several that differ say nothing of which one the instantiation passes.
  if (D.Viable.empty()) {
    llvm::SmallVector<const FunctionDecl *, 4> Named =
        Members.candidates(Call, Fn->getASTContext(), MaxClassesByName);
    llvm::erase_if(Named, [&](const FunctionDecl *F) {
      return hasNoEffect(F, /*ReadsCount=*/false);
    });
    // A callee known by its name only is trusted where the addresses it is
    // given are known: one the model cannot place would make a guessed async
    // operation meet every access. (A pointer, or a value whose type waits
    // for the instantiation; braced coordinates are neither.)
    auto unplaced = [&](const Expr *Arg) {
      QualType T = Arg->getType();
      if (isa<InitListExpr>(Arg->IgnoreParenImpCasts()) ||
          (!T->isPointerType() && !T->isDependentType()))
        return false;
      AliasSet S = Memory.valueOf(Arg, Fn);
      return S.empty() || S.isUnknown();
    };
    // Nor is it trusted to fence: that would hide what it cannot show (the
    // callback classes whose `postreduce` fences, beside those that do
    // nothing).
    auto fences = [&](const FunctionDecl *F) {
      const FunctionDecl *Def = nullptr;
      return FencesIncoming && F->hasBody(Def) && Def && FencesIncoming(Def);
    };
    if (!Named.empty() && llvm::none_of(Call->arguments(), unplaced) &&
        sameEffects(Named) && !fences(Named.front())) {
      ResolvedByName.insert(Call);
      return callOf(Call, Named.front(), Fn, Out);
    }
  }
  // An operator on dependent operands may be the built-in one: not a call.
  if (isa<CXXOperatorCallExpr>(Call))
    return std::nullopt;
  if (Unresolved.insert(Call).second) {
    std::string Site = describeUnresolved(Call);
    // One line per place (a macro may expand to several calls there).
    if (!llvm::is_contained(UnresolvedSites, Site))
      UnresolvedSites.push_back(std::move(Site));
  }
  // A call whose value the pattern computes with (`a.size()` in a
  // condition, `op(x)` in an expression) is taken for a computation. So is a
  // callable passed in as a value (`op(x)` with `Op op`, a function pointer
  // template argument, `Op{}(x)`): neither fences nor issues async ops.
  const Expr *Callee = Call->getCallee()->IgnoreParenImpCasts();
  if (const auto *DRE = dyn_cast<DeclRefExpr>(Callee);
      (DRE && isa<VarDecl, NonTypeTemplateParmDecl>(DRE->getDecl())) ||
      isa<CXXUnresolvedConstructExpr, CXXTemporaryObjectExpr>(Callee) ||
      !Reads->isStatement(Call, Fn))
    return std::nullopt;
  // A call statement lookup leaves unknown (`Policy::store(...);`,
  // `epi.publish(t);`) may be the fence: no access is reported as unfenced
  // across it (a blind spot, counted above), and it stands for no async op.
  // Not in code that writes its fences itself (a collective whose members
  // fence before their TMA stores and releases): its fusion callbacks
  // (`cst_callbacks.previsit(...)`) are not where its fences are.
  if (Own.scopeFencesItself(Fn))
    return std::nullopt;
  // A member call on an element of an array (`s.bar_empty[stage].wait(t)`,
  // `bars[i]->arrive()`): per-stage objects are barriers and tiles, and no
  // library spells a proxy fence as a member of one, so it is not taken
  // for the fence (which would hide every hazard across the stage's wait).
  if (isCallOnArrayElement(Call))
    return std::nullopt;
  ptx::Effect MayFence;
  MayFence.Kind = EffectKind::ProxyFence;
  MayFence.Space = FenceSpace::All;
  Out(eventOf(MayFence, {Call, Fn}, Call->getBeginLoc(), "unresolved call"), 0);
  return std::nullopt;
}

bool EventExtractor::isCallOnArrayElement(const CallExpr *Call) {
  bool Arrow = false, ImplicitThis = false;
  const Expr *Obj = memberCallObject(Call, Arrow, ImplicitThis);
  return Obj && isa<ArraySubscriptExpr>(Obj->IgnoreParenImpCasts());
}

bool EventExtractor::hasNoEffect(const FunctionDecl *F, bool ReadsCount) {
  const FunctionDecl *Def = nullptr;
  if (F->hasBody(Def) && Def && Def->getBody())
    return NoEffect && NoEffect(Def, ReadsCount);
  return bodilessEffects(F->getQualifiedNameAsString(),
                         F->getDeclName().isIdentifier() ? F->getName() : "",
                         User)
      .empty();
}

bool EventExtractor::sameEffects(ArrayRef<const FunctionDecl *> Candidates) {
  if (!EffectShape)
    return false;
  std::optional<std::string> First;
  for (const FunctionDecl *F : Candidates) {
    const FunctionDecl *Def = nullptr;
    if (!F->hasBody(Def) || !Def || !Def->getBody())
      return false;
    std::string Shape = EffectShape(Def);
    if (!First)
      First = std::move(Shape);
    else if (Shape != *First)
      return false;
  }
  return true;
}

std::string EventExtractor::describeUnresolved(const CallExpr *Call) {
  const SourceManager &SM = Memory.context().getSourceManager();
  PresumedLoc P = SM.getPresumedLoc(SM.getExpansionLoc(Call->getBeginLoc()));
  std::string Where =
      P.isInvalid() ? std::string("<unknown>")
                    : std::string(P.getFilename()) + ":" +
                          std::to_string(P.getLine()) + ":" +
                          std::to_string(P.getColumn());
  std::string Name;
  const Expr *Callee = Call->getCallee()->IgnoreParenImpCasts();
  if (const auto *O = dyn_cast<OverloadExpr>(Callee))
    Name = O->getName().getAsString();
  else if (const auto *M = dyn_cast<CXXDependentScopeMemberExpr>(Callee))
    Name = M->getMember().getAsString();
  else if (const auto *D = dyn_cast<DependentScopeDeclRefExpr>(Callee))
    Name = D->getDeclName().getAsString();
  else if (const auto *R = dyn_cast<DeclRefExpr>(Callee))
    Name = R->getDecl()->getNameAsString();
  return Where + ": " + (Name.empty() ? "a call" : "'" + Name + "'");
}

void EventExtractor::asmStmt(const GCCAsmStmt *Asm, const FunctionDecl *Fn,
                             Sink Out) {
  std::vector<std::string> Names;
  for (unsigned I = 0; I < Asm->getNumOutputs(); ++I)
    Names.push_back(Asm->getOutputName(I).str());
  for (unsigned I = 0; I < Asm->getNumInputs(); ++I)
    Names.push_back(Asm->getInputName(I).str());
  std::string Text = Asm->getAsmString();
  ptx::Program P = ptx::parse(Text, Names);
  if (Counted.insert(Asm).second) {
    ++AsmStatements;
    AsmInstructions += P.Instructions.size();
  }

  // PTX registers that hold an asm operand's address inside the text
  // (`cvta.to.shared.u32 r, %0;` then `st.shared [r]`).
  std::map<std::string, int> RegAlias;
  // The asm operand at the base of instruction operand K, looking through
  // such registers (`[r]`, `[r+16]`).
  auto operandOf = [&](const ptx::Instruction &I, int K) {
    if (K < 0 || size_t(K) >= I.Operands.size())
      return -1;
    const ptx::Operand &Op = I.Operands[K];
    if (Op.AsmOperand >= 0)
      return Op.AsmOperand;
    std::string Base = Op.Text;
    Base.erase(std::remove_if(Base.begin(), Base.end(),
                              [](char C) { return C == '[' || C == ']'; }),
               Base.end());
    Base = Base.substr(0, Base.find_first_of("+ "));
    auto It = RegAlias.find(Base);
    return It == RegAlias.end() ? -1 : It->second;
  };
  unsigned Ordinal = 0;
  for (const ptx::Instruction &I : P.Instructions) {
    if (!I.Parts.empty() && I.Operands.size() >= 2 &&
        (I.Parts[0] == "mov" || I.Parts[0] == "cvta" || I.Parts[0] == "add" ||
         I.Parts[0] == "cvt" || I.Parts[0] == "mapa" || I.Parts[0] == "or")) {
      int Src = -1;
      for (size_t K = 1; K < I.Operands.size() && Src < 0; ++K) {
        Src = I.Operands[K].AsmOperand;
        if (Src < 0) {
          auto It = RegAlias.find(I.Operands[K].Text);
          if (It != RegAlias.end())
            Src = It->second;
        }
      }
      if (Src >= 0)
        RegAlias[I.Operands[0].Text] = Src;
    }
    for (const ptx::Effect &Eff : ptx::classify(I)) {
      std::string What = opcodeLabel(I);
      if (Eff.Op != AsyncOp::None)
        What = (I.hasPart("multicast::cluster") ? "multicast " : "") +
               std::string(asyncOpName(Eff.Op));
      Event Ev = eventOf(Eff, {Asm, Fn}, Asm->getBeginLoc(), std::move(What));
      if (Eff.MemOperand >= 0 && size_t(Eff.MemOperand) < I.Operands.size()) {
        if (const Expr *E = asmOperandExpr(Asm, operandOf(I, Eff.MemOperand)))
          Ev.Mem = Memory.valueOf(E, Fn);
        if (Ev.Mem.empty()) {
          // A generic-address st/ld may not touch shared memory at all; an
          // explicitly shared or async operand does, somewhere (not where a
          // kernel parameter points: a `.shared` address made from one is
          // not this CTA's shared memory).
          if (Eff.GenericAddress || Ev.Mem.onlyKernelArgument())
            continue;
          Ev.Mem = AliasSet::unknown();
        }
        Ev.ExplicitShared = !Eff.GenericAddress;
      }
      if (Eff.Kind == EffectKind::Barrier && Eff.Scope != BarrierScope::Warp) {
        Ev.Id = asmBarrierId(I, Eff, Asm, Fn);
        if (Eff.Scope == BarrierScope::Named && Eff.BarrierIdOperand >= 0)
          Ev.ThreadCount =
              asmConstant(I, Eff.BarrierIdOperand + 1, Asm, Fn).value_or(0);
      }
      if (Eff.MbarrierOperand >= 0) {
        if (const Expr *E =
                asmOperandExpr(Asm, operandOf(I, Eff.MbarrierOperand))) {
          Ev.Mbarrier = Memory.valueOf(E, Fn);
          Ev.MbarrierPath = barrierPathOf(E, Fn, Memory.context());
        }
        if (Ev.Mbarrier.empty()) // e.g. a `mapa` result: some CTA's barrier
          Ev.Mbarrier = AliasSet::unknown();
      }
      Out(Ev, Ordinal++);
    }
  }
}

void EventExtractor::bodilessCall(const CallExpr *Call,
                                  const FunctionDecl *Callee,
                                  const FunctionDecl *Fn, Sink Out) {
  llvm::ArrayRef<ptx::Effect> Effects = bodilessEffects(
      Callee->getQualifiedNameAsString(),
      Callee->getDeclName().isIdentifier() ? Callee->getName() : "", User);
  auto argValue = [&](int K) {
    AliasSet S;
    if (K >= 0 && unsigned(K) < Call->getNumArgs())
      S = Memory.valueOf(Call->getArg(K), Fn);
    return S;
  };
  unsigned Ordinal = 0;
  for (const ptx::Effect &Eff : Effects) {
    Event Ev = eventOf(Eff, {Call, Fn}, Call->getBeginLoc(),
                       Callee->getNameAsString());
    if (Eff.MemOperand >= 0) {
      Ev.Mem = argValue(Eff.MemOperand);
      if (Ev.Mem.empty()) {
        if (Eff.GenericAddress || Ev.Mem.onlyKernelArgument())
          continue;
        Ev.Mem = AliasSet::unknown();
      }
      Ev.ExplicitShared = !Eff.GenericAddress;
    }
    if (Eff.Kind == EffectKind::Barrier && Eff.Scope != BarrierScope::Warp) {
      Ev.Id.Kind = BarrierId::Const; // __syncthreads: barrier 0
      if (Eff.BarrierIdOperand >= 0) {
        unsigned K = Eff.BarrierIdOperand;
        Ev.Id = K < Call->getNumArgs() ? barrierIdOf(Call->getArg(K), Fn)
                                       : BarrierId();
      }
    }
    if (Eff.MbarrierOperand >= 0) {
      Ev.Mbarrier = argValue(Eff.MbarrierOperand);
      if (unsigned(Eff.MbarrierOperand) < Call->getNumArgs())
        Ev.MbarrierPath = barrierPathOf(Call->getArg(Eff.MbarrierOperand), Fn,
                                        Memory.context());
      if (Ev.Mbarrier.empty())
        Ev.Mbarrier = AliasSet::unknown();
    }
    Out(Ev, Ordinal++);
  }
}

AliasSet EventExtractor::substitute(const AliasSet &S, const CallSite &C,
                                    const FunctionDecl *Fn) {
  if (const auto *Call = dyn_cast<CallExpr>(C.Site))
    return Memory.substitute(S, Call, C.Callee, Fn);
  return Memory.substitute(S, cast<CXXConstructExpr>(C.Site), Fn);
}

/// Whether \p E names the variable a `for` statement declares.
static bool isLoopVariable(const Expr *E, ASTContext &Ctx) {
  const auto *DRE = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
  const auto *V = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
  if (!V || !V->hasLocalStorage() || isa<ParmVarDecl>(V))
    return false;
  for (const DynTypedNode &P : Ctx.getParents(*V))
    if (const auto *DS = P.get<DeclStmt>())
      for (const DynTypedNode &Q : Ctx.getParents(*DS)) {
        const auto *For = Q.get<ForStmt>();
        if (For && For->getInit() == DS)
          return true;
      }
  return false;
}

/// \p Term (spelled \p TermE) plus the constant \p Base: a parameter (bound
/// at the call) or a field keeps its kind with the offset; a local or a
/// value computed at run time is the index into a row of barriers that
/// starts at \p Base. A template constant is no index: unknown.
static BarrierId rowOrOffset(BarrierId Term, const Expr *TermE, int64_t Base,
                             ASTContext &Ctx) {
  if (Term.Kind == BarrierId::Unknown && isTemplateConstant(TermE))
    return BarrierId();
  switch (Term.Kind) {
  case BarrierId::Const:
  case BarrierId::Param:
  case BarrierId::Field:
  case BarrierId::Indexed:
    Term.Offset += Base;
    return Term;
  case BarrierId::Var:
    Term.Kind = BarrierId::Indexed;
    Term.Offset += Base;
    return Term;
  default: {
    BarrierId Row;
    Row.Kind = BarrierId::Indexed;
    Row.Offset = Base;
    Row.Walks = isLoopVariable(TermE, Ctx);
    return Row;
  }
  }
}

BarrierId EventExtractor::barrierIdOf(const Expr *E, const FunctionDecl *Fn) {
  BarrierId Id;
  if (!E)
    return Id;
  // In a template a const local's value may be dependent: still one
  // variable, whatever its value.
  Expr::EvalResult R;
  if (!E->isValueDependent() && E->EvaluateAsInt(R, Memory.context())) {
    Id.Kind = BarrierId::Const;
    Id.Offset = R.Val.getInt().getExtValue();
    return Id;
  }
  E = E->IgnoreParenCasts();
  if (const auto *BO = dyn_cast<BinaryOperator>(E)) {
    if (BO->getOpcode() != BO_Add && BO->getOpcode() != BO_Sub)
      return Id;
    BarrierId L = barrierIdOf(BO->getLHS(), Fn);
    BarrierId Rhs = barrierIdOf(BO->getRHS(), Fn);
    bool Add = BO->getOpcode() == BO_Add;
    // `idx - 1` alone is no row: a row needs its base added.
    ASTContext &Ctx = Memory.context();
    if (Rhs.Kind == BarrierId::Const &&
        (Add || L.Kind != BarrierId::Unknown))
      return rowOrOffset(L, BO->getLHS(), Add ? Rhs.Offset : -Rhs.Offset, Ctx);
    if (Add && L.Kind == BarrierId::Const)
      return rowOrOffset(Rhs, BO->getRHS(), L.Offset, Ctx);
    return Id;
  }
  if (const auto *ME = dyn_cast<MemberExpr>(E)) {
    // `id_` of a barrier object: known where the object is constructed.
    if (const auto *FD = dyn_cast<FieldDecl>(ME->getMemberDecl());
        FD && isa<CXXThisExpr>(ME->getBase()->IgnoreParenImpCasts())) {
      Id.Kind = BarrierId::Field;
      Id.Member = FD;
    }
    return Id;
  }
  const auto *DRE = dyn_cast<DeclRefExpr>(E);
  if (!DRE)
    return Id;
  if (const auto *P = dyn_cast<ParmVarDecl>(DRE->getDecl())) {
    Id.Kind = BarrierId::Param;
    Id.Variable = P;
  } else if (const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
             V && V->hasLocalStorage() && V->getType().isConstQualified()) {
    // A const local holds one value in the whole function.
    Id.Kind = BarrierId::Var;
    Id.Variable = V;
  }
  return Id;
}

/// Operand \p K of \p I as a constant: an immediate, or an asm operand whose
/// expression evaluates to one.
std::optional<unsigned> EventExtractor::asmConstant(const ptx::Instruction &I,
                                                    int K,
                                                    const GCCAsmStmt *Asm,
                                                    const FunctionDecl *Fn) {
  if (K < 0 || size_t(K) >= I.Operands.size())
    return std::nullopt;
  const ptx::Operand &Op = I.Operands[K];
  if (Op.AsmOperand >= 0) {
    const Expr *E = asmOperandExpr(Asm, Op.AsmOperand);
    Expr::EvalResult R;
    if (E && !E->isValueDependent() &&
        E->EvaluateAsInt(R, Memory.context()) && R.Val.getInt().isStrictlyPositive())
      return unsigned(R.Val.getInt().getLimitedValue(~0u));
    return std::nullopt;
  }
  unsigned V;
  if (!llvm::StringRef(Op.Text).getAsInteger(0, V))
    return V;
  return std::nullopt;
}

/// The barrier id operand of a bar/barrier instruction: an immediate, or an
/// asm operand whose expression is evaluated.
BarrierId EventExtractor::asmBarrierId(const ptx::Instruction &I,
                                       const ptx::Effect &Eff,
                                       const GCCAsmStmt *Asm,
                                       const FunctionDecl *Fn) {
  BarrierId Id;
  if (Eff.BarrierIdOperand < 0) {
    Id.Kind = BarrierId::Const;
    return Id;
  }
  const ptx::Operand &Op = I.Operands[Eff.BarrierIdOperand];
  if (Op.AsmOperand >= 0)
    return barrierIdOf(asmOperandExpr(Asm, Op.AsmOperand), Fn);
  long long V;
  if (!llvm::StringRef(Op.Text).getAsInteger(0, V)) {
    Id.Kind = BarrierId::Const;
    Id.Offset = V;
  }
  return Id; // a PTX register: unknown
}

StmtRef warningAt(const SourceManager &SM, const Event &E) {
  StmtRef Shown = shownAt(E);
  if (!E.InLambda || !Shown)
    return Shown;
  SourceLocation Inside = SM.getExpansionLoc(E.InLambda.S->getBeginLoc()),
                 Outside = SM.getExpansionLoc(Shown.S->getBeginLoc());
  return SM.getFileID(Inside) == SM.getFileID(Outside) ? E.InLambda : Shown;
}

Event EventExtractor::lift(const Event &Inner, const CallSite &C,
                           const FunctionDecl *Fn) {
  Event E = Inner;
  // A callee's parameter id is what the caller passes; its locals differ
  // from call to call.
  if (Inner.Id.Kind == BarrierId::Var) {
    E.Id = BarrierId();
  } else if (Inner.Id.Kind == BarrierId::Indexed) {
    E.Id.Variable = nullptr; // the row stays; the index is the callee's
  } else if (Inner.Id.Kind == BarrierId::Param) {
    unsigned K = cast<ParmVarDecl>(Inner.Id.Variable)->getFunctionScopeIndex();
    const Expr *Arg = nullptr;
    if (const auto *Call = dyn_cast<CallExpr>(C.Site)) {
      // An overloaded operator that is a member passes the object first.
      if (isa<CXXOperatorCallExpr>(Call) && isa<CXXMethodDecl>(C.Callee))
        ++K;
      if (K < Call->getNumArgs())
        Arg = Call->getArg(K);
    } else if (const auto *Ctor = dyn_cast<CXXConstructExpr>(C.Site)) {
      if (K < Ctor->getNumArgs())
        Arg = Ctor->getArg(K);
    }
    E.Id = barrierIdOf(Arg, Fn);
    if (E.Id.Kind != BarrierId::Unknown)
      E.Id.Offset += Inner.Id.Offset;
  } else if (Inner.Id.Kind == BarrierId::Field) {
    E.Id = memberBarrierId(Inner.Id, C, Fn);
  }
  if (Inner.MbarrierPath)
    E.MbarrierPath = liftBarrierPath(*Inner.MbarrierPath, C.Site, C.Callee, Fn,
                                     Memory.context());
  E.Mem = substitute(Inner.Mem, C, Fn);
  // `st.shared [addr]` with the address a parameter: still shared memory
  // when the caller's argument resolves to nothing known.
  if (E.Mem.empty() && Inner.ExplicitShared && !Inner.Mem.empty() &&
      !E.Mem.onlyKernelArgument())
    E.Mem = AliasSet::unknown();
  E.Mbarrier = substitute(Inner.Mbarrier, C, Fn);
  // An operation with an mbarrier keeps one, whatever the caller passes.
  if (E.Mbarrier.empty() && !Inner.Mbarrier.empty())
    E.Mbarrier = AliasSet::unknown();
  if (isGenericAccess(E) && Guards.excludesShared(C.Site, Fn, E.Mem))
    E.Mem = AliasSet();
  // Out of a lambda's body: the statement there stays what the user reads.
  if (!E.InLambda && isLambdaBody(C.Callee) && Inner.At) {
    E.InLambda = Inner.At;
    E.LambdaCall = {C.Site, Fn};
  }
  if (Inner.At)
    E.Inside = frame(Inner.At, Inner.Via, Inner.Inside);
  E.At = {C.Site, Fn};
  // A compiler-generated member (a struct's copy assignment) is the
  // statement itself to the user: report it at the call, not inside.
  if (C.Callee->isImplicit() || C.Callee->isDefaulted())
    E.Loc = C.Site->getBeginLoc();
  else if (!E.Via)
    E.Via = C.Callee;
  return E;
}

const CallFrame *EventExtractor::frame(StmtRef At,
                                       const FunctionDecl *Via,
                                       const CallFrame *Inner) {
  const CallFrame *&F = Frames[std::make_tuple(At.S, Via, Inner)];
  // Allocated with the AST: findings outlive the analyses that lift them.
  if (!F)
    F = new (Memory.context()) CallFrame{At, Via, Inner};
  return F;
}

BarrierId EventExtractor::memberBarrierId(const BarrierId &Inner,
                                          const CallSite &C,
                                          const FunctionDecl *Fn) {
  const auto *MC = dyn_cast<CXXMemberCallExpr>(C.Site);
  if (!MC || !MC->getImplicitObjectArgument())
    return BarrierId();
  const Expr *Obj = MC->getImplicitObjectArgument()->IgnoreParenImpCasts();
  // Another member of the same object: still its field.
  if (isa<CXXThisExpr>(Obj))
    return Inner;
  // The construction of the object: a local `NamedBarrier b(n, id)` or a
  // temporary `NamedBarrier(n, id).sync()`.
  const Expr *Init = nullptr;
  if (const auto *DRE = dyn_cast<DeclRefExpr>(Obj)) {
    const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
    if (!V || !V->hasLocalStorage() || isa<ParmVarDecl>(V) || !V->getInit())
      return BarrierId();
    Init = V->getInit();
  } else {
    Init = Obj;
  }
  while (true) {
    Init = Init->IgnoreParenImpCasts();
    if (const auto *EWC = dyn_cast<ExprWithCleanups>(Init))
      Init = EWC->getSubExpr();
    else if (const auto *MT = dyn_cast<MaterializeTemporaryExpr>(Init))
      Init = MT->getSubExpr();
    else if (const auto *BT = dyn_cast<CXXBindTemporaryExpr>(Init))
      Init = BT->getSubExpr();
    else
      break;
  }
  const auto *CE = dyn_cast<CXXConstructExpr>(Init);
  if (!CE || !CE->getConstructor())
    return BarrierId();
  const FunctionDecl *Def = nullptr;
  if (!CE->getConstructor()->hasBody(Def) || !Def)
    return BarrierId();
  const auto *Ctor = cast<CXXConstructorDecl>(Def);
  for (const CXXCtorInitializer *I : Ctor->inits()) {
    if (I->getMember() != Inner.Member)
      continue;
    BarrierId Stored = barrierIdOf(I->getInit(), Ctor);
    if (Stored.Kind == BarrierId::Const) {
      Stored.Offset += Inner.Offset;
      return Stored;
    }
    if (Stored.Kind != BarrierId::Param)
      return BarrierId();
    unsigned K = cast<ParmVarDecl>(Stored.Variable)->getFunctionScopeIndex();
    if (K >= CE->getNumArgs())
      return BarrierId();
    BarrierId Out = barrierIdOf(CE->getArg(K), Fn);
    if (Out.Kind != BarrierId::Unknown)
      Out.Offset += Stored.Offset + Inner.Offset;
    return Out;
  }
  return BarrierId();
}

} // namespace proxyfence
