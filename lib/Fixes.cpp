//===- Fixes.cpp - where the fence goes and how it is spelled --------------===//
#include "proxyfence/Fixes.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/StringSwitch.h"
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

std::string FixPlanner::fenceText(FenceStyle S) const {
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
    StmtRef Target = F.Handoff ? F.Handoff : F.Async.At;
    PlannedFix &P = Out[I];
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
    if (Loc.isMacroID()) {
      // A statement that is one whole macro use can be preceded by the fence;
      // anything inside a macro body cannot be edited.
      SourceLocation Exp;
      if (!NeedsBraces &&
          Lexer::isAtStartOfMacroExpansion(Loc, SM, Ctx.getLangOpts(), &Exp) &&
          Exp.isFileID() &&
          Lexer::isAtEndOfMacroExpansion(
              Point->getEndLoc(), SM, Ctx.getLangOpts()))
        Loc = Exp;
      else
        Reason = "the fence point is inside a macro expansion";
    }
    if (Reason.empty() && !Editable(Loc))
      Reason = "the fence point is in a system or third-party header";
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
    }
  }
  return Out;
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

std::optional<std::string> FixPlanner::includeFor(FenceStyle S) {
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

/// Offset just past the last #include line of a file (0 when none).
static unsigned afterLastInclude(llvm::StringRef Text) {
  unsigned Pos = 0, Best = 0;
  while (Pos < Text.size()) {
    size_t End = Text.find('\n', Pos);
    llvm::StringRef Line =
        Text.slice(Pos, End == llvm::StringRef::npos ? Text.size() : End);
    llvm::StringRef T = Line.ltrim();
    if (T.consume_front("#") && T.ltrim().starts_with("include"))
      Best = End == llvm::StringRef::npos ? Text.size() : End + 1;
    if (End == llvm::StringRef::npos)
      break;
    Pos = End + 1;
  }
  return Best;
}

void FixPlanner::addReplacements(
    const std::vector<PlannedFix> &Fixes,
    std::map<std::string, tooling::Replacements> &Out) {
  std::set<unsigned> Done; // raw encodings of insertion points
  std::set<std::pair<FileID, std::string>> Includes;
  const LangOptions &LO = Ctx.getLangOpts();
  for (const PlannedFix &P : Fixes) {
    if (!P.Ok || !Done.insert(P.At.getRawEncoding()).second)
      continue;
    FileID F = SM.getFileID(P.At);
    llvm::StringRef Text = SM.getBufferData(F);
    unsigned Offset = SM.getFileOffset(P.At);
    std::string Path = SM.getFileEntryRefForID(F)->getName().str();
    auto add = [&](unsigned Off, unsigned Len, std::string Repl) {
      llvm::Error E = Out[Path].add(
          tooling::Replacement(Path, Off, Len, std::move(Repl)));
      llvm::consumeError(std::move(E)); // same point twice: keep one
    };
    if (P.NeedsBraces) {
      SourceLocation End =
          Lexer::getLocForEndOfToken(SM.getExpansionLoc(P.Before->getEndLoc()),
                                     0, SM, LO);
      unsigned EndOff = SM.getFileOffset(End);
      // An expression statement's ';' is not part of its range.
      size_t Semi = Text.find_first_not_of(" \t", EndOff);
      if (Semi != llvm::StringRef::npos && Text[Semi] == ';')
        EndOff = Semi + 1;
      add(Offset, 0, "{ " + P.FenceText + " ");
      add(EndOff, 0, " }");
    } else {
      size_t LineStart = Text.rfind('\n', Offset ? Offset - 1 : 0);
      LineStart = LineStart == llvm::StringRef::npos || Offset == 0
                      ? 0
                      : LineStart + 1;
      llvm::StringRef Lead = Text.slice(LineStart, Offset);
      bool OwnLine = Lead.find_first_not_of(" \t") == llvm::StringRef::npos;
      add(Offset, 0,
          OwnLine ? P.FenceText + "\n" + Lead.str() : P.FenceText + " ");
    }
    if (auto Inc = includeFor(styleAt(P.At)))
      if (Includes.insert({F, *Inc}).second &&
          !Text.contains("#include " + *Inc)) {
        unsigned At = afterLastInclude(Text);
        add(At, 0, "#include " + *Inc + "\n");
      }
  }
}

} // namespace proxyfence
