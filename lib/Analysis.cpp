//===- Analysis.cpp - proxy dataflow over clang's CFG ----------------------===//
#include "proxyfence/Analysis.h"
#include "proxyfence/Vocabulary.h"
#include "clang/AST/Attr.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Analysis/CFG.h"
#include "llvm/ADT/STLExtras.h"
#include <algorithm>
#include <map>
#include <set>

using namespace clang;

namespace proxyfence {

const char *asyncOpName(AsyncOp Op) {
  switch (Op) {
  case AsyncOp::BulkStore:
    return "bulk async store";
  case AsyncOp::TensorStore:
    return "TMA store";
  case AsyncOp::ReduceStore:
    return "bulk async reduction";
  case AsyncOp::BulkLoad:
    return "bulk async load";
  case AsyncOp::TensorLoad:
    return "TMA load";
  case AsyncOp::Wgmma:
    return "wgmma";
  case AsyncOp::Tcgen05Mma:
    return "tcgen05.mma";
  case AsyncOp::Tcgen05Cp:
    return "tcgen05.cp";
  case AsyncOp::TryCancel:
    return "clusterlaunchcontrol.try_cancel";
  case AsyncOp::None:
    break;
  }
  return "async-proxy operation";
}

namespace {
/// Index of the pending entry standing for "whatever the caller left
/// unfenced" while a function is summarised.
constexpr unsigned Incoming = ~0u;

struct Pending {
  unsigned Access;
  StmtRef Handoff;
  bool operator<(const Pending &O) const {
    return std::tie(Access, Handoff.S) < std::tie(O.Access, O.Handoff.S);
  }
  bool operator==(const Pending &O) const {
    return Access == O.Access && Handoff.S == O.Handoff.S;
  }
};
using State = std::vector<Pending>; // sorted, unique

void normalize(State &S) {
  llvm::sort(S);
  S.erase(std::unique(S.begin(), S.end()), S.end());
}

/// Merges \p From into \p Into; true when \p Into grew.
bool join(State &Into, const State &From) {
  size_t Before = Into.size();
  State Out;
  std::set_union(Into.begin(), Into.end(), From.begin(), From.end(),
                 std::back_inserter(Out));
  Into.swap(Out);
  return Into.size() != Before;
}

void setHandoff(State &S, StmtRef At) {
  for (Pending &P : S)
    if (!P.Handoff)
      P.Handoff = At;
  normalize(S);
}

std::string opcodeLabel(const ptx::Instruction &I) {
  // "st.shared", "stmatrix", "atom.shared": enough to recognise the line.
  std::string L = I.Parts.empty() ? I.Opcode : I.Parts[0];
  for (size_t K = 1; K < I.Parts.size(); ++K)
    if (llvm::StringRef(I.Parts[K]).starts_with("shared")) {
      L += "." + I.Parts[K];
      break;
    }
  return L;
}
} // namespace

class Analyzer::FunctionRun {
public:
  FunctionRun(Analyzer &A, const FunctionDecl *Fn, Summary &Out)
      : A(A), Fn(Fn), Out(Out) {}

  void run() {
    CFG::BuildOptions BO;
    BO.setAllAlwaysAdd();
    BO.PruneTriviallyFalseEdges = true;
    BO.AddInitializers = true;
    std::unique_ptr<CFG> G =
        CFG::buildCFG(Fn, Fn->getBody(), &A.Ctx, BO);
    if (!G)
      return; // Out stays transparent: incoming survives, nothing exposed.
    ++A.Stats.Functions;

    // Reverse post-order, so that loops reach their fixed point quickly.
    std::vector<const CFGBlock *> Order;
    std::vector<unsigned> Rank(G->getNumBlockIDs(), ~0u);
    {
      std::vector<bool> Seen(G->getNumBlockIDs());
      std::vector<std::pair<const CFGBlock *, CFGBlock::const_succ_iterator>>
          Stack;
      Stack.push_back({&G->getEntry(), G->getEntry().succ_begin()});
      Seen[G->getEntry().getBlockID()] = true;
      while (!Stack.empty()) {
        auto &[B, It] = Stack.back();
        if (It == B->succ_end()) {
          Order.push_back(B);
          Stack.pop_back();
          continue;
        }
        const CFGBlock *Succ = *It;
        ++It;
        if (Succ && !Seen[Succ->getBlockID()]) {
          Seen[Succ->getBlockID()] = true;
          Stack.push_back({Succ, Succ->succ_begin()});
        }
      }
      std::reverse(Order.begin(), Order.end());
      for (unsigned I = 0; I < Order.size(); ++I)
        Rank[Order[I]->getBlockID()] = I;
    }

    std::vector<State> In(G->getNumBlockIDs());
    std::vector<bool> Reached(G->getNumBlockIDs());
    In[G->getEntry().getBlockID()] = {Pending{Incoming, {}}};
    Reached[G->getEntry().getBlockID()] = true;
    std::set<unsigned> Work; // ranks
    Work.insert(Rank[G->getEntry().getBlockID()]);
    while (!Work.empty()) {
      const CFGBlock *B = Order[*Work.begin()];
      Work.erase(Work.begin());
      State S = In[B->getBlockID()];
      for (const CFGElement &E : *B)
        if (auto CS = E.getAs<CFGStmt>())
          transfer(CS->getStmt(), S);
      for (const CFGBlock *Succ : B->succs()) {
        if (!Succ || Rank[Succ->getBlockID()] == ~0u)
          continue;
        unsigned Id = Succ->getBlockID();
        bool Changed = join(In[Id], S) || !Reached[Id];
        Reached[Id] = true;
        if (Changed)
          Work.insert(Rank[Id]);
      }
    }

    const State &Exit = In[G->getExit().getBlockID()];
    Out.IncomingSurvives = false;
    for (const Pending &P : Exit) {
      if (P.Access == Incoming) {
        Out.IncomingSurvives = true;
        Out.IncomingCrossesBarrier |= bool(P.Handoff);
      } else {
        Out.DownwardAccesses.push_back({Accesses[P.Access], P.Handoff});
      }
    }
  }

private:
  void transfer(const Stmt *S, State &St) {
    if (const auto *Asm = dyn_cast<GCCAsmStmt>(S))
      return asmStmt(Asm, St);
    if (const auto *Call = dyn_cast<CallExpr>(S))
      return call(Call, St);
    if (const auto *Ctor = dyn_cast<CXXConstructExpr>(S))
      return construct(Ctor, St);
    if (const auto *BO = dyn_cast<BinaryOperator>(S)) {
      if (!BO->isAssignmentOp())
        return;
      AliasSet M = A.Memory.objectOf(BO->getLHS(), Fn);
      if (M.empty())
        return;
      if (BO->isCompoundAssignmentOp())
        apply(cxxAccess(EffectKind::GenericRead, M, BO), St);
      return apply(cxxAccess(EffectKind::GenericWrite, M, BO), St);
    }
    if (const auto *UO = dyn_cast<UnaryOperator>(S)) {
      if (!UO->isIncrementDecrementOp())
        return;
      AliasSet M = A.Memory.objectOf(UO->getSubExpr(), Fn);
      if (!M.empty())
        apply(cxxAccess(EffectKind::GenericWrite, M, UO), St);
      return;
    }
    if (const auto *IC = dyn_cast<ImplicitCastExpr>(S)) {
      if (IC->getCastKind() != CK_LValueToRValue)
        return;
      AliasSet M = A.Memory.objectOf(IC->getSubExpr(), Fn);
      if (!M.empty())
        apply(cxxAccess(EffectKind::GenericRead, M, IC), St);
    }
  }

  Event cxxAccess(EffectKind K, AliasSet M, const Expr *E) {
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

  void asmStmt(const GCCAsmStmt *Asm, State &St) {
    std::vector<std::string> Names;
    for (unsigned I = 0; I < Asm->getNumOutputs(); ++I)
      Names.push_back(Asm->getOutputName(I).str());
    for (unsigned I = 0; I < Asm->getNumInputs(); ++I)
      Names.push_back(Asm->getInputName(I).str());
    std::string Text = Asm->getAsmString();
    ptx::Program P = ptx::parse(Text, Names);
    if (Counted.insert(Asm).second) {
      ++A.Stats.AsmStatements;
      A.Stats.AsmInstructions += P.Instructions.size();
    }

    // PTX registers that hold an asm operand's address inside the text
    // (`cvta.to.shared.u32 r, %0;` then `st.shared [r]`).
    std::map<std::string, int> RegAlias;
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
        Event Ev;
        Ev.Kind = Eff.Kind;
        Ev.Op = Eff.Op;
        Ev.Scope = Eff.Scope;
        Ev.Space = Eff.Space;
        Ev.ArriveOnly = Eff.ArriveOnly;
        Ev.Relaxed = Eff.Relaxed;
        Ev.CrossCta = Eff.CrossCta;
        Ev.At = {Asm, Fn};
        Ev.Loc = Asm->getBeginLoc();
        Ev.What = Eff.Op == AsyncOp::None ? opcodeLabel(I)
                                          : std::string(asyncOpName(Eff.Op));
        if (Eff.MemOperand >= 0 &&
            size_t(Eff.MemOperand) < I.Operands.size()) {
          const ptx::Operand &Op = I.Operands[Eff.MemOperand];
          int N = Op.AsmOperand;
          if (N < 0) {
            // `[r]` or `[r+16]`: look through the register name.
            std::string Base = Op.Text;
            Base.erase(std::remove_if(Base.begin(), Base.end(),
                                      [](char C) { return C == '[' || C == ']'; }),
                       Base.end());
            Base = Base.substr(0, Base.find_first_of("+ "));
            auto It = RegAlias.find(Base);
            if (It != RegAlias.end())
              N = It->second;
          }
          if (const Expr *E = asmOperandExpr(Asm, N))
            Ev.Mem = A.Memory.valueOf(E, Fn);
          if (Ev.Mem.empty()) {
            // A generic-address st/ld may not touch shared memory at all; an
            // explicitly shared or async operand does, somewhere.
            if (Eff.GenericAddress)
              continue;
            Ev.Mem = AliasSet::unknown();
          }
        }
        apply(Ev, St, Ordinal++);
      }
    }
  }

  void call(const CallExpr *Call, State &St) {
    const FunctionDecl *Callee = Call->getDirectCallee();
    if (!Callee)
      return;
    const FunctionDecl *Def = nullptr;
    if (Callee->hasBody(Def) && Def && Def->getBody())
      return applySummary(A.analyze(Def), Call, Callee, St,
                          [&](const AliasSet &M) {
                            return A.Memory.substitute(M, Call, Callee, Fn);
                          });
    llvm::ArrayRef<ptx::Effect> Effects =
        bodilessEffects(Callee->getQualifiedNameAsString());
    if (Effects.empty())
      Effects = bodilessEffects(Callee->getName());
    unsigned Ordinal = 0;
    for (const ptx::Effect &Eff : Effects) {
      Event Ev;
      Ev.Kind = Eff.Kind;
      Ev.Op = Eff.Op;
      Ev.Scope = Eff.Scope;
      Ev.Space = Eff.Space;
      Ev.ArriveOnly = Eff.ArriveOnly;
      Ev.Relaxed = Eff.Relaxed;
      Ev.CrossCta = Eff.CrossCta;
      Ev.At = {Call, Fn};
      Ev.Loc = Call->getBeginLoc();
      Ev.What = Callee->getNameAsString();
      if (Eff.MemOperand >= 0) {
        if (unsigned(Eff.MemOperand) < Call->getNumArgs())
          Ev.Mem = A.Memory.valueOf(Call->getArg(Eff.MemOperand), Fn);
        if (Ev.Mem.empty()) {
          if (Eff.GenericAddress)
            continue;
          Ev.Mem = AliasSet::unknown();
        }
      }
      apply(Ev, St, Ordinal++);
    }
  }

  void construct(const CXXConstructExpr *Ctor, State &St) {
    const CXXConstructorDecl *CD = Ctor->getConstructor();
    const FunctionDecl *Def = nullptr;
    if (!CD || !CD->hasBody(Def) || !Def)
      return;
    applySummary(A.analyze(Def), Ctor, CD, St, [&](const AliasSet &M) {
      return A.Memory.substitute(M, Ctor, Fn);
    });
  }

  template <typename SubstFn>
  void applySummary(const Summary &Sm, const Expr *Site,
                    const FunctionDecl *Callee, State &St, SubstFn Subst) {
    StmtRef Here{Site, Fn};
    // A compiler-generated member (a struct's copy assignment) is the
    // statement itself to the user: report it at the call, not inside.
    bool Implicit = Callee->isImplicit() || Callee->isDefaulted();
    auto lift = [&](const Event &Inner) {
      Event E = Inner;
      E.Mem = Subst(Inner.Mem);
      E.At = Here;
      if (Implicit) {
        E.Loc = Site->getBeginLoc();
        E.Via = Inner.Via;
      } else if (!E.Via) {
        E.Via = Callee;
      }
      return E;
    };
    // 1. Async operations the callee issues before any fence of its own.
    for (const Summary::ExposedAsync &U : Sm.UpwardAsync) {
      Event E = lift(U.E);
      if (E.Mem.empty())
        E.Mem = AliasSet::unknown();
      if (U.AfterBarrier) {
        State Tmp = St;
        setHandoff(Tmp, Here);
        checkAsync(E, Tmp);
      } else {
        checkAsync(E, St);
      }
    }
    // 2. The callee's fences and barriers act on what is pending here.
    if (!Sm.IncomingSurvives)
      St.clear();
    else if (Sm.IncomingCrossesBarrier)
      setHandoff(St, Here);
    // 3. Accesses the callee leaves unfenced.
    unsigned Ordinal = 0;
    for (const Summary::ExposedAccess &D : Sm.DownwardAccesses) {
      Event E = lift(D.E);
      if (E.Mem.empty())
        continue;
      St.push_back(Pending{accessIndex(E, Ordinal++), D.Handoff});
    }
    normalize(St);
  }

  /// Stable index of an access, so that every fixed-point iteration over a
  /// statement names its accesses the same way.
  unsigned accessIndex(const Event &E, unsigned Ordinal) {
    auto Key = std::make_tuple(E.At.S, Ordinal, unsigned(E.Kind));
    auto It = AccessIndex.find(Key);
    if (It != AccessIndex.end())
      return It->second;
    Accesses.push_back(E);
    return AccessIndex[Key] = Accesses.size() - 1;
  }

  void apply(const Event &E, State &St, unsigned Ordinal = 0) {
    switch (E.Kind) {
    case EffectKind::GenericWrite:
    case EffectKind::GenericRead:
      St.push_back(Pending{accessIndex(E, Ordinal), {}});
      normalize(St);
      return;
    case EffectKind::ProxyFence:
      if (fenceCoversShared(E.Space))
        St.clear();
      return;
    case EffectKind::AsyncRead:
    case EffectKind::AsyncWrite:
      checkAsync(E, St);
      return;
    default:
      if (isHandoff(E))
        setHandoff(St, E.At);
      return;
    }
  }

  void checkAsync(const Event &E, const State &St) {
    for (const Pending &P : St) {
      if (P.Access == Incoming) {
        auto Key = std::make_tuple(E.At.S, E.Loc.getRawEncoding(),
                                   bool(P.Handoff));
        if (Exposed.insert(Key).second)
          Out.UpwardAsync.push_back({E, bool(P.Handoff)});
        continue;
      }
      const Event &Acc = Accesses[P.Access];
      for (const Rule *R : A.Rules)
        if (R->MatchesAccess(Acc.Kind) && R->MatchesAsync(E) &&
            Acc.Mem.mayAlias(E.Mem))
          A.addFinding(Finding{R, Acc, E, P.Handoff});
    }
  }

  Analyzer &A;
  const FunctionDecl *Fn;
  Summary &Out;
  std::vector<Event> Accesses;
  std::map<std::tuple<const Stmt *, unsigned, unsigned>, unsigned> AccessIndex;
  std::set<std::tuple<const Stmt *, unsigned, bool>> Exposed;
  std::set<const Stmt *> Counted;
};

Analyzer::Analyzer(ASTContext &Ctx, llvm::ArrayRef<const Rule *> Rules)
    : Ctx(Ctx), Rules(Rules.begin(), Rules.end()), Memory(Ctx) {}
Analyzer::~Analyzer() = default;

const Summary &Analyzer::analyze(const FunctionDecl *Fn) {
  auto It = Summaries.find(Fn);
  if (It != Summaries.end())
    return *It->second; // done, or in progress (recursion: transparent)
  auto &Slot = Summaries[Fn];
  Slot = std::make_unique<Summary>();
  Summary Result;
  if (Fn->getBody() && !Fn->isDependentContext())
    FunctionRun(*this, Fn, Result).run();
  *Summaries[Fn] = std::move(Result);
  return *Summaries[Fn];
}

void Analyzer::addFinding(Finding F) {
  auto Key = std::make_tuple(F.R, F.Access.At.S, F.Access.Loc.getRawEncoding(),
                             F.Async.At.S, F.Async.Loc.getRawEncoding(),
                             F.Handoff.S);
  if (FindingKeys.insert(Key).second)
    Findings.push_back(std::move(F));
}

} // namespace proxyfence
