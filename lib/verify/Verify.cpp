//===- Verify.cpp - recompile, check the PTX, run a harness ---------------===//
#include "support/Files.h"
#include "verify/Verify.h"
#include "analysis/ProxyDataflow.h"
#include "frontend/CompileArgs.h"
#include "verify/Harness.h"
#include "rules/MbarrierInit.h"
#include "verify/PtxCheck.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fcntl.h>
#include <set>
#include <sys/wait.h>
#include <thread>
#include <tuple>
#include <unistd.h>

using namespace clang;
using llvm::StringRef;

namespace proxyfence {

std::string cudaTool(const VerifyOptions &Opts, StringRef Name) {
  llvm::SmallString<256> P(Opts.CudaPath);
  llvm::sys::path::append(P, "bin", Name);
  if (llvm::sys::fs::can_execute(P))
    return std::string(P);
  if (auto Found = llvm::sys::findProgramByName(Name))
    return *Found;
  return "";
}

namespace {

/// The path with symlinks resolved, to compare clang's and nvcc's spellings
/// of a file (`/usr/local/cuda/bin/../targets/...`).
std::string realPath(StringRef P) {
  llvm::SmallString<256> Out;
  if (llvm::sys::fs::real_path(P, Out))
    return absolutePath(P);
  return std::string(Out);
}

std::string plural(unsigned N, StringRef Word) {
  return std::to_string(N) + " " + Word.str() + (N == 1 ? "" : "s");
}


/// The CUDA tools verification runs; cuobjdump and ptxas only for the
/// optional SASS check.
struct Tools {
  std::string Nvcc, Ptxas, Cuobjdump;
  bool SassNoted = false; // said once that SASS is not checked
};

/// Runs \p Args with stdout and stderr into \p Log; the exit code, or -1
/// when it could not run.
int runTool(const std::vector<std::string> &Args, StringRef Log,
            std::string &Why) {
  std::vector<StringRef> Refs(Args.begin(), Args.end());
  std::optional<StringRef> Redirects[] = {StringRef(""), Log, Log};
  bool Failed = false;
  int RC = llvm::sys::ExecuteAndWait(Args[0], Refs, std::nullopt, Redirects,
                                     /*SecondsToWait=*/600, 0, &Why, &Failed);
  return Failed ? -1 : RC;
}

std::string readFile(StringRef Path) {
  auto Buf = llvm::MemoryBuffer::getFile(Path, /*IsText=*/true);
  return Buf ? (*Buf)->getBuffer().str() : "";
}

/// The first lines of a compiler log, indented, for a report.
std::string excerpt(StringRef Log, unsigned MaxLines = 20) {
  std::string Out;
  StringRef Rest = Log.trim();
  for (unsigned N = 0; !Rest.empty() && N < MaxLines; ++N) {
    auto [Line, Tail] = Rest.split('\n');
    Out += "  " + Line.rtrim().str() + "\n";
    Rest = Tail;
  }
  if (!Rest.empty())
    Out += "  ...\n";
  return Out;
}

//===----------------------------------------------------------------------===//
// Layer 3: the harness (Harness.h)
//===----------------------------------------------------------------------===//

/// The fixed code's harness run against the original's, when there is one.
/// \p Shown names the harness in messages.
bool runAndCompare(const std::string &Cmd, const std::string &Shown,
                   llvm::StringRef Name, const HarnessRun *Original,
                   unsigned Timeout, llvm::raw_ostream &Err) {
  Err << "proxyfence: verify: running '" << Shown << "' (timeout " << Timeout
      << " s)\n";
  Err.flush();
  HarnessRun Fixed = runHarness(Cmd, Timeout);
  reportRun(Err, Original ? "fixed: " : "", Shown, Timeout, Fixed);
  if (Original)
    reportComparison(Err, Name, *Original, Fixed);
  return Fixed.ok();
}

//===----------------------------------------------------------------------===//
// Layer 2: the PTX
//===----------------------------------------------------------------------===//

/// Which source lines the PTX instructions come from.
class LineMap {
public:
  explicit LineMap(const ptx::Module &M) : M(M) {
    for (const auto &[N, Path] : M.Files)
      Real[N] = realPath(Path);
  }

  /// Whether the instruction, or a call site it was inlined at, is in
  /// \p File (a real path) on a line in [First, Last].
  bool hits(const ptx::ModuleInstruction &MI, StringRef File, unsigned First,
            unsigned Last) const {
    if (MI.LineInfo < 0)
      return false;
    for (const ptx::SourcePos &P : M.LineInfos[MI.LineInfo]) {
      auto It = Real.find(P.File);
      if (It != Real.end() && It->second == File && P.Line >= First &&
          P.Line <= Last)
        return true;
    }
    return false;
  }

private:
  const ptx::Module &M;
  std::map<unsigned, std::string> Real;
};

/// Lines of the files as they are now (after the fix), with the offsets of
/// the analysis (before it) carried through the edits.
class SourceLines {
public:
  explicit SourceLines(const VerifyUnit &U) : U(U) {}

  struct Range {
    std::string File; // real path
    unsigned First = 0, Last = 0;
  };

  std::optional<Range> lines(const SourceSpan &S) {
    if (S.File.empty())
      return std::nullopt;
    auto [It, New] = Texts.try_emplace(S.File);
    if (New)
      It->second = readFile(S.File);
    const std::string &Text = It->second;
    auto E = U.Edits.find(S.File);
    auto Line = [&](unsigned Off) {
      if (E != U.Edits.end())
        Off = E->second.getShiftedCodePosition(Off);
      Off = std::min<size_t>(Off, Text.size());
      return 1 + unsigned(std::count(Text.begin(), Text.begin() + Off, '\n'));
    };
    return Range{realPath(S.File), Line(S.Begin), Line(S.End)};
  }

private:
  const VerifyUnit &U;
  std::map<std::string, std::string> Texts;
};

using InstrSet = std::vector<std::vector<bool>>; // [function][instruction]

InstrSet emptySet(const ptx::Module &M) {
  InstrSet S;
  for (const ptx::Function &F : M.Functions)
    S.emplace_back(F.Body.size(), false);
  return S;
}

unsigned count(const InstrSet &S) {
  unsigned N = 0;
  for (const auto &F : S)
    N += std::count(F.begin(), F.end(), true);
  return N;
}

/// Instructions with an effect \p Wanted accepts whose line info hits one of
/// \p Ranges.
template <typename Pred>
InstrSet instructionsAt(const ptx::Module &M, const LineMap &Lines,
                        const std::vector<SourceLines::Range> &Ranges,
                        Pred Wanted) {
  InstrSet S = emptySet(M);
  for (size_t F = 0; F < M.Functions.size(); ++F)
    for (size_t I = 0; I < M.Functions[F].Body.size(); ++I) {
      const ptx::ModuleInstruction &MI = M.Functions[F].Body[I];
      if (llvm::none_of(Ranges, [&](const SourceLines::Range &R) {
            return Lines.hits(MI, R.File, R.First, R.Last);
          }))
        continue;
      for (const ptx::Effect &E : ptx::classify(MI.I))
        if (Wanted(ptxEvent(MI.I, E)))
          S[F][I] = true;
    }
  return S;
}

PtxCheckOptions restrictTo(const Rule *R, const InstrSet &Access,
                           const InstrSet &Async) {
  PtxCheckOptions O;
  if (R)
    O.Rules.push_back(R);
  O.Access = [&Access](unsigned F, unsigned I) { return bool(Access[F][I]); };
  O.Async = [&Async](unsigned F, unsigned I) { return bool(Async[F][I]); };
  return O;
}

//===----------------------------------------------------------------------===//
// Optional: SASS, on machines with cuobjdump
//===----------------------------------------------------------------------===//

/// The SASS mnemonic an async operation becomes; empty when not checked.
StringRef sassMnemonic(AsyncOp Op) {
  switch (Op) {
  case AsyncOp::TensorStore:
    return "UTMASTG";
  case AsyncOp::BulkStore:
    return "UBLKCP.G.S"; // UBLKCP.S.G is a load
  case AsyncOp::Wgmma:
    return "HGMMA";
  default:
    return "";
  }
}

/// Per function of `cuobjdump -sass` output, its instruction mnemonics.
std::map<std::string, std::vector<std::string>> parseSass(StringRef Text) {
  std::map<std::string, std::vector<std::string>> Fns;
  std::vector<std::string> *Cur = nullptr;
  for (StringRef Rest = Text; !Rest.empty();) {
    auto [Line, Tail] = Rest.split('\n');
    Rest = Tail;
    Line = Line.trim();
    if (Line.consume_front("Function :")) {
      Cur = &Fns[Line.trim().str()];
      continue;
    }
    // "/*0090*/                   @P0 UBLKCP.G.S [UR4], [UR6], UR8 ;"
    if (!Cur || !Line.consume_front("/*"))
      continue;
    size_t Close = Line.find("*/");
    if (Close == StringRef::npos)
      continue;
    Line = Line.substr(Close + 2).trim();
    if (Line.starts_with("@"))
      Line = Line.drop_until([](char C) { return C == ' '; }).trim();
    StringRef Mnemonic =
        Line.take_until([](char C) { return C == ' ' || C == ';'; });
    if (!Mnemonic.empty())
      Cur->push_back(Mnemonic.str());
  }
  return Fns;
}

struct SassTarget {
  std::string Function;
  AsyncOp Op;
  bool PtxFences; // the PTX function itself holds a proxy fence
  bool operator<(const SassTarget &O) const {
    return std::tie(Function, Op) < std::tie(O.Function, O.Op);
  }
};

/// Function-level text order: each async op of a target needs a
/// FENCE.VIEW.ASYNC.S earlier in its function. Returns false when a target
/// function whose PTX fences has no such fence at all (ptxas dropped it).
bool checkSass(Tools &T, StringRef Name, StringRef Arch, StringRef PtxPath,
               StringRef Dir, const std::set<SassTarget> &Targets,
               llvm::raw_ostream &Out, llvm::raw_ostream &Err) {
  auto err = [&]() -> llvm::raw_ostream & {
    Out.flush();
    return Err;
  };
  if (T.Cuobjdump.empty() || T.Ptxas.empty()) {
    if (!T.SassNoted)
      err() << "proxyfence: verify: note: cuobjdump not found; SASS not "
               "checked (the PTX check is the path check)\n";
    T.SassNoted = true;
    return true;
  }
  llvm::SmallString<256> Cubin(Dir), Log(Dir), Sass(Dir);
  llvm::sys::path::append(Cubin, "sass.cubin");
  llvm::sys::path::append(Log, "ptxas.log");
  llvm::sys::path::append(Sass, "sass.txt");
  std::string Why;
  if (runTool({T.Ptxas, "-arch=" + Arch.str(), PtxPath.str(), "-o",
               std::string(Cubin)},
              Log, Why) != 0) {
    err() << "proxyfence: verify: " << Name
          << ": FAILED: ptxas rejects the PTX "
          << "nvcc wrote:\n"
          << excerpt(readFile(Log) + Why);
    return false;
  }
  if (runTool({T.Cuobjdump, "-sass", std::string(Cubin)}, Sass, Why) != 0) {
    err() << "proxyfence: verify: " << Name << ": note: cuobjdump failed; SASS "
          << "not checked\n";
    return true;
  }
  auto Fns = parseSass(readFile(Sass));
  std::map<std::string, std::pair<unsigned, unsigned>> Counts; // covered/all
  bool Ok = true;
  for (const SassTarget &Tg : Targets) {
    StringRef Mn = sassMnemonic(Tg.Op);
    auto F = Fns.find(Tg.Function);
    if (Mn.empty() || F == Fns.end())
      continue;
    bool Fenced = false, AnyFence = false;
    for (const std::string &I : F->second) {
      if (StringRef(I).starts_with("FENCE.VIEW.ASYNC.S"))
        Fenced = AnyFence = true;
      else if (StringRef(I).starts_with(Mn)) {
        auto &[Covered, All] = Counts[Mn.str()];
        ++All;
        Covered += Fenced;
      }
    }
    if (!AnyFence && Tg.PtxFences) {
      err() << "proxyfence: verify: " << Name << ": FAILED: no "
            << "FENCE.VIEW.ASYNC.S in the SASS of '" << Tg.Function
            << "', though its PTX fences every path\n";
      Ok = false;
    }
  }
  for (const auto &[Mn, C] : Counts)
    Out << "proxyfence: verify: " << Name << ": SASS: " << C.first << " of "
        << C.second << " " << Mn << " preceded by FENCE.VIEW.ASYNC.S (text "
        << "order within each function, not a path check)\n";
  return Ok;
}

//===----------------------------------------------------------------------===//
// One translation unit, layer by layer
//===----------------------------------------------------------------------===//

/// What the layers of one unit's verification share.
struct UnitContext {
  const VerifyUnit &U;
  const VerifyOptions &Opts;
  Tools &T;
  llvm::raw_ostream &Out, &Err;
  std::string Arch;
  llvm::SmallString<256> Dir; // the temporary directory
  std::string PtxPath;
  bool Keep = false; // keep the PTX for a failure report

  /// Messages in order with what went to Out before.
  llvm::raw_ostream &err() {
    Out.flush();
    return Err;
  }
};

/// Layer 2: the PTX nvcc wrote, checked for the file (no findings known) or
/// finding by finding; then, where cuobjdump exists, the SASS.
class PtxLayer {
public:
  explicit PtxLayer(UnitContext &C)
      : C(C), U(C.U), Opts(C.Opts), Out(C.Out), Arch(C.Arch),
        PtxPath(C.PtxPath), Keep(C.Keep) {}

  bool check(const ptx::Module &M) {
    bool Ok = U.Sites.empty() ? checkFile(M) : checkFindings(M);
    if (Ok && !Targets.empty())
      Ok = checkSass(C.T, U.Name, Arch, PtxPath, C.Dir, Targets, Out, C.Err);
    if (Ok)
      Out << Verdict;
    return Ok;
  }

private:
  UnitContext &C;
  const VerifyUnit &U;
  const VerifyOptions &Opts;
  llvm::raw_ostream &Out;
  const std::string &Arch, &PtxPath;
  bool &Keep;
  std::string Verdict; // printed once every check passed

  llvm::raw_ostream &err() { return C.err(); }

  std::string where(const SourceSpan &S, unsigned Line) const {
    return (S.File == U.File ? U.Name : S.File) + ":" + std::to_string(Line);
  }

  std::set<SassTarget> Targets;

  /// The paths when fences are ignored: which async operations need one.
  static std::vector<PtxHazard> unfencedPaths(const ptx::Module &M,
                                              PtxCheckOptions O) {
    O.IgnoreFences = true;
    return checkModule(M, O);
  }

  /// The async operations of \p Paths, for the SASS check.
  void addTargets(const ptx::Module &M, const std::vector<PtxHazard> &Paths) {
    for (const PtxHazard &H : Paths) {
      const ptx::Function &F = M.Functions[H.Async.Fn];
      bool Fences = llvm::any_of(F.Body, [](const ptx::ModuleInstruction &MI) {
        return llvm::any_of(ptx::classify(MI.I), [](const ptx::Effect &E) {
          return E.Kind == EffectKind::ProxyFence;
        });
      });
      Targets.insert(
          {F.Name, ptx::classify(F.Body[H.Async.Index].I).at(H.Async.Effect).Op,
           Fences});
    }
  }

  bool ruleEnabled(llvm::StringRef Name) const {
    return !llvm::is_contained(Opts.DisabledRules, Name);
  }

  /// No findings known: every access to every async operation of the file,
  /// and every mbarrier init to every use by another CTA.
  bool checkFile(const ptx::Module &M) {
    LineMap Lines(M);
    std::vector<SourceLines::Range> File{{realPath(U.File), 1, ~0u}};
    InstrSet Access = instructionsAt(M, Lines, File, isAccessEvent);
    InstrSet Async = instructionsAt(M, Lines, File, isAsyncEvent);
    PtxCheckOptions O = restrictTo(nullptr, Access, Async);
    for (const Rule *R : proxyRules())
      if (ruleEnabled(R->Name))
        O.Rules.push_back(R);
    unsigned Unfenced = 0, Unpublished = 0;
    if (!O.Rules.empty()) {
      std::vector<PtxHazard> H = checkModule(M, O);
      Unfenced = printHazards(M, PtxPath, H, Out);
      if (H.empty())
        addTargets(M, unfencedPaths(M, O));
    }
    InstrSet Inits = instructionsAt(M, Lines, File, [](const Event &E) {
      return E.Kind == EffectKind::MbarrierInit;
    });
    InstrSet Remote = instructionsAt(M, Lines, File, isRemoteBarrierUse);
    bool InitRule = ruleEnabled(MbarrierInitRule.Name);
    if (InitRule) {
      InitCheckOptions IO;
      IO.Init = [&Inits](unsigned F, unsigned I) { return bool(Inits[F][I]); };
      IO.Use = [&Remote](unsigned F, unsigned I) { return bool(Remote[F][I]); };
      Unpublished = printInitHazards(M, PtxPath, checkInitPublication(M, IO),
                                     /*Cluster=*/true, Out);
    }
    if (Unfenced || Unpublished) {
      Keep = true;
      std::vector<std::string> Why;
      if (Unfenced)
        Why.push_back(plural(Unfenced, "async-proxy operation") +
                      " reached by generic-proxy accesses with no fence");
      if (Unpublished)
        Why.push_back(plural(Unpublished, "cross-CTA mbarrier use") +
                      " reached before the init is published");
      err() << "proxyfence: verify: " << U.Name
            << ": FAILED: " << llvm::join(Why, "; ") << " in the PTX\n";
      return false;
    }
    unsigned Ops = O.Rules.empty() ? 0 : count(Async);
    unsigned Uses = InitRule && count(Inits) ? count(Remote) : 0;
    if (Ops == 0 && Uses == 0) {
      Out << "proxyfence: verify: " << U.Name << ": no async-proxy operation "
          << "or cross-CTA mbarrier use in the PTX for " << Arch
          << "; nothing to check\n";
      return true;
    }
    std::string What = plural(Ops, "async-proxy operation");
    if (Uses)
      What =
          (Ops ? What + " and " : "") + plural(Uses, "cross-CTA mbarrier use");
    Verdict = "verified: " + U.Name + ": fence present on every path in PTX (" +
              What + " checked)\n";
    return true;
  }

  static bool isAccessEvent(const Event &E) {
    return E.Kind == EffectKind::GenericWrite ||
           E.Kind == EffectKind::GenericRead;
  }
  static bool isAsyncEvent(const Event &E) {
    return E.Kind == EffectKind::AsyncRead || E.Kind == EffectKind::AsyncWrite;
  }

  enum class Outcome { Verified, Failed, Unchecked };

  /// The lines of one span kind over a group's sites.
  std::vector<SourceLines::Range>
  rangesOf(SourceLines &Src, const std::vector<const VerifySite *> &G,
           SourceSpan VerifySite::*Which) {
    std::vector<SourceLines::Range> V;
    for (const VerifySite *S : G)
      if (auto L = Src.lines(S->*Which))
        V.push_back(*L);
    return V;
  }

  /// Instructions of the spans \p Stmt (the statements), else of \p Op
  /// (where the operation is written: a callee nvcc did not inline).
  template <typename Pred>
  InstrSet selectSite(const ptx::Module &M, const LineMap &Lines,
                      SourceLines &Src,
                      const std::vector<const VerifySite *> &G,
                      SourceSpan VerifySite::*Stmt, SourceSpan VerifySite::*Op,
                      Pred Wanted) {
    InstrSet S = instructionsAt(M, Lines, rangesOf(Src, G, Stmt), Wanted);
    if (!count(S))
      S = instructionsAt(M, Lines, rangesOf(Src, G, Op), Wanted);
    return S;
  }

  Outcome checkProxyGroup(const ptx::Module &M, const LineMap &Lines,
                          SourceLines &Src,
                          const std::vector<const VerifySite *> &G,
                          const std::string &Here) {
    const Rule *R = findRule(G.front()->Rule);
    if (!R) // a rule of another build: nothing to check it with
      return Outcome::Unchecked;
    InstrSet Async = selectSite(
        M, Lines, Src, G, &VerifySite::Async, &VerifySite::AsyncOp,
        [R](const Event &E) { return isAsyncEvent(E) && R->MatchesAsync(E); });
    if (!count(Async)) {
      Out << Here << ": note: the async-proxy operation of this finding is not "
          << "in the PTX for " << Arch << " (compiled out?); not checked\n";
      return Outcome::Unchecked;
    }
    auto AccessWanted = [R](const Event &E) {
      return isAccessEvent(E) && R->MatchesAccess(E.Kind);
    };
    InstrSet Access = selectSite(M, Lines, Src, G, &VerifySite::Access,
                                 &VerifySite::AccessOp, AccessWanted);
    if (!count(Access)) {
      // The compiler merged or moved the access: every access of the file
      // must then be fenced before the operation (stricter).
      Out << Here << ": note: no PTX instruction maps to the generic-proxy "
          << "access of this finding; checking every access of the file "
          << "instead\n";
      Access =
          instructionsAt(M, Lines, {{realPath(U.File), 1, ~0u}}, AccessWanted);
    }
    PtxCheckOptions O = restrictTo(R, Access, Async);
    std::vector<PtxHazard> H = checkModule(M, O);
    if (!H.empty()) {
      printHazards(M, PtxPath, H, Out);
      err() << Here << ": error: verify FAILED: a PTX path from the generic-"
            << "proxy access of this finding reaches its async-proxy operation "
            << "with no fence.proxy.async [" << R->Name << "]\n";
      return Outcome::Failed;
    }
    // No unfenced path proves nothing when there is no path at all.
    std::vector<PtxHazard> Paths = unfencedPaths(M, O);
    if (Paths.empty()) {
      Out << Here << ": note: no path in the PTX leads from the generic-proxy "
          << "access of this finding to its async-proxy operation, even "
          << "ignoring fences; not checked\n";
      return Outcome::Unchecked;
    }
    addTargets(M, Paths);
    return Outcome::Verified;
  }

  Outcome checkInitGroup(const ptx::Module &M, const LineMap &Lines,
                         SourceLines &Src,
                         const std::vector<const VerifySite *> &G,
                         const std::string &Here) {
    if (G.front()->Kind == VerifySite::InitAsync) {
      Out << Here << ": note: the strict-mode mbarrier-init finding (an "
          << "async-proxy use without fence.proxy.async) is not checked in "
          << "PTX\n";
      return Outcome::Unchecked;
    }
    bool Cluster = G.front()->Kind == VerifySite::InitCluster;
    InstrSet Inits = selectSite(
        M, Lines, Src, G, &VerifySite::Access, &VerifySite::AccessOp,
        [](const Event &E) { return E.Kind == EffectKind::MbarrierInit; });
    InstrSet Uses =
        selectSite(M, Lines, Src, G, &VerifySite::Async, &VerifySite::AsyncOp,
                   [](const Event &) { return true; });
    if (!count(Inits) || !count(Uses)) {
      Out << Here << ": note: the mbarrier.init of this finding or its uses "
          << "are not in the PTX for " << Arch << "; not checked\n";
      return Outcome::Unchecked;
    }
    InitCheckOptions IO;
    IO.Cluster = Cluster;
    IO.Init = [&Inits](unsigned F, unsigned I) { return bool(Inits[F][I]); };
    IO.Use = [&Uses](unsigned F, unsigned I) { return bool(Uses[F][I]); };
    std::vector<PtxInitHazard> H = checkInitPublication(M, IO);
    if (!H.empty()) {
      printInitHazards(M, PtxPath, H, Cluster, Out);
      err() << Here << ": error: verify FAILED: a PTX path from the "
            << "mbarrier.init of this finding reaches a use before the init "
            << "is published [" << MbarrierInitRule.Name << "]\n";
      return Outcome::Failed;
    }
    IO.IgnorePublication = true;
    if (checkInitPublication(M, IO).empty()) {
      Out << Here << ": note: no path in the PTX leads from the mbarrier.init "
          << "of this finding to its uses; not checked\n";
      return Outcome::Unchecked;
    }
    return Outcome::Verified;
  }

  /// The findings of the analysis before fixing: one check per warning.
  bool checkFindings(const ptx::Module &M) {
    LineMap Lines(M);
    SourceLines Src(U);
    std::vector<std::string> Order;
    std::map<std::string, std::vector<const VerifySite *>> Groups;
    for (const VerifySite &S : U.Sites) {
      auto &G = Groups[S.Group];
      if (G.empty())
        Order.push_back(S.Group);
      G.push_back(&S);
    }
    unsigned Verified = 0, Failed = 0, Unchecked = 0, Unfixed = 0;
    for (const std::string &Key : Order) {
      const std::vector<const VerifySite *> &G = Groups[Key];
      if (llvm::any_of(G, [](const VerifySite *S) { return !S->Fixed; })) {
        ++Unfixed;
        continue;
      }
      // Where the finding's warning is: the async operation, or the init.
      bool Proxy = G.front()->Kind == VerifySite::Proxy;
      const SourceSpan &At = Proxy ? G.front()->Async : G.front()->Access;
      auto Line = Src.lines(At);
      std::string Here = where(At, Line ? Line->First : 0);
      Outcome R = Proxy ? checkProxyGroup(M, Lines, Src, G, Here)
                        : checkInitGroup(M, Lines, Src, G, Here);
      Verified += R == Outcome::Verified;
      Failed += R == Outcome::Failed;
      Unchecked += R == Outcome::Unchecked;
    }
    if (Failed)
      Keep = true;

    unsigned Checked = Order.size() - Unfixed;
    if (Unfixed)
      Out << "proxyfence: verify: " << U.Name << ": "
          << plural(Unfixed, "finding") << " without an automatic fix not "
          << "verified\n";
    if (Failed) {
      err() << "proxyfence: verify: " << U.Name << ": FAILED: " << Failed
            << " of " << plural(Checked, "finding")
            << " not fixed on every path in PTX\n";
      return false;
    }
    if (Checked == 0)
      return true;
    if (Unchecked == 0)
      Verdict = "verified: " + U.Name + ": " + plural(Checked, "finding") +
                ", fence present on every path in PTX\n";
    else
      Verdict = "verified: " + U.Name + ": " + std::to_string(Verified) +
                " of " + plural(Checked, "finding") +
                ", fence present on every path in PTX; " +
                std::to_string(Unchecked) + " not checked (see the notes)\n";
    return true;
  }
};

/// Layer 3 without --run: a file with a main() is its own harness.
class HarnessLayer {
public:
  explicit HarnessLayer(UnitContext &C)
      : C(C), U(C.U), Opts(C.Opts), T(C.T), Arch(C.Arch), Dir(C.Dir) {}

  /// A file with a main() carries its own harness: build and run the fixed
  /// file and, when this run rewrote it, the original, and compare them.
  bool run() {
    bool NoMain = false;
    std::string Fixed = buildExecutable(U.File, "fixed", "", NoMain);
    if (NoMain) {
      err() << "proxyfence: verify: " << U.Name << ": no harness to run (the "
            << "file has no main()); give one with --run\n";
      return true;
    }
    if (Fixed.empty())
      return false;
    unsigned Timeout = Opts.RunTimeout;
    std::optional<HarnessRun> Original;
    auto Text = U.Originals.find(U.File);
    bool OnlyThisFile = llvm::all_of(U.Edits, [&](const auto &E) {
      return E.first == U.File || E.second.empty();
    });
    if (Text != U.Originals.end() && !OnlyThisFile)
      err() << "proxyfence: verify: " << U.Name << ": no run of the original: "
            << "the fixes also changed headers it includes\n";
    if (Text != U.Originals.end() && OnlyThisFile) {
      llvm::SmallString<256> Copy(Dir);
      llvm::sys::path::append(Copy, "src");
      llvm::sys::fs::create_directory(Copy);
      llvm::sys::path::append(Copy, llvm::sys::path::filename(U.File));
      std::error_code EC;
      llvm::raw_fd_ostream OS(Copy, EC);
      OS << Text->second;
      OS.close();
      std::string Exe =
          EC ? "" : buildExecutable(Copy, "original", 
                                    llvm::sys::path::parent_path(U.File), NoMain);
      if (!Exe.empty()) {
        std::string Shown = U.Name + " (main(), original)";
        err() << "proxyfence: verify: running '" << Shown << "' (timeout "
              << Timeout << " s)\n";
        Original = runHarness(Exe, Timeout);
        reportRun(err(), "original: ", Shown, Timeout, *Original);
      }
    }
    return runAndCompare(Fixed, U.Name + " (main()" +
                                    (Original ? ", fixed)" : ")"),
                         U.Name, Original ? &*Original : nullptr, Timeout,
                         err());
  }

private:
  UnitContext &C;
  const VerifyUnit &U;
  const VerifyOptions &Opts;
  Tools &T;
  const std::string &Arch;
  const llvm::SmallString<256> &Dir;

  llvm::raw_ostream &err() { return C.err(); }

  /// Builds \p Src into an executable in the temporary directory; empty
  /// when it does not build. \p NoMain: it failed only for want of main().
  std::string buildExecutable(StringRef Src, StringRef Tag,
                              StringRef IncludeDir, bool &NoMain) {
    llvm::SmallString<256> Exe(Dir), Log(Dir);
    llvm::sys::path::append(Exe, Tag);
    llvm::sys::path::append(Log, Tag + ".build.log");
    DeviceOptions DO{Opts.Arch, Opts.CudaPath};
    std::vector<std::string> Cmd = nvccExecutableCommand(U.Command, Src, DO, Exe);
    Cmd[0] = T.Nvcc;
    if (!IncludeDir.empty()) // the copy's quoted includes: the original's dir
      Cmd.insert(Cmd.begin() + 1, {"-I", IncludeDir.str()});
    std::string Why;
    int RC = runTool(Cmd, Log, Why);
    if (RC == 0)
      return std::string(Exe);
    std::string Text = readFile(Log) + Why;
    NoMain = StringRef(Text).contains("undefined reference to `main'");
    if (!NoMain)
      err() << "proxyfence: verify: " << U.Name
            << (Tag == "fixed" ? ": FAILED: the fixed" : ": the original")
            << " harness does not build with nvcc for " << Arch << ":\n"
            << excerpt(Text);
    return "";
  }
};

class UnitVerifier {
public:
  UnitVerifier(const VerifyUnit &U, const VerifyOptions &Opts, Tools &T,
               llvm::raw_ostream &Out, llvm::raw_ostream &Err)
      : C{U, Opts, T, Out, Err, targetArch(U.Command, Opts.Arch)}, U(U),
        Opts(Opts), T(T), Arch(C.Arch), Dir(C.Dir), PtxPath(C.PtxPath),
        Keep(C.Keep) {}

  /// Findings whose fix was undone.
  unsigned RolledBack = 0;

  /// Layers 1 and 2; then, with \p OwnHarness, layer 3 on the file's own
  /// harness if it has one.
  bool run(bool OwnHarness) {
    if (std::error_code EC =
            llvm::sys::fs::createUniqueDirectory("proxyfence-verify", Dir)) {
      err() << "proxyfence: verify: error: cannot create a temporary "
            << "directory: " << EC.message() << "\n";
      return false;
    }
    bool Ok = verify();
    if (Ok && OwnHarness)
      Ok = HarnessLayer(C).run();
    if (Keep)
      err() << "proxyfence: verify: " << U.Name << ": PTX kept at " << PtxPath
            << "\n";
    else
      llvm::sys::fs::remove_directories(Dir);
    return Ok;
  }

private:
  UnitContext C;
  const VerifyUnit &U;
  const VerifyOptions &Opts;
  Tools &T;
  const std::string &Arch;
  llvm::SmallString<256> &Dir;
  std::string &PtxPath;
  bool &Keep;

  llvm::raw_ostream &err() { return C.err(); }

  /// Layer 1: nvcc compiles the file to PTX (a fixed file that no longer
  /// compiles is rolled back); then layer 2 checks that PTX.
  bool verify() {
    llvm::SmallString<256> Ptx(Dir), Log(Dir);
    llvm::sys::path::append(Ptx, llvm::sys::path::stem(U.File) + ".ptx");
    llvm::sys::path::append(Log, "nvcc.log");
    PtxPath = std::string(Ptx);
    DeviceOptions DO{Opts.Arch, Opts.CudaPath};
    std::vector<std::string> Cmd = nvccPtxCommand(U.Command, U.File, DO, Ptx);
    Cmd[0] = T.Nvcc;
    std::string Why;
    int RC = runTool(Cmd, Log, Why);
    if (RC != 0) {
      std::string Text = readFile(Log);
      if (RC < 0)
        Text += Why;
      if (U.Originals.empty()) {
        err() << "proxyfence: verify: " << U.Name << ": FAILED: does not "
              << "compile with nvcc for " << Arch << ":\n"
              << excerpt(Text);
      } else {
        err() << "proxyfence: verify: " << U.Name << ": FAILED: the fixed "
              << "file does not compile with nvcc for " << Arch << ":\n"
              << excerpt(Text);
        rollBack();
      }
      return false;
    }
    auto Buf = llvm::MemoryBuffer::getFile(Ptx, /*IsText=*/true);
    if (!Buf) {
      err() << "proxyfence: verify: " << U.Name << ": FAILED: nvcc wrote no "
            << "PTX\n";
      return false;
    }
    auto Mod = ptx::parseModule((*Buf)->getBuffer());
    if (!Mod) {
      Keep = true;
      err() << "proxyfence: verify: " << U.Name << ": FAILED: cannot read the "
            << "PTX nvcc wrote: " << llvm::toString(Mod.takeError()) << "\n";
      return false;
    }
    return PtxLayer(C).check(*Mod);
  }

  void rollBack() {
    bool Restored = true;
    for (const auto &[Path, Original] : U.Originals) {
      auto E = U.Edits.find(Path);
      if (E == U.Edits.end())
        continue;
      auto Written = tooling::applyAllReplacements(Original, E->second);
      llvm::Error Failed = Written
                               ? writeFileAtomically(Path, *Written, Original)
                               : Written.takeError();
      if (Failed) {
        Restored = false;
        err() << "proxyfence: verify: error: cannot restore '" << Path
              << "': " << llvm::toString(std::move(Failed)) << "\n";
      }
    }
    if (Restored)
      err() << "proxyfence: verify: " << U.Name
            << ": fix rolled back (original restored)\n";
    std::set<std::string> Groups;
    for (const VerifySite &S : U.Sites)
      if (S.Fixed)
        Groups.insert(S.Group);
    RolledBack = Groups.size();
  }
};

} // namespace


std::optional<HarnessRun> runBaseline(const VerifyOptions &V,
                                      llvm::raw_ostream &Err) {
  if (!V.Enabled || V.Run.empty() || !gpuPresent())
    return std::nullopt;
  Err << "proxyfence: verify: running '" << V.Run << "' on the original code, "
      << "before the fixes are written (timeout " << V.RunTimeout << " s)\n";
  Err.flush();
  HarnessRun R = runHarness(V.Run, V.RunTimeout);
  reportRun(Err, "original: ", V.Run, V.RunTimeout, R);
  return R;
}

VerifyTotals verifyFixes(const std::vector<VerifyUnit> &Units,
                         const VerifyOptions &Opts, llvm::raw_ostream &Out,
                         llvm::raw_ostream &Err, const HarnessRun *Baseline) {
  auto err = [&]() -> llvm::raw_ostream & {
    Out.flush();
    return Err;
  };
  VerifyTotals Totals;
  Tools T{cudaTool(Opts, "nvcc"), cudaTool(Opts, "ptxas"),
          cudaTool(Opts, "cuobjdump")};
  if (T.Nvcc.empty()) {
    err() << "proxyfence: verify: error: nvcc not found (in '" << Opts.CudaPath
          << "/bin' or PATH); cannot verify\n";
    Totals.Failed = true;
    return Totals;
  }
  const std::string &Run = Opts.Run;
  bool Gpu = gpuPresent();
  for (const VerifyUnit &U : Units) {
    UnitVerifier V(U, U.Options ? *U.Options : Opts, T, Out, Err);
    Totals.Failed |= !V.run(/*OwnHarness=*/Gpu && Run.empty());
    Totals.RolledBack += V.RolledBack;
    Out.flush();
  }
  if (!Run.empty() && Totals.Failed)
    err() << "proxyfence: verify: run step not attempted: compile or PTX "
             "check failed\n";
  else if (!Gpu)
    err() << "proxyfence: verify: no GPU present; run step skipped (compile "
             "and PTX checks still ran)\n";
  else if (!Run.empty())
    Totals.Failed |= !runAndCompare(Run, Run, "harness", Baseline,
                                    Opts.RunTimeout, err());
  return Totals;
}


} // namespace proxyfence
