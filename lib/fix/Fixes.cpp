//===- Fixes.cpp - where the fence goes and how it is spelled --------------===//
#include "fix/Fixes.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/StringSwitch.h"
#include <algorithm>
#include <map>

using namespace clang;

namespace proxyfence {

std::optional<FenceStyle> parseFenceStyle(llvm::StringRef S) {
  return llvm::StringSwitch<std::optional<FenceStyle>>(S)
      .Case("auto", FenceStyle::Auto)
      .Case("ptx", FenceStyle::Ptx)
      .Case("cuda-ptx", FenceStyle::CudaPtx)
      .Case("cuda-experimental", FenceStyle::CudaExperimental)
      .Case("cutlass", FenceStyle::Cutlass)
      .Default(std::nullopt);
}

FixPlanner::FixPlanner(ASTContext &Ctx, FenceStyle Style,
                       std::function<bool(SourceLocation)> Editable)
    : Ctx(Ctx), SM(Ctx.getSourceManager()), Style(Style),
      Editable(std::move(Editable)) {}

/// The tcgen05 and tensormap fences: raw PTX, <cuda/ptx>, or CUTLASS (whose
/// own wrappers exist for the tensor-memory waits and tensormap fences; it
/// has none for tcgen05.fence, so raw PTX there).
static std::string orderFenceText(FenceStyle S, FixKind K) {
  bool Ptx = S == FenceStyle::CudaPtx, Cutlass = S == FenceStyle::Cutlass;
  auto raw = [](const char *Insn) {
    return "asm volatile(\"" + std::string(Insn) + "\" ::: \"memory\");";
  };
  switch (K) {
  case FixKind::TmemWaitLd:
    return Ptx       ? "cuda::ptx::tcgen05_wait_ld();"
           : Cutlass ? "cutlass::arch::fence_view_async_tmem_load();"
                     : raw("tcgen05.wait::ld.sync.aligned;");
  case FixKind::TmemWaitSt:
    return Ptx       ? "cuda::ptx::tcgen05_wait_st();"
           : Cutlass ? "cutlass::arch::fence_view_async_tmem_store();"
                     : raw("tcgen05.wait::st.sync.aligned;");
  case FixKind::TmemFenceBefore:
    return Ptx ? "cuda::ptx::tcgen05_fence_before_thread_sync();"
               : raw("tcgen05.fence::before_thread_sync;");
  case FixKind::TmemFenceAfter:
    return Ptx ? "cuda::ptx::tcgen05_fence_after_thread_sync();"
               : raw("tcgen05.fence::after_thread_sync;");
  case FixKind::TensormapRelease:
    return Ptx ? "cuda::ptx::fence_proxy_tensormap_generic(cuda::ptx::sem_"
                 "release, cuda::ptx::scope_gpu);"
           : Cutlass ? "cute::tma_descriptor_fence_release();"
                     : raw("fence.proxy.tensormap::generic.release.gpu;");
  case FixKind::TensormapAcquire:
    return Ptx ? "cuda::ptx::fence_proxy_tensormap_generic(cuda::ptx::sem_"
                 "acquire, cuda::ptx::scope_gpu, {map}, cuda::ptx::n32_t<128>{});"
           : Cutlass ? "cute::tma_descriptor_fence_acquire({map});"
                     : "asm volatile(\"fence.proxy.tensormap::generic.acquire."
                       "gpu [%0], 128;\" :: \"l\"({map}) : \"memory\");";
  default:
    return "";
  }
}

std::string FixPlanner::fenceText(FenceStyle S, FixKind K) const {
  if (std::string T = orderFenceText(S, K); !T.empty())
    return T;
  switch (K) {
  case FixKind::CtaBarrier:
    return "__syncthreads();";
  case FixKind::InitFence:
    // libcu++'s experimental namespace has no init fence: raw PTX there.
    if (S == FenceStyle::CudaPtx)
      return "cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, "
             "cuda::ptx::scope_cluster);";
    if (S == FenceStyle::Cutlass)
      return "cutlass::arch::fence_barrier_init();";
    return "asm volatile(\"fence.mbarrier_init.release.cluster;\" ::: "
           "\"memory\");";
  case FixKind::ClusterBarrier:
    if (S == FenceStyle::CudaPtx)
      return "cuda::ptx::barrier_cluster_arrive(cuda::ptx::sem_relaxed);\n"
             "cuda::ptx::barrier_cluster_wait();";
    if (S == FenceStyle::Cutlass)
      return "cute::cluster_arrive_relaxed();\ncute::cluster_wait();";
    return "asm volatile(\"barrier.cluster.arrive.relaxed.aligned;\" ::: "
           "\"memory\");\n"
           "asm volatile(\"barrier.cluster.wait.aligned;\" ::: \"memory\");";
  case FixKind::ProxyFence:
    break;
  default:
    return "";
  }
  switch (S) {
  case FenceStyle::CudaPtx:
    return "cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);";
  case FenceStyle::CudaExperimental:
    return "cuda::device::experimental::fence_proxy_async_shared_cta();";
  case FenceStyle::Cutlass:
    return "cutlass::arch::fence_view_async_shared();";
  default:
    return "asm volatile(\"fence.proxy.async.shared::cta;\" ::: \"memory\");";
  }
}

FenceStyle FixPlanner::styleAt(SourceLocation Loc) {
  if (Style != FenceStyle::Auto)
    return Style;
  FileID F = SM.getFileID(SM.getExpansionLoc(Loc));
  auto It = Styles.find(F);
  if (It != Styles.end())
    return It->second;
  llvm::StringRef Text = SM.getBufferData(F);
  FenceStyle S = FenceStyle::Ptx;
  // The most specific library the file itself spells wins.
  if (Text.contains("cutlass::") || Text.contains("cute::") ||
      Text.contains("<cutlass/") || Text.contains("\"cutlass/") ||
      Text.contains("<cute/") || Text.contains("\"cute/"))
    S = FenceStyle::Cutlass;
  else if (Text.contains("cuda::ptx::") || Text.contains("<cuda/ptx>"))
    S = FenceStyle::CudaPtx;
  else if (Text.contains("cuda::device::experimental::"))
    S = FenceStyle::CudaExperimental;
  // Only a library the translation unit declares, not one a comment names:
  // a spelling nothing declares does not compile, and the next run would
  // not see it as a fence and insert another.
  if ((S == FenceStyle::Cutlass && !declared({"cutlass"}) && !declared({"cute"})) ||
      (S == FenceStyle::CudaPtx && !declared({"cuda", "ptx"})) ||
      (S == FenceStyle::CudaExperimental &&
       !declared({"cuda", "device", "experimental"})))
    S = FenceStyle::Ptx;
  return Styles[F] = S;
}

const ParentMap &FixPlanner::parents(const FunctionDecl *Fn) {
  auto &PM = ParentMaps[Fn];
  if (!PM)
    PM = std::make_unique<ParentMap>(const_cast<Stmt *>(Fn->getBody()));
  return *PM;
}

static bool isLoop(const Stmt *S) {
  return isa<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt>(S);
}

/// The body statements of a control statement (where a lone statement may
/// stand without braces).
static bool isBodyOf(const Stmt *Child, const Stmt *Parent) {
  if (const auto *If = dyn_cast<IfStmt>(Parent))
    return Child == If->getThen() || Child == If->getElse();
  if (const auto *For = dyn_cast<ForStmt>(Parent))
    return Child == For->getBody();
  if (const auto *While = dyn_cast<WhileStmt>(Parent))
    return Child == While->getBody();
  if (const auto *Do = dyn_cast<DoStmt>(Parent))
    return Child == Do->getBody();
  if (const auto *Range = dyn_cast<CXXForRangeStmt>(Parent))
    return Child == Range->getBody();
  if (const auto *Label = dyn_cast<LabelStmt>(Parent))
    return Child == Label->getSubStmt();
  if (const auto *Case = dyn_cast<SwitchCase>(Parent))
    return Child == Case->getSubStmt();
  return false;
}

const Stmt *FixPlanner::statementOf(StmtRef Ref, bool &NeedsBraces,
                                    std::string &Reason) {
  const ParentMap &PM = parents(Ref.Fn);
  const Stmt *S = Ref.S;
  NeedsBraces = false;
  while (const Stmt *P = PM.getParent(S)) {
    if (isa<CompoundStmt>(P))
      return S;
    if (isa<CaseStmt, DefaultStmt, LabelStmt>(P)) {
      S = P; // a labelled statement moves with its label
      continue;
    }
    if (isBodyOf(S, P)) {
      NeedsBraces = true;
      return S;
    }
    if (isLoop(P)) {
      Reason = "the operation is part of a loop header";
      return nullptr;
    }
    S = P;
  }
  Reason = "no statement to insert before";
  return nullptr;
}

bool FixPlanner::isInside(const Stmt *Inner, const Stmt *Outer,
                          const ParentMap &PM) {
  for (const Stmt *S = Inner; S; S = PM.getParent(S))
    if (S == Outer)
      return true;
  return false;
}

std::vector<PlannedFix> FixPlanner::plan(const std::vector<Finding> &Findings) {
  std::vector<PlannedFix> Out(Findings.size());
  // Insertion point before hoisting -> findings that meet there.
  std::map<const Stmt *, std::vector<size_t>> Groups;
  std::vector<StmtRef> Targets(Findings.size());
  for (size_t I = 0; I < Findings.size(); ++I) {
    const Finding &F = Findings[I];
    // Writers fence before the barrier they cross; where that barrier is
    // outside what may be edited (a header's caller), the issuing thread
    // fences before the async operation.
    bool AtHandoff = F.Handoff && Editable(F.Handoff.S->getBeginLoc());
    StmtRef Target = AtHandoff ? F.Handoff : F.Async.At;
    PlannedFix &P = Out[I];
    P.AtAsync = !AtHandoff;
    P.Before = statementOf(Target, P.NeedsBraces, P.Reason);
    Targets[I] = Target;
    if (P.Before)
      Groups[P.Before].push_back(I);
  }

  for (auto &[Before, Members] : Groups) {
    const Finding &First = Findings[Members.front()];
    const FunctionDecl *Fn = Targets[Members.front()].Fn;
    const ParentMap &PM = parents(Fn);
    // Hoist out of every loop that holds the fence point but none of the
    // writes that reach it (Triton's rule): the fence then runs once.
    const Stmt *Point = Before;
    bool NeedsBraces = Out[Members.front()].NeedsBraces;
    bool Hoisted = false;
    for (const Stmt *S = PM.getParent(Before); S; S = PM.getParent(S)) {
      if (!isLoop(S))
        continue;
      bool WriteInside = false;
      for (size_t I : Members) {
        const Event &Acc = Findings[I].Access;
        WriteInside |= Acc.At.Fn != Fn || isInside(Acc.At.S, S, PM);
      }
      if (WriteInside)
        break;
      bool Braces = false;
      std::string Reason;
      const Stmt *Stmt = statementOf({S, Fn}, Braces, Reason);
      if (!Stmt)
        break;
      Point = Stmt;
      NeedsBraces = Braces;
      Hoisted = true;
    }
    (void)First;

    SourceLocation Loc = Point->getBeginLoc();
    std::string Reason;
    // `store(tmap, fill(tile))`: a fence before the statement would precede
    // the write too, and there is no point between them to put it.
    for (size_t I : Members) {
      const Event &Acc = Findings[I].Access;
      if (Acc.At.Fn == Fn && isInside(Acc.At.S, Point, PM))
        Reason = "the generic-proxy access is part of the statement the fence "
                 "would precede";
    }
    if (Reason.empty())
      if (auto Start = editableStart(Loc, Point->getEndLoc(), Reason))
        Loc = *Start;
    for (size_t I : Members) {
      PlannedFix &P = Out[I];
      if (!Reason.empty()) {
        P.Reason = Reason;
        continue;
      }
      P.Ok = true;
      P.At = Loc;
      P.Before = Point;
      P.NeedsBraces = NeedsBraces;
      P.Hoisted = Hoisted;
      P.FenceText = fenceText(styleAt(Loc));
      if (auto Inc = includeFor(styleAt(Loc)))
        P.Includes.push_back(*Inc);
    }
  }
  return Out;
}

std::optional<SourceLocation>
FixPlanner::editableStart(SourceLocation Loc, SourceLocation End,
                          std::string &Reason) {
  if (Loc.isMacroID()) {
    // A statement that is one whole macro use can be preceded by the fence
    // (and wrapped in braces with it); anything inside a macro body cannot
    // be edited.
    SourceLocation Exp;
    if (!Lexer::isAtStartOfMacroExpansion(Loc, SM, Ctx.getLangOpts(), &Exp) ||
        !Exp.isFileID() ||
        !Lexer::isAtEndOfMacroExpansion(End, SM, Ctx.getLangOpts())) {
      Reason = "the fence point is inside a macro expansion";
      return std::nullopt;
    }
    Loc = Exp;
  }
  if (!Editable(Loc)) {
    Reason = "the fence point is in a system or third-party header";
    return std::nullopt;
  }
  return Loc;
}

unsigned FixPlanner::endOffset(const Stmt *S) {
  // The last token of the statement in the file: for a statement that is one
  // whole macro use, the end of the use, not of the macro name.
  SourceLocation End =
      Lexer::getLocForEndOfToken(SM.getExpansionRange(S->getEndLoc()).getEnd(),
                                 0, SM, Ctx.getLangOpts());
  unsigned Off = SM.getFileOffset(End);
  // An expression statement's ';' is not part of its range.
  llvm::StringRef Text = SM.getBufferData(SM.getFileID(End));
  size_t Semi = Text.find_first_not_of(" \t", Off);
  if (Semi != llvm::StringRef::npos && Text[Semi] == ';')
    Off = Semi + 1;
  return Off;
}

PlannedFix FixPlanner::planAfter(StmtRef S, llvm::ArrayRef<FixKind> Kinds) {
  return planAround(S, Kinds, /*After=*/true);
}

PlannedFix FixPlanner::planBefore(StmtRef S, llvm::ArrayRef<FixKind> Kinds) {
  return planAround(S, Kinds, /*After=*/false);
}

PlannedFix FixPlanner::planAround(StmtRef S, llvm::ArrayRef<FixKind> Kinds,
                                  bool After) {
  PlannedFix P;
  const Stmt *Point = statementOf(S, P.NeedsBraces, P.Reason);
  if (!Point)
    return P;
  std::optional<SourceLocation> Start =
      editableStart(Point->getBeginLoc(), Point->getEndLoc(), P.Reason);
  if (!Start)
    return P;
  FileID F = SM.getFileID(*Start);
  unsigned Off = endOffset(Point);
  if (!P.NeedsBraces) {
    // At the end of the line when only blanks or a comment follow, so the
    // inserted lines come after the comment rather than taking it over.
    llvm::StringRef Text = SM.getBufferData(F);
    size_t Eol = std::min(Text.find('\n', Off), Text.size());
    if (Eol > Off && Text[Eol - 1] == '\r')
      --Eol; // a CRLF line ends at its '\r'
    llvm::StringRef Rest = Text.slice(Off, Eol).ltrim();
    if (Rest.empty() || Rest.starts_with("//"))
      Off = Eol;
  }
  FenceStyle St = styleAt(*Start);
  for (FixKind K : Kinds) {
    P.FenceText += (P.FenceText.empty() ? "" : "\n") + fenceText(St, K);
    if (auto Inc = includeFor(St, K))
      if (llvm::find(P.Includes, *Inc) == P.Includes.end())
        P.Includes.push_back(*Inc);
  }
  P.Ok = true;
  if (!After) {
    P.At = *Start;
    P.Before = Point;
    return P;
  }
  P.At = SM.getComposedLoc(F, Off);
  P.After = Point;
  return P;
}

bool FixPlanner::declared(llvm::ArrayRef<llvm::StringRef> Path) {
  std::vector<const DeclContext *> Scopes{Ctx.getTranslationUnitDecl()};
  for (size_t I = 0; I < Path.size(); ++I) {
    std::vector<const DeclContext *> Next;
    for (size_t K = 0; K < Scopes.size(); ++K) {
      const DeclContext *DC = Scopes[K];
      // Members of inline namespaces (CCCL's ABI namespaces) count too.
      for (const Decl *D : DC->decls())
        if (const auto *NS = dyn_cast<NamespaceDecl>(D))
          if (NS->isInline())
            Scopes.push_back(NS);
      for (const NamedDecl *ND : DC->lookup(&Ctx.Idents.get(Path[I]))) {
        if (I + 1 == Path.size())
          return true;
        if (const auto *NS = dyn_cast<NamespaceDecl>(ND))
          Next.push_back(NS);
      }
    }
    Scopes = std::move(Next);
  }
  return false;
}

std::optional<std::string> FixPlanner::includeFor(FenceStyle S, FixKind K) {
  switch (K) {
  case FixKind::CtaBarrier:
    return std::nullopt;
  case FixKind::TmemWaitLd:
  case FixKind::TmemWaitSt:
  case FixKind::TmemFenceBefore:
  case FixKind::TmemFenceAfter:
  case FixKind::TensormapRelease:
  case FixKind::TensormapAcquire:
    // Spelled only in a library the file already uses (styleAt).
    return std::nullopt;
  case FixKind::InitFence:
    if (S == FenceStyle::CudaPtx &&
        !declared({"cuda", "ptx", "fence_mbarrier_init"}))
      return std::string("<cuda/ptx>");
    if (S == FenceStyle::Cutlass &&
        !declared({"cutlass", "arch", "fence_barrier_init"}))
      return std::string("<cutlass/arch/barrier.h>");
    return std::nullopt;
  case FixKind::ClusterBarrier:
    if (S == FenceStyle::CudaPtx &&
        !declared({"cuda", "ptx", "barrier_cluster_arrive"}))
      return std::string("<cuda/ptx>");
    if (S == FenceStyle::Cutlass &&
        !declared({"cute", "cluster_arrive_relaxed"}))
      return std::string("<cute/arch/cluster_sm90.hpp>");
    return std::nullopt;
  case FixKind::ProxyFence:
    break;
  }
  switch (S) {
  case FenceStyle::CudaPtx:
    if (declared({"cuda", "ptx", "fence_proxy_async"}))
      return std::nullopt;
    return std::string("<cuda/ptx>");
  case FenceStyle::CudaExperimental:
    if (declared({"cuda", "device", "experimental",
                  "fence_proxy_async_shared_cta"}))
      return std::nullopt;
    return std::string("<cuda/barrier>");
  case FenceStyle::Cutlass:
    if (declared({"cutlass", "arch", "fence_view_async_shared"}))
      return std::nullopt;
    return std::string("<cutlass/arch/barrier.h>");
  default:
    return std::nullopt;
  }
}

/// The #include directives of a file: what follows `include` on each, and
/// the offset just past its line. Comments that mention a header do not count.
static std::vector<std::pair<llvm::StringRef, unsigned>>
includeLines(llvm::StringRef Text) {
  std::vector<std::pair<llvm::StringRef, unsigned>> Out;
  unsigned Pos = 0;
  while (Pos < Text.size()) {
    size_t End = Text.find('\n', Pos);
    unsigned Next = End == llvm::StringRef::npos ? Text.size() : End + 1;
    llvm::StringRef T = Text.slice(Pos, Next).ltrim();
    if (T.consume_front("#") && (T = T.ltrim()).consume_front("include"))
      Out.push_back({T.trim(), Next});
    Pos = Next;
  }
  return Out;
}

/// Offset just past the last #include line of a file (0 when none).
static unsigned afterLastInclude(llvm::StringRef Text) {
  auto Lines = includeLines(Text);
  return Lines.empty() ? 0 : Lines.back().second;
}

static bool includes(llvm::StringRef Text, llvm::StringRef Header) {
  for (const auto &[Target, End] : includeLines(Text))
    if (Target.starts_with(Header))
      return true;
  return false;
}

/// The line ending ("\r\n" or "\n") of the line an insertion at \p Off
/// edits, so that inserted lines match their neighbours in CRLF and mixed
/// files: the line holding \p Off, or the line above when \p Off starts a
/// line (an #include added below the last one) or is in an unterminated
/// last line.
static llvm::StringRef lineEndingAt(llvm::StringRef Text, unsigned Off) {
  bool LineStart = Off > 0 && Off <= Text.size() && Text[Off - 1] == '\n';
  size_t Eol = LineStart ? Off - 1 : Text.find('\n', Off);
  if (Eol == llvm::StringRef::npos && Off > 0)
    Eol = Text.rfind('\n', Off - 1);
  return Eol != llvm::StringRef::npos && Eol > 0 && Text[Eol - 1] == '\r'
             ? "\r\n"
             : "\n";
}

void FixPlanner::addReplacements(
    const std::vector<PlannedFix> &Fixes,
    std::map<std::string, tooling::Replacements> &Out) {
  // The texts inserted at each offset of each file, joined at the end:
  // clang's Replacements rejects two different insertions at one offset. A
  // text that several findings share is inserted once.
  std::map<std::pair<std::string, unsigned>, std::vector<std::string>> Inserts;
  // Texts are built with '\n'; \p FileText decides the ending written.
  auto insert = [&](const std::string &Path, unsigned Off, std::string Text,
                    llvm::StringRef FileText) {
    if (lineEndingAt(FileText, Off) == "\r\n") {
      std::string Crlf;
      for (char C : Text)
        Crlf += C == '\n' ? llvm::StringRef("\r\n") : llvm::StringRef(&C, 1);
      Text = std::move(Crlf);
    }
    std::vector<std::string> &Texts = Inserts[{Path, Off}];
    if (llvm::find(Texts, Text) == Texts.end())
      Texts.push_back(std::move(Text));
  };
  // Continuation lines of a multi-line text take the indentation \p Lead.
  auto indented = [](llvm::StringRef Text, llvm::StringRef Lead) {
    std::string Out;
    for (char C : Text) {
      Out += C;
      if (C == '\n')
        Out += Lead;
    }
    return Out;
  };
  // Braced fixes first: a brace closing a lone body must come before lines
  // another fix inserts after the statement that body ends.
  std::vector<const PlannedFix *> Order;
  for (const PlannedFix &P : Fixes)
    if (P.Ok && P.NeedsBraces)
      Order.push_back(&P);
  for (const PlannedFix &P : Fixes)
    if (P.Ok && !P.NeedsBraces)
      Order.push_back(&P);
  for (const PlannedFix *Fix : Order) {
    const PlannedFix &P = *Fix;
    FileID F = SM.getFileID(P.At);
    llvm::StringRef Text = SM.getBufferData(F);
    unsigned Offset = SM.getFileOffset(P.At);
    std::string Path = SM.getFileEntryRefForID(F)->getName().str();
    // Text from the start of the line holding Off up to Off.
    auto lineBefore = [&](unsigned Off) {
      size_t LineStart = Off == 0 ? llvm::StringRef::npos
                                  : Text.rfind('\n', Off - 1);
      LineStart = LineStart == llvm::StringRef::npos ? 0 : LineStart + 1;
      return Text.slice(LineStart, Off);
    };
    if (P.NeedsBraces) {
      std::string OneLine = P.FenceText;
      std::replace(OneLine.begin(), OneLine.end(), '\n', ' ');
      if (P.Before) {
        insert(Path, Offset, "{ " + OneLine + " ", Text);
        insert(Path, endOffset(P.Before), " }", Text);
      } else {
        insert(Path,
               SM.getFileOffset(SM.getExpansionLoc(P.After->getBeginLoc())),
               "{ ", Text);
        insert(Path, Offset, " " + OneLine + " }", Text);
      }
    } else if (P.Before) {
      llvm::StringRef Lead = lineBefore(Offset);
      bool OwnLine = Lead.find_first_not_of(" \t") == llvm::StringRef::npos;
      insert(Path, Offset,
             OwnLine ? indented(P.FenceText, Lead) + "\n" + Lead.str()
                     : P.FenceText + " ",
             Text);
    } else {
      // On new lines below the statement, indented as its first line.
      llvm::StringRef First = lineBefore(
          SM.getFileOffset(SM.getExpansionLoc(P.After->getBeginLoc())));
      llvm::StringRef Lead = First.take_front(First.find_first_not_of(" \t"));
      insert(Path, Offset, "\n" + Lead.str() + indented(P.FenceText, Lead),
             Text);
    }
    for (const std::string &Inc : P.Includes)
      if (!includes(Text, Inc))
        insert(Path, afterLastInclude(Text), "#include " + Inc + "\n", Text);
  }
  for (auto &[Key, Texts] : Inserts) {
    std::string Joined;
    for (const std::string &T : Texts)
      Joined += T;
    llvm::Error E = Out[Key.first].add(
        tooling::Replacement(Key.first, Key.second, 0, Joined));
    llvm::consumeError(std::move(E)); // an edit already there: keep it
  }
}

} // namespace proxyfence
