//===- PtxCheck.cpp - the proxy rules over compiled PTX -------------------===//
#include "verify/PtxCheck.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include <algorithm>
#include <map>
#include <set>

namespace proxyfence {

Event ptxEvent(const ptx::Instruction &I, const ptx::Effect &E) {
  Event Ev = eventOf(E, {}, {}, I.Opcode);
  // Registers say nothing about which shared memory: any may alias.
  Ev.Mem = AliasSet::unknown();
  return Ev;
}

namespace {

bool isAccess(EffectKind K) {
  return K == EffectKind::GenericWrite || K == EffectKind::GenericRead;
}
bool isAsync(EffectKind K) {
  return K == EffectKind::AsyncRead || K == EffectKind::AsyncWrite;
}

/// Sorted, unique references (summaries' lists).
using RefList = std::vector<PtxRef>;

void insert(RefList &S, const PtxRef &R) {
  auto It = std::lower_bound(S.begin(), S.end(), R);
  if (It == S.end() || !(*It == R))
    S.insert(It, R);
}

class ModuleChecker {
public:
  ModuleChecker(const ptx::Module &M, const PtxCheckOptions &O) : M(M), O(O) {
    llvm::ArrayRef<const Rule *> Chosen = O.Rules;
    Rules.assign(Chosen.empty() ? proxyRules().begin() : Chosen.begin(),
                 Chosen.empty() ? proxyRules().end() : Chosen.end());
    Fns.resize(M.Functions.size());
    for (size_t F = 0; F < M.Functions.size(); ++F)
      for (const ptx::ModuleInstruction &MI : M.Functions[F].Body) {
        Fns[F].Effects.push_back(ptx::classify(MI.I));
        std::string Callee = ptx::callee(MI.I);
        Fns[F].Callees.push_back(Callee.empty() ? -1 : M.find(Callee));
      }
  }

  std::vector<PtxHazard> run() {
    for (unsigned F = 0; F < Fns.size(); ++F)
      summary(F);
    std::vector<PtxHazard> Out;
    for (auto &[Key, H] : Hazards) {
      // One access per instruction, in order.
      llvm::sort(H.Accesses);
      H.Accesses.erase(std::unique(H.Accesses.begin(), H.Accesses.end(),
                                   [](const PtxRef &A, const PtxRef &B) {
                                     return A.Fn == B.Fn && A.Index == B.Index;
                                   }),
                       H.Accesses.end());
      Out.push_back(std::move(H));
    }
    return Out;
  }

private:
  struct PtxFunctionSummary {
    bool IncomingSurvives = true;
    RefList Upward;    // async operations reached with the incoming state
    RefList Downward;  // accesses pending at the exit
    RefList Arrives;   // mbarrier arrives reached with the incoming state
    RefList ExitWaits; // mbarrier waits in force at the exit
  };
  struct FnData {
    std::vector<std::vector<ptx::Effect>> Effects;
    std::vector<int> Callees;
    enum { NotStarted, Running, Done } Status = NotStarted;
    PtxFunctionSummary S;
  };

  const ptx::Module &M;
  const PtxCheckOptions &O;
  std::vector<const Rule *> Rules;
  std::vector<FnData> Fns;
  /// By async instruction and rule (index).
  std::map<std::tuple<unsigned, unsigned, unsigned>, PtxHazard> Hazards;

  const ptx::Instruction &instr(const PtxRef &R) const {
    return M.Functions[R.Fn].Body[R.Index].I;
  }
  const ptx::Effect &effect(const PtxRef &R) const {
    return Fns[R.Fn].Effects[R.Index][R.Effect];
  }

  const PtxFunctionSummary &summary(unsigned F) {
    static const PtxFunctionSummary Transparent;
    FnData &D = Fns[F];
    if (D.Status == FnData::Running)
      return Transparent; // recursion: what the callee does is not known yet
    if (D.Status == FnData::NotStarted) {
      D.Status = FnData::Running;
      PtxFunctionSummary S = PtxFunctionRun(*this, F).run();
      Fns[F].S = std::move(S);
      Fns[F].Status = FnData::Done;
    }
    return Fns[F].S;
  }

  bool anyRuleTakes(EffectKind Access) const {
    return llvm::any_of(
        Rules, [&](const Rule *R) { return R->MatchesAccess(Access); });
  }

  /// The dataflow over one function. The state is a bit vector over the
  /// function's universe: bit 0 the incoming state, then its own accesses
  /// and mbarrier waits and those its callees leave pending.
  class PtxFunctionRun {
  public:
    PtxFunctionRun(ModuleChecker &C, unsigned F) : C(C), F(F), D(C.Fns[F]) {}

    PtxFunctionSummary run() {
      // Callee summaries first: what they leave pending joins the universe.
      for (int Callee : D.Callees)
        if (Callee >= 0)
          C.summary(Callee);
      Refs.push_back({~0u, 0, 0}); // Incoming
      for (unsigned I = 0; I < D.Effects.size(); ++I) {
        if (D.Callees[I] >= 0) {
          const PtxFunctionSummary &S = C.summary(D.Callees[I]);
          for (const RefList *L : {&S.Downward, &S.ExitWaits})
            for (const PtxRef &R : *L)
              add(R);
        }
        for (unsigned K = 0; K < D.Effects[I].size(); ++K) {
          EffectKind Kind = D.Effects[I][K].Kind;
          if ((isAccess(Kind) && C.anyRuleTakes(Kind) &&
               (!C.O.Access || C.O.Access(F, I))) ||
              Kind == EffectKind::MbarrierWait)
            add({F, I, K});
        }
      }
      IsWait.resize(Refs.size());
      IsAccess.resize(Refs.size());
      for (unsigned B = 1; B < Refs.size(); ++B) {
        bool Wait = C.effect(Refs[B]).Kind == EffectKind::MbarrierWait;
        IsWait[B] = Wait;
        IsAccess[B] = !Wait;
      }
      return solve();
    }

  private:
    ModuleChecker &C;
    unsigned F;
    const FnData &D;
    PtxFunctionSummary Out;
    std::vector<PtxRef> Refs; // the universe
    std::map<PtxRef, unsigned> Id;
    llvm::BitVector IsWait, IsAccess;
    /// Accesses found pending at each async operation, by (async, rule).
    std::map<std::pair<PtxRef, unsigned>, llvm::BitVector> Found;
    /// Warp roles, as in the source analysis: one role accesses smem and
    /// arrives on an mbarrier, another waits and issues the async operation;
    /// no single path holds both. Addresses are registers here, so every
    /// arrive may pair with every wait of the function.
    llvm::BitVector HandedOff; // accesses pending at some arrive
    RefList AfterWait;         // async operations reached after some wait

    void add(const PtxRef &R) {
      if (Id.emplace(R, Refs.size()).second)
        Refs.push_back(R);
    }

    PtxFunctionSummary solve() {
      ptx::Cfg G = ptx::buildCfg(C.M.Functions[F]);
      if (G.Blocks.empty())
        return Out;
      // Reverse post-order, so that loops reach their fixed point quickly.
      std::vector<unsigned> Order, Rank(G.Blocks.size(), ~0u);
      {
        std::vector<bool> Seen(G.Blocks.size());
        std::vector<std::pair<unsigned, size_t>> Stack{{0, 0}};
        Seen[0] = true;
        while (!Stack.empty()) {
          auto &[B, Next] = Stack.back();
          if (Next == G.Blocks[B].Succs.size()) {
            Order.push_back(B);
            Stack.pop_back();
            continue;
          }
          unsigned S = G.Blocks[B].Succs[Next++];
          if (!Seen[S]) {
            Seen[S] = true;
            Stack.push_back({S, 0});
          }
        }
        std::reverse(Order.begin(), Order.end());
        for (unsigned I = 0; I < Order.size(); ++I)
          Rank[Order[I]] = I;
      }

      unsigned N = Refs.size();
      HandedOff.resize(N);
      std::vector<llvm::BitVector> In(G.Blocks.size(), llvm::BitVector(N));
      std::vector<bool> Reached(G.Blocks.size());
      In[0].set(0);
      Reached[0] = true;
      llvm::BitVector Exit(N);
      std::set<unsigned> Work{0}; // ranks
      while (!Work.empty()) {
        unsigned B = Order[*Work.begin()];
        Work.erase(Work.begin());
        llvm::BitVector S = In[B];
        for (unsigned I = G.Blocks[B].Begin; I < G.Blocks[B].End; ++I)
          transfer(I, S);
        if (G.Blocks[B].Exits)
          Exit |= S;
        for (unsigned Succ : G.Blocks[B].Succs) {
          llvm::BitVector Joined = In[Succ];
          Joined |= S;
          bool Changed = Joined != In[Succ] || !Reached[Succ];
          In[Succ] = std::move(Joined);
          Reached[Succ] = true;
          if (Changed)
            Work.insert(Rank[Succ]);
        }
      }

      Out.IncomingSurvives = Exit.test(0);
      for (unsigned B : Exit.set_bits())
        if (B != 0)
          (IsWait[B] ? Out.ExitWaits : Out.Downward).push_back(Refs[B]);
      for (const PtxRef &Async : AfterWait)
        report(Async, HandedOff);
      for (const auto &[Key, Bits] : Found) {
        PtxHazard &H = C.Hazards[{Key.first.Fn, Key.first.Index, Key.second}];
        H.R = C.Rules[Key.second];
        H.Async = Key.first;
        for (unsigned B : Bits.set_bits())
          H.Accesses.push_back(Refs[B]);
      }
      return Out;
    }

    void transfer(unsigned I, llvm::BitVector &S) {
      if (D.Callees[I] >= 0)
        call(C.summary(D.Callees[I]), S);
      const ptx::Instruction &Ins = C.M.Functions[F].Body[I].I;
      const auto &Effects = D.Effects[I];
      for (unsigned K = 0; K < Effects.size(); ++K) {
        const ptx::Effect &E = Effects[K];
        PtxRef Here{F, I, K};
        if (isAccess(E.Kind) || E.Kind == EffectKind::MbarrierWait) {
          // A wait: what follows happens after another role's arrive.
          auto It = Id.find(Here);
          if (It != Id.end())
            S.set(It->second);
        } else if (E.Kind == EffectKind::ProxyFence) {
          // A guarded fence may not execute: it orders no path for certain.
          if (!C.O.IgnoreFences && Ins.Predicate.empty() &&
              fenceCoversShared(E.Space))
            S.reset();
        } else if (isAsync(E.Kind)) {
          if (!C.O.Async || C.O.Async(F, I))
            check(Here, S);
        } else if (E.Kind == EffectKind::MbarrierArrive) {
          arrive(Here, S);
        }
      }
    }

    void call(const PtxFunctionSummary &Callee, llvm::BitVector &S) {
      for (const PtxRef &U : Callee.Upward)
        check(U, S);
      for (const PtxRef &A : Callee.Arrives)
        arrive(A, S);
      if (!Callee.IncomingSurvives)
        S.reset();
      for (const RefList *L : {&Callee.Downward, &Callee.ExitWaits})
        for (const PtxRef &R : *L)
          S.set(Id.at(R));
    }

    /// The accesses pending at an arrive are handed to the roles that wait.
    void arrive(const PtxRef &Arrive, const llvm::BitVector &S) {
      if (S.test(0))
        insert(Out.Arrives, Arrive);
      llvm::BitVector Accesses = S;
      Accesses &= IsAccess;
      HandedOff |= Accesses;
    }

    void check(const PtxRef &Async, const llvm::BitVector &S) {
      if (S.test(0))
        insert(Out.Upward, Async);
      if (S.anyCommon(IsWait))
        insert(AfterWait, Async);
      llvm::BitVector Accesses = S;
      Accesses &= IsAccess;
      report(Async, Accesses);
    }

    void report(const PtxRef &Async, const llvm::BitVector &Accesses) {
      if (Accesses.none())
        return;
      Event AsyncEv = ptxEvent(C.instr(Async), C.effect(Async));
      for (unsigned R = 0; R < C.Rules.size(); ++R) {
        if (!C.Rules[R]->MatchesAsync(AsyncEv))
          continue;
        llvm::BitVector *Bits = nullptr;
        for (unsigned B : Accesses.set_bits()) {
          if (!C.Rules[R]->MatchesAccess(C.effect(Refs[B]).Kind))
            continue;
          if (!Bits) {
            Bits = &Found[{Async, R}];
            Bits->resize(Refs.size());
          }
          Bits->set(B);
        }
      }
    }
  };
};

std::string displayPath(llvm::StringRef P) {
  llvm::SmallString<256> S(P);
  llvm::sys::path::remove_dots(S, /*remove_dot_dot=*/true);
  return std::string(S);
}

std::string position(const ptx::Module &M, const ptx::SourcePos &P) {
  auto It = M.Files.find(P.File);
  std::string S = It == M.Files.end() ? "<file " + std::to_string(P.File) + ">"
                                      : displayPath(It->second);
  S += ":" + std::to_string(P.Line);
  if (P.Col)
    S += ":" + std::to_string(P.Col);
  return S;
}

/// Publication state of one init on a path.
struct InitFact {
  PtxRef Init;
  bool Fenced = false;  // fence.mbarrier_init ran after it
  bool Arrived = false; // a cluster arrive that publishes it, once waited
  bool operator<(const InitFact &O) const {
    return std::tie(Init, Fenced, Arrived) <
           std::tie(O.Init, O.Fenced, O.Arrived);
  }
  bool operator==(const InitFact &O) const {
    return Init == O.Init && Fenced == O.Fenced && Arrived == O.Arrived;
  }
};
using InitState = std::vector<InitFact>; // sorted, unique

void normalize(InitState &S) {
  llvm::sort(S);
  S.erase(std::unique(S.begin(), S.end()), S.end());
}

class InitChecker {
public:
  InitChecker(const ptx::Module &M, const InitCheckOptions &O) : M(M), O(O) {}

  std::vector<PtxInitHazard> run() {
    for (unsigned F = 0; F < M.Functions.size(); ++F)
      analyse(F);
    std::vector<PtxInitHazard> Out;
    for (const auto &[Use, Init] : Hazards)
      Out.push_back({Init, Use});
    return Out;
  }

private:
  const ptx::Module &M;
  const InitCheckOptions &O;
  std::set<std::pair<PtxRef, PtxRef>> Hazards; // (use, init)

  void analyse(unsigned F) {
    const ptx::Function &Fn = M.Functions[F];
    ptx::Cfg G = ptx::buildCfg(Fn);
    if (G.Blocks.empty())
      return;
    std::vector<std::vector<ptx::Effect>> Effects;
    for (const ptx::ModuleInstruction &MI : Fn.Body)
      Effects.push_back(ptx::classify(MI.I));
    std::vector<InitState> In(G.Blocks.size());
    std::vector<bool> Reached(G.Blocks.size());
    Reached[0] = true;
    std::vector<unsigned> Work{0};
    while (!Work.empty()) {
      unsigned B = Work.back();
      Work.pop_back();
      InitState S = In[B];
      for (unsigned I = G.Blocks[B].Begin; I < G.Blocks[B].End; ++I)
        transfer(F, I, Effects[I], S);
      for (unsigned Succ : G.Blocks[B].Succs) {
        size_t Before = In[Succ].size();
        In[Succ].insert(In[Succ].end(), S.begin(), S.end());
        normalize(In[Succ]);
        if (In[Succ].size() != Before || !Reached[Succ]) {
          Reached[Succ] = true;
          Work.push_back(Succ);
        }
      }
    }
  }

  bool isUse(unsigned F, unsigned I, llvm::ArrayRef<ptx::Effect> Effects) {
    if (O.Use)
      return O.Use(F, I);
    const ptx::Instruction &Ins = M.Functions[F].Body[I].I;
    return O.Cluster && llvm::any_of(Effects, [&](const ptx::Effect &E) {
             return isRemoteBarrierUse(ptxEvent(Ins, E));
           });
  }

  void transfer(unsigned F, unsigned I, llvm::ArrayRef<ptx::Effect> Effects,
                InitState &S) {
    const ptx::Instruction &Ins = M.Functions[F].Body[I].I;
    if (isUse(F, I, Effects))
      for (const InitFact &Fact : S)
        Hazards.insert({PtxRef{F, I, 0}, Fact.Init});
    // A guarded step may not run; the init may, whatever its guard.
    bool Runs = Ins.Predicate.empty() && !O.IgnorePublication;
    for (unsigned K = 0; K < Effects.size(); ++K) {
      const ptx::Effect &E = Effects[K];
      if (E.Kind == EffectKind::MbarrierInit) {
        if (!O.Init || O.Init(F, I))
          S.push_back({PtxRef{F, I, K}});
      } else if (!Runs) {
        continue;
      } else if (E.Kind == EffectKind::InitFence) {
        for (InitFact &Fact : S)
          Fact.Fenced = true;
      } else if (E.Kind == EffectKind::ClusterArrive) {
        for (InitFact &Fact : S)
          Fact.Arrived |= Fact.Fenced || !E.Relaxed;
      } else if (E.Kind == EffectKind::ClusterWait) {
        llvm::erase_if(S, [](const InitFact &Fact) { return Fact.Arrived; });
      } else if (!O.Cluster && E.Kind == EffectKind::Barrier &&
                 E.Scope == BarrierScope::Cta && !E.ArriveOnly) {
        S.clear();
      }
    }
    normalize(S);
  }
};

} // namespace

std::vector<PtxInitHazard> checkInitPublication(const ptx::Module &M,
                                                const InitCheckOptions &Opts) {
  return InitChecker(M, Opts).run();
}

std::vector<PtxHazard> checkModule(const ptx::Module &M,
                                   const PtxCheckOptions &Opts) {
  return ModuleChecker(M, Opts).run();
}

std::vector<std::string> linePositions(const ptx::Module &M, int LineInfo) {
  std::vector<std::string> Out;
  if (LineInfo >= 0 && size_t(LineInfo) < M.LineInfos.size())
    for (const ptx::SourcePos &P : M.LineInfos[LineInfo])
      Out.push_back(position(M, P));
  return Out;
}

namespace {

/// Warnings and notes at PTX instructions, with their source through `.loc`.
class Reporter {
public:
  Reporter(const ptx::Module &M, llvm::StringRef PtxName, llvm::raw_ostream &OS)
      : M(M), PtxName(PtxName), OS(OS) {}

  const ptx::ModuleInstruction &at(const PtxRef &R) const {
    return M.Functions[R.Fn].Body[R.Index];
  }
  Event event(const PtxRef &R) const {
    const ptx::Instruction &I = at(R).I;
    return ptxEvent(I, ptx::classify(I).at(R.Effect));
  }

  void warning(const PtxRef &R, const std::string &Msg, llvm::StringRef Name) {
    OS << pos(R) << ": warning: " << Msg << " [" << Name << "]\n";
    LastSource.clear();
  }
  void note(const PtxRef &R, const std::string &Text) {
    OS << pos(R) << ": note: " << Text << "\n";
  }
  /// The source of an instruction, as a note, when line info gives it; not
  /// repeated for the next instructions of the same source (an unrolled
  /// loop's copies).
  void sourceNote(const PtxRef &R, const std::string &Text) {
    std::vector<std::string> Pos = linePositions(M, at(R).LineInfo);
    if (Pos.empty())
      return;
    std::string Note = Pos.front() + ": note: " + Text;
    for (size_t K = 1; K < Pos.size(); ++K)
      Note += (K == 1 ? "; inlined at " : ", ") + Pos[K];
    if (Note != LastSource)
      OS << Note << "\n";
    LastSource = Note;
  }

private:
  const ptx::Module &M;
  llvm::StringRef PtxName;
  llvm::raw_ostream &OS;
  std::string LastSource;

  std::string pos(const PtxRef &R) const {
    return (PtxName + ":" + llvm::Twine(at(R).Line) + ":" +
            llvm::Twine(at(R).Col))
        .str();
  }
};

constexpr size_t MaxNotes = 8;

} // namespace

unsigned printHazards(const ptx::Module &M, llvm::StringRef PtxName,
                      const std::vector<PtxHazard> &Hazards,
                      llvm::raw_ostream &OS) {
  Reporter Rep(M, PtxName, OS);
  for (const PtxHazard &H : Hazards) {
    Event Async = Rep.event(H.Async);
    Rep.warning(H.Async, H.R->Message(Rep.event(H.Accesses.front()), Async),
                H.R->Name);
    Rep.sourceNote(H.Async, std::string(asyncOpName(Async.Op)) +
                                " issued here (" + Async.What + ")");
    for (size_t K = 0; K < H.Accesses.size() && K < MaxNotes; ++K) {
      Event Acc = Rep.event(H.Accesses[K]);
      std::string Note =
          std::string("generic-proxy ") +
          (Acc.Kind == EffectKind::GenericWrite ? "write" : "read") +
          " here (" + Acc.What + ")";
      Rep.note(H.Accesses[K], Note);
      Rep.sourceNote(H.Accesses[K], Note);
    }
    if (H.Accesses.size() > MaxNotes)
      Rep.note(H.Async, "and " + std::to_string(H.Accesses.size() - MaxNotes) +
                            " more generic-proxy accesses reach it");
  }
  return Hazards.size();
}

unsigned printInitHazards(const ptx::Module &M, llvm::StringRef PtxName,
                          const std::vector<PtxInitHazard> &Hazards,
                          bool Cluster, llvm::raw_ostream &OS) {
  Reporter Rep(M, PtxName, OS);
  unsigned Warnings = 0;
  for (size_t I = 0; I < Hazards.size();) {
    size_t End = I;
    while (End < Hazards.size() && Hazards[End].Use == Hazards[I].Use)
      ++End;
    const PtxRef &Use = Hazards[I].Use;
    const std::string &Op = Rep.at(Use).I.Opcode;
    Rep.warning(Use,
                Cluster ? "mbarrier used by another CTA of the cluster "
                          "before its initialisation is visible there: no "
                          "fence.mbarrier_init.release.cluster and cluster "
                          "barrier on the path"
                        : "mbarrier used before its initialisation is "
                          "visible to the CTA: no CTA-wide barrier on the path",
                MbarrierInitRule.Name);
    Rep.sourceNote(Use, "used here (" + Op + ")");
    for (size_t K = I; K < End && K < I + MaxNotes; ++K) {
      std::string Note =
          "initialised here (" + Rep.at(Hazards[K].Init).I.Opcode + ")";
      Rep.note(Hazards[K].Init, Note);
      Rep.sourceNote(Hazards[K].Init, Note);
    }
    if (End - I > MaxNotes)
      Rep.note(Use, "and " + std::to_string(End - I - MaxNotes) +
                        " more mbarrier inits reach it");
    ++Warnings;
    I = End;
  }
  return Warnings;
}


} // namespace proxyfence
