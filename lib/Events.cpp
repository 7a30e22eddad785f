//===- Events.cpp - statements of device code as events -------------------===//
#include "proxyfence/Events.h"
#include "proxyfence/Vocabulary.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
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
  if (Kind == O.Kind && Variable == O.Variable && Member == O.Member)
    return Offset == O.Offset ? Match::Same : Match::Different;
  return Match::Unknown;
}

std::string BarrierId::describe() const {
  if (Kind == Unknown)
    return "an id that is not a constant";
  if (Kind == Const)
    return "id " + std::to_string(Offset);
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
EventExtractor::extract(const Stmt *S, const FunctionDecl *Fn, Sink Out) {
  if (const auto *Asm = dyn_cast<GCCAsmStmt>(S)) {
    asmStmt(Asm, Fn, Out);
    return std::nullopt;
  }
  if (const auto *Call = dyn_cast<CallExpr>(S)) {
    const FunctionDecl *Callee = Call->getDirectCallee();
    if (!Callee)
      return std::nullopt;
    const FunctionDecl *Def = nullptr;
    if (Callee->hasBody(Def) && Def && Def->getBody())
      return CallSite{Call, Callee, Def};
    bodilessCall(Call, Fn, Out);
    return std::nullopt;
  }
  if (const auto *Ctor = dyn_cast<CXXConstructExpr>(S)) {
    const CXXConstructorDecl *CD = Ctor->getConstructor();
    const FunctionDecl *Def = nullptr;
    if (CD && CD->hasBody(Def) && Def)
      return CallSite{Ctor, CD, Def};
    return std::nullopt;
  }
  if (const auto *BO = dyn_cast<BinaryOperator>(S)) {
    if (!BO->isAssignmentOp())
      return std::nullopt;
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
          // explicitly shared or async operand does, somewhere.
          if (Eff.GenericAddress)
            continue;
          Ev.Mem = AliasSet::unknown();
        }
      }
      if (Eff.Kind == EffectKind::Barrier && Eff.Scope != BarrierScope::Warp)
        Ev.Id = asmBarrierId(I, Eff, Asm, Fn);
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

void EventExtractor::bodilessCall(const CallExpr *Call, const FunctionDecl *Fn,
                                  Sink Out) {
  const FunctionDecl *Callee = Call->getDirectCallee();
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
        if (Eff.GenericAddress)
          continue;
        Ev.Mem = AliasSet::unknown();
      }
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

BarrierId EventExtractor::barrierIdOf(const Expr *E, const FunctionDecl *Fn) {
  BarrierId Id;
  if (!E || E->isValueDependent())
    return Id;
  Expr::EvalResult R;
  if (E->EvaluateAsInt(R, Memory.context())) {
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
    if (L.Kind != BarrierId::Unknown && Rhs.Kind == BarrierId::Const) {
      L.Offset += BO->getOpcode() == BO_Add ? Rhs.Offset : -Rhs.Offset;
      return L;
    }
    if (BO->getOpcode() == BO_Add && L.Kind == BarrierId::Const &&
        Rhs.Kind != BarrierId::Unknown) {
      Rhs.Offset += L.Offset;
      return Rhs;
    }
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

Event EventExtractor::lift(const Event &Inner, const CallSite &C,
                           const FunctionDecl *Fn) {
  Event E = Inner;
  // A callee's parameter id is what the caller passes; its locals differ
  // from call to call.
  if (Inner.Id.Kind == BarrierId::Var) {
    E.Id = BarrierId();
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
  E.Mbarrier = substitute(Inner.Mbarrier, C, Fn);
  // An operation with an mbarrier keeps one, whatever the caller passes.
  if (E.Mbarrier.empty() && !Inner.Mbarrier.empty())
    E.Mbarrier = AliasSet::unknown();
  E.At = {C.Site, Fn};
  // A compiler-generated member (a struct's copy assignment) is the
  // statement itself to the user: report it at the call, not inside.
  if (C.Callee->isImplicit() || C.Callee->isDefaulted())
    E.Loc = C.Site->getBeginLoc();
  else if (!E.Via)
    E.Via = C.Callee;
  return E;
}

} // namespace proxyfence
