//===- Ptx.cpp - PTX text model for inline asm ----------------------------===//
//
// The parser follows PTX's own rules: `;` ends an instruction and newlines
// are plain whitespace, because real code splits one instruction over
// several lines (e.g. one wgmma operand per line). `{`/`}` at the start of a
// statement are scopes; inside an operand list they delimit vectors. The
// parser never fails and runs in time linear in the text.
//
//===----------------------------------------------------------------------===//
#include "ptx/Ptx.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include <climits>

using llvm::ArrayRef;
using llvm::StringRef;

namespace proxyfence::ptx {

bool Instruction::hasPart(StringRef P) const {
  return llvm::any_of(Parts, [&](const std::string &S) { return S == P; });
}

namespace {

bool isSpace(char C) {
  return C == ' ' || C == '\t' || C == '\n' || C == '\r' || C == '\v' ||
         C == '\f';
}

/// Characters of a label name; `%` and `=` admit GCC's `%=` unique suffix.
bool isLabelChar(char C) {
  return llvm::isAlnum(C) || C == '_' || C == '$' || C == '%' || C == '=';
}

/// Ends an opcode or a guard predicate.
bool endsWord(char C) {
  return isSpace(C) || C == ';' || C == '{' || C == '}' || C == '[' || C == ',';
}

/// Replaces comments with blanks so that every other byte keeps its offset.
std::string blankComments(StringRef Text) {
  std::string Out = Text.str();
  size_t N = Out.size();
  for (size_t I = 0; I + 1 < N;) {
    if (Out[I] == '/' && Out[I + 1] == '/') {
      for (; I < N && Out[I] != '\n'; ++I)
        Out[I] = ' ';
    } else if (Out[I] == '/' && Out[I + 1] == '*') {
      Out[I] = Out[I + 1] = ' ';
      for (I += 2; I < N; ++I) {
        bool End = Out[I] == '*' && I + 1 < N && Out[I + 1] == '/';
        if (!isSpace(Out[I]))
          Out[I] = ' ';
        if (End) {
          Out[++I] = ' ';
          ++I;
          break;
        }
      }
    } else {
      ++I;
    }
  }
  return Out;
}

/// `%%` is the template's spelling of a literal `%`.
std::string unescape(StringRef S) {
  std::string Out;
  Out.reserve(S.size());
  for (size_t I = 0; I < S.size(); ++I) {
    Out += S[I];
    if (S[I] == '%' && I + 1 < S.size() && S[I + 1] == '%')
      ++I;
  }
  return Out;
}

/// Index of the first `%N` or `%[name]` in the raw (still escaped) text.
int findAsmOperand(StringRef Raw, ArrayRef<std::string> Names) {
  bool NoClose = false; // No `]` is left: keeps repeated `%[` linear.
  for (size_t I = 0; I + 1 < Raw.size(); ++I) {
    if (Raw[I] != '%')
      continue;
    char Next = Raw[I + 1];
    if (Next == '%') {
      ++I;
    } else if (llvm::isDigit(Next)) {
      size_t E = I + 1;
      while (E < Raw.size() && llvm::isDigit(Raw[E]))
        ++E;
      unsigned long long V;
      if (!Raw.slice(I + 1, E).getAsInteger(10, V) && V <= INT_MAX)
        return static_cast<int>(V);
      I = E - 1;
    } else if (Next == '[' && !NoClose) {
      size_t E = Raw.find(']', I + 2);
      if (E == StringRef::npos) {
        NoClose = true;
        continue;
      }
      StringRef Name = Raw.slice(I + 2, E);
      for (size_t K = 0; K < Names.size(); ++K)
        if (!Name.empty() && Names[K] == Name)
          return static_cast<int>(K);
      I = E;
    }
  }
  return -1;
}

Operand makeOperand(StringRef Raw, ArrayRef<std::string> Names) {
  Raw = Raw.trim();
  Operand O;
  O.Text = unescape(Raw);
  O.IsAddress = Raw.starts_with("[");
  O.IsVector = Raw.starts_with("{") || (O.IsAddress && Raw.contains('{'));
  O.AsmOperand = findAsmOperand(Raw, Names);
  return O;
}

class Parser {
public:
  Parser(StringRef AsmText, ArrayRef<std::string> Names)
      : Clean(blankComments(AsmText)), S(Clean), Names(Names) {}

  Program run() {
    while (Pos < S.size()) {
      char C = S[Pos];
      if (C == '{') {
        Prog.ScopeParents.push_back(Scope);
        Scope = Prog.ScopeParents.size() - 1;
        ++Pos;
      } else if (C == '}') {
        Scope = Prog.ScopeParents[Scope];
        ++Pos;
      } else if (isSpace(C) || C == ';')
        ++Pos;
      else if (C == '.')
        readDirective();
      else if (!parseLabel())
        parseInstruction();
    }
    return std::move(Prog);
  }

private:
  std::string Clean;
  StringRef S;
  ArrayRef<std::string> Names;
  size_t Pos = 0;
  unsigned Scope = 0; // Innermost open scope.
  Program Prog;

  void skipSpaces() {
    while (Pos < S.size() && isSpace(S[Pos]))
      ++Pos;
  }

  StringRef readWord() {
    size_t Start = Pos;
    while (Pos < S.size() && !endsWord(S[Pos]))
      ++Pos;
    return S.slice(Start, Pos);
  }

  /// `.reg .b32 r<4>;` and the like declare, they do not act: they are kept
  /// apart from the instructions (a whole module's `.loc` line info matters).
  /// Directives never span lines, so a newline also ends one that lacks
  /// its `;`.
  void readDirective() {
    size_t Start = Pos;
    while (Pos < S.size() && S[Pos] != ';' && S[Pos] != '\n')
      ++Pos;
    Prog.Directives.push_back(
        {S.slice(Start, Pos).rtrim().str(), static_cast<unsigned>(Start)});
  }

  /// `name:` (but not `name::`, which is part of an opcode).
  bool parseLabel() {
    size_t E = Pos;
    while (E < S.size() && isLabelChar(S[E]))
      ++E;
    if (E == Pos || E >= S.size() || S[E] != ':' ||
        (E + 1 < S.size() && S[E + 1] == ':'))
      return false;
    Prog.Labels.push_back(unescape(S.slice(Pos, E)));
    Prog.LabelOffsets.push_back(static_cast<unsigned>(Pos));
    Prog.LabelScopes.push_back(Scope);
    Pos = E + 1;
    return true;
  }

  void parseInstruction() {
    Instruction I;
    I.Offset = static_cast<unsigned>(Pos);
    I.Scope = Scope;
    if (S[Pos] == '@') {
      ++Pos;
      skipSpaces();
      I.Predicate = unescape(readWord());
      skipSpaces();
    }
    I.Opcode = unescape(readWord());
    parseOperands(I);
    if (I.Opcode.empty())
      return; // A stray guard or punctuation: nothing to record.
    llvm::SmallVector<StringRef, 8> Parts;
    StringRef(I.Opcode).split(Parts, '.');
    for (StringRef P : Parts)
      I.Parts.push_back(P.str());
    Prog.Instructions.push_back(std::move(I));
  }

  /// Reads up to the `;` (or the `}` closing the enclosing scope), splitting
  /// at commas outside brackets, braces and parentheses.
  void parseOperands(Instruction &I) {
    size_t Start = Pos, Depth = 0;
    bool SawComma = false;
    for (; Pos < S.size(); ++Pos) {
      char C = S[Pos];
      if (C == ';' || (C == '}' && Depth == 0))
        break;
      if (C == '[' || C == '{' || C == '(') {
        ++Depth;
      } else if (C == ']' || C == '}' || C == ')') {
        if (Depth > 0)
          --Depth;
      } else if (C == ',' && Depth == 0) {
        I.Operands.push_back(makeOperand(S.slice(Start, Pos), Names));
        Start = Pos + 1;
        SawComma = true;
      }
    }
    StringRef Last = S.slice(Start, Pos);
    if (SawComma || !Last.trim().empty())
      I.Operands.push_back(makeOperand(Last, Names));
  }
};

//===----------------------------------------------------------------------===//
// Classification
//===----------------------------------------------------------------------===//

bool isShared(StringRef P) {
  return P == "shared" || P == "shared::cta" || P == "shared::cluster";
}

bool isStateSpace(StringRef P) {
  return isShared(P) || P == "global" || P == "local" || P == "const" ||
         P.starts_with("const[") || P == "param" || P.starts_with("param::");
}

/// The first state-space qualifier of the opcode; empty if none.
StringRef stateSpace(const Instruction &I) {
  for (size_t K = 1; K < I.Parts.size(); ++K)
    if (isStateSpace(I.Parts[K]))
      return I.Parts[K];
  return {};
}

int firstAddress(const Instruction &I, size_t From = 0) {
  for (size_t K = From; K < I.Operands.size(); ++K)
    if (I.Operands[K].IsAddress)
      return static_cast<int>(K);
  return -1;
}

bool hasOperand(const Instruction &I, size_t K) {
  return K < I.Operands.size();
}

/// K when the instruction has that operand, else -1 (malformed text).
int operandIf(const Instruction &I, size_t K) {
  return hasOperand(I, K) ? static_cast<int>(K) : -1;
}

Effect effect(EffectKind K, int Mem = -1, AsyncOp Op = AsyncOp::None) {
  Effect E{K};
  E.MemOperand = Mem;
  E.Op = Op;
  return E;
}

/// st/ld/atom/red: shared or generic addresses matter, other spaces do not.
std::vector<Effect> plainAccess(const Instruction &I, EffectKind K) {
  StringRef Space = stateSpace(I);
  if (!Space.empty() && !isShared(Space))
    return {};
  Effect E = effect(K, firstAddress(I));
  E.GenericAddress = Space.empty();
  E.CrossCta = Space == "shared::cluster";
  return {E};
}

/// ldmatrix/stmatrix/st.bulk: a generic address must point into shared
/// memory, so the access is always to shared memory.
std::vector<Effect> sharedOnlyAccess(const Instruction &I, EffectKind K) {
  return {effect(K, firstAddress(I))};
}

std::vector<Effect> mbarrierOp(const Instruction &I, EffectKind K,
                               bool CrossCta) {
  Effect E = effect(K, firstAddress(I));
  E.MbarrierOperand = E.MemOperand;
  E.CrossCta = CrossCta;
  return {E};
}

/// st.async / red.async: [remote addr], value, [remote mbarrier]. The store
/// is not a proxy hazard here; the mbarrier is another CTA's, used remotely.
std::vector<Effect> remoteCompletion(const Instruction &I) {
  Effect E = effect(EffectKind::MbarrierComplete);
  E.MbarrierOperand = firstAddress(I, 1);
  E.CrossCta = true;
  return {E};
}

/// cp.async.bulk*, cp.reduce.async.bulk* and cp.async.mbarrier.arrive*.
std::vector<Effect> classifyCp(const Instruction &I) {
  const auto &P = I.Parts;
  if (P.size() >= 4 && P[1] == "async" && P[2] == "mbarrier" &&
      P[3] == "arrive")
    return mbarrierOp(I, EffectKind::MbarrierArrive, false);

  bool Reduce = P.size() > 1 && P[1] == "reduce";
  size_t Bulk = Reduce ? 3 : 2; // Index of "bulk".
  if (P.size() <= Bulk + 1 || P[Bulk - 1] != "async" || P[Bulk] != "bulk" ||
      P[Bulk + 1] == "prefetch")
    return {};
  bool Tensor = P[Bulk + 1] == "tensor";

  // The first two state spaces are the destination and the source.
  llvm::SmallVector<StringRef, 2> Spaces;
  for (size_t K = Bulk + 1; K < P.size() && Spaces.size() < 2; ++K)
    if (isStateSpace(P[K]))
      Spaces.push_back(P[K]);
  if (Spaces.size() < 2)
    return {};
  StringRef Dst = Spaces[0], Src = Spaces[1];

  AsyncOp Store = Reduce   ? AsyncOp::ReduceStore
                  : Tensor ? AsyncOp::TensorStore
                           : AsyncOp::BulkStore;
  AsyncOp Load = Reduce   ? AsyncOp::ReduceStore
                 : Tensor ? AsyncOp::TensorLoad
                          : AsyncOp::BulkLoad;
  // The mbarrier comes after the destination and source addresses.
  auto MakeLoad = [&](bool CrossCta) {
    Effect E = effect(EffectKind::AsyncWrite, operandIf(I, 0), Load);
    E.MbarrierOperand = firstAddress(I, 2);
    E.CrossCta = CrossCta;
    return E;
  };

  if (Dst == "global" && isShared(Src))
    return {effect(EffectKind::AsyncRead, operandIf(I, 1), Store)};
  if (isShared(Dst) && Src == "global" && !Reduce)
    return {
        MakeLoad(I.hasPart("multicast::cluster") || I.hasPart("cta_group::2"))};
  if (isShared(Dst) && isShared(Src))
    // smem -> (possibly another CTA's) smem: an async write there and an
    // async read here.
    return {MakeLoad(true),
            effect(EffectKind::AsyncRead, operandIf(I, 1), Store)};
  return {};
}

/// Space of a proxy fence whose proxy kind is Parts[K], as in
/// fence.proxy.async.shared::cta or
/// fence.proxy.async::generic.release.sync_restrict::shared::cta.cluster.
std::vector<Effect> proxyFence(const Instruction &I, size_t K) {
  const auto &P = I.Parts;
  if (P.size() <= K)
    return {};
  Effect E = effect(EffectKind::ProxyFence);
  if (P[K] == "async") {
    if (P.size() == K + 1)
      return {E}; // Space All.
    if (P.size() != K + 2)
      return {};
    if (P[K + 1] == "shared::cta")
      E.Space = FenceSpace::SharedCta;
    else if (P[K + 1] == "shared::cluster")
      E.Space = FenceSpace::SharedCluster;
    else if (P[K + 1] == "global")
      E.Space = FenceSpace::Global;
    else
      return {};
    return {E};
  }
  // The one-way generic->async fences, restricted to one shared space.
  if (P[K] == "async::generic") {
    for (size_t J = K + 1; J < P.size(); ++J) {
      StringRef Q = P[J];
      if (!Q.consume_front("sync_restrict::"))
        continue;
      if (Q.starts_with("shared::cta"))
        E.Space = FenceSpace::SharedCta;
      else if (Q.starts_with("shared::cluster"))
        E.Space = FenceSpace::SharedCluster;
      else
        return {};
      return {E};
    }
  }
  return {};
}

/// bar.* and barrier.*
std::vector<Effect> classifyBarrier(const Instruction &I) {
  ArrayRef<std::string> Q = ArrayRef<std::string>(I.Parts).drop_front();
  if (Q.empty())
    return {};
  if (I.Parts[0] == "barrier" && Q[0] == "cluster") {
    if (Q.size() < 2 || (Q[1] != "arrive" && Q[1] != "wait"))
      return {};
    Effect E = effect(Q[1] == "arrive" ? EffectKind::ClusterArrive
                                       : EffectKind::ClusterWait);
    E.Scope = BarrierScope::Cluster;
    E.ArriveOnly = Q[1] == "arrive";
    E.Relaxed = I.hasPart("relaxed");
    return {E};
  }

  Effect E = effect(EffectKind::Barrier);
  if (I.Parts[0] == "bar" && Q[0] == "warp") {
    if (Q.size() < 2 || Q[1] != "sync")
      return {};
    E.Scope = BarrierScope::Warp;
    return {E};
  }

  if (Q[0] == "cta")
    Q = Q.drop_front();
  if (Q.empty())
    return {};
  size_t Id = 0; // Operand index of the barrier id.
  if (Q[0] == "red")
    Id = 1; // After the destination.
  else if (Q[0] == "arrive")
    E.ArriveOnly = true;
  else if (Q[0] != "sync")
    return {};
  // A thread count follows the id (for red, before the predicate input).
  bool HasCount = I.Operands.size() > Id + (Q[0] == "red" ? 2 : 1);
  // With no thread count every thread of the CTA takes part, whatever the
  // id (PTX ISA, bar/barrier): `bar.sync 15` orders the CTA as
  // `__syncthreads` does.
  bool WholeCta = hasOperand(I, Id) && !HasCount && !E.ArriveOnly;
  E.Scope = WholeCta ? BarrierScope::Cta : BarrierScope::Named;
  if (hasOperand(I, Id))
    E.BarrierIdOperand = Id;
  return {E};
}

std::vector<Effect> classifyMbarrier(const Instruction &I) {
  if (I.Parts.size() < 2)
    return {};
  StringRef What = I.Parts[1];
  if (What == "init")
    return mbarrierOp(I, EffectKind::MbarrierInit, false);
  if (What == "arrive" || What == "arrive_drop" || What == "expect_tx" ||
      What == "complete_tx")
    return mbarrierOp(I, EffectKind::MbarrierArrive,
                      I.hasPart("shared::cluster"));
  if (What == "try_wait" || What == "test_wait")
    return mbarrierOp(I, EffectKind::MbarrierWait, false);
  return {};
}

std::vector<Effect> classifyWgmma(const Instruction &I) {
  if (I.Parts.size() < 2)
    return {};
  if (I.Parts[1] == "fence")
    return {effect(EffectKind::RegisterFence)};
  if (I.Parts[1] != "mma_async")
    return {};
  // d, a-desc, b-desc, ...; the RS form has a register vector for A.
  std::vector<Effect> Out;
  if (hasOperand(I, 1) && !I.Operands[1].IsVector)
    Out.push_back(effect(EffectKind::AsyncRead, 1, AsyncOp::Wgmma));
  if (hasOperand(I, 2))
    Out.push_back(effect(EffectKind::AsyncRead, 2, AsyncOp::Wgmma));
  return Out;
}

std::vector<Effect> sharedEffectsOfTcgen05(const Instruction &I);

/// The tensor-memory side of a tcgen05 instruction (PTX ISA 9.7.16.6: which
/// are asynchronous, which wait or fence).
std::vector<Effect> tmemEffects(const Instruction &I) {
  StringRef What = I.Parts[1];
  auto access = [&](AsyncOp Op) {
    Effect E = effect(EffectKind::TmemAccess, -1, Op);
    E.CrossCta = I.hasPart("cta_group::2");
    return E;
  };
  if (What == "ld")
    return {access(AsyncOp::Tcgen05Ld)};
  if (What == "st")
    return {access(AsyncOp::Tcgen05St)};
  if (What == "shift")
    return {access(AsyncOp::Tcgen05Shift)};
  if (What == "mma")
    return {access(AsyncOp::Tcgen05Mma)};
  if (What == "cp")
    return {access(AsyncOp::Tcgen05Cp)};
  if (What == "wait::ld")
    return {effect(EffectKind::TmemWaitLd)};
  if (What == "wait::st")
    return {effect(EffectKind::TmemWaitSt)};
  if (What == "fence::before_thread_sync")
    return {effect(EffectKind::TmemFenceBefore)};
  if (What == "fence::after_thread_sync")
    return {effect(EffectKind::TmemFenceAfter)};
  if (What == "dealloc") {
    Effect E = effect(EffectKind::TmemDealloc);
    E.CrossCta = I.hasPart("cta_group::2");
    return {E};
  }
  return {};
}

std::vector<Effect> classifyTcgen05(const Instruction &I) {
  if (I.Parts.size() < 2)
    return {};
  std::vector<Effect> Out = tmemEffects(I);
  std::vector<Effect> Smem = sharedEffectsOfTcgen05(I);
  Out.insert(Out.begin(), Smem.begin(), Smem.end());
  return Out;
}

/// tensormap.replace / tensormap.cp_fenceproxy, and
/// fence.proxy.tensormap::generic.{release,acquire} (PTX ISA: tensormap
/// proxy; membar/fence).
std::vector<Effect> classifyTensormap(const Instruction &I) {
  if (I.Parts[0] == "fence") {
    if (I.hasPart("release"))
      return {effect(EffectKind::TensormapRelease)};
    if (I.hasPart("acquire"))
      return {effect(EffectKind::TensormapAcquire)};
    return {};
  }
  if (I.Parts.size() < 2)
    return {};
  if (I.Parts[1] == "replace") {
    // A map in shared memory: TMA reads maps only from the param, const and
    // global state spaces, so this one is used once copied there.
    Effect E = effect(EffectKind::TensormapWrite);
    if (I.hasPart("shared::cta")) {
      E.MemOperand = 0;
      E.GenericAddress = false;
    }
    return {E};
  }
  if (I.Parts[1] == "cp_fenceproxy")
    return {effect(EffectKind::TensormapWrite),
            effect(EffectKind::TensormapRelease)};
  return {};
}

std::vector<Effect> sharedEffectsOfTcgen05(const Instruction &I) {
  StringRef What = I.Parts[1];
  bool Pair = I.hasPart("cta_group::2");
  if (What == "mma") {
    // [d-tmem], a-desc or [a-tmem], b-desc, ... (also for .sp and .ws).
    std::vector<Effect> Out;
    if (hasOperand(I, 1) && !I.Operands[1].IsAddress)
      Out.push_back(effect(EffectKind::AsyncRead, 1, AsyncOp::Tcgen05Mma));
    if (hasOperand(I, 2))
      Out.push_back(effect(EffectKind::AsyncRead, 2, AsyncOp::Tcgen05Mma));
    for (Effect &E : Out)
      E.CrossCta = Pair; // The pair's MMA reads both CTAs' operands.
    return Out;
  }
  if (What == "cp" && hasOperand(I, 1)) // [taddr], s-desc
    return {effect(EffectKind::AsyncRead, 1, AsyncOp::Tcgen05Cp)};
  if (What == "commit") {
    std::vector<Effect> Out = mbarrierOp(
        I, EffectKind::MbarrierArrive, Pair || I.hasPart("multicast::cluster"));
    Out.push_back(effect(EffectKind::TmemCommit));
    Out.back().CrossCta = Out.front().CrossCta;
    return Out;
  }
  return {};
}

} // namespace

Program parse(StringRef AsmText, ArrayRef<std::string> OperandNames) {
  return Parser(AsmText, OperandNames).run();
}

std::vector<Effect> classify(const Instruction &I) {
  if (I.Parts.empty())
    return {};
  StringRef Op = I.Parts[0];
  StringRef Second = I.Parts.size() > 1 ? StringRef(I.Parts[1]) : "";
  if (Op == "st") {
    if (Second == "async")
      return remoteCompletion(I);
    if (Second == "bulk")
      return sharedOnlyAccess(I, EffectKind::GenericWrite);
    return plainAccess(I, EffectKind::GenericWrite);
  }
  if (Op == "ld")
    return plainAccess(I, EffectKind::GenericRead);
  if (Op == "red" && Second == "async")
    return remoteCompletion(I);
  if (Op == "atom" || (Op == "red" && !I.hasPart("async")))
    return plainAccess(I, EffectKind::GenericWrite);
  if (Op == "stmatrix")
    return sharedOnlyAccess(I, EffectKind::GenericWrite);
  if (Op == "ldmatrix")
    return sharedOnlyAccess(I, EffectKind::GenericRead);
  if (Op == "cp")
    return classifyCp(I);
  if (Op == "fence" && Second == "proxy" && I.Parts.size() > 2 &&
      I.Parts[2] == "tensormap::generic")
    return classifyTensormap(I);
  if (Op == "tensormap")
    return classifyTensormap(I);
  if (Op == "fence" && Second == "proxy")
    return proxyFence(I, 2);
  if (Op == "fence" && Second == "mbarrier_init")
    return {effect(EffectKind::InitFence)};
  if (Op == "membar" && Second == "proxy")
    return proxyFence(I, 2);
  if (Op == "bar" || Op == "barrier")
    return classifyBarrier(I);
  if (Op == "mbarrier")
    return classifyMbarrier(I);
  if (Op == "wgmma")
    return classifyWgmma(I);
  if (Op == "tcgen05")
    return classifyTcgen05(I);
  if (Op == "clusterlaunchcontrol" && Second == "try_cancel") {
    // [response], [mbar]; multicast::cluster::all writes every CTA's copy.
    Effect E =
        effect(EffectKind::AsyncWrite, operandIf(I, 0), AsyncOp::TryCancel);
    E.MbarrierOperand = firstAddress(I, 1);
    E.CrossCta = llvm::any_of(I.Parts, [](const std::string &P) {
      return StringRef(P).starts_with("multicast::cluster");
    });
    return {E};
  }
  return {};
}

} // namespace proxyfence::ptx
