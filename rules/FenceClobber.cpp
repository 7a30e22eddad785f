//===- FenceClobber.cpp - proxyfence-fence-clobber ------------------------===//
//
// A fence.proxy.async / fence.mbarrier_init asm with no "memory" clobber:
// the compiler may sink C++ shared-memory stores below it (or hoist them
// above), so the hardware fence orders nothing the program wrote.
//
//===----------------------------------------------------------------------===//
#include "proxyfence/FenceClobber.h"
#include "proxyfence/Ptx.h"
#include "proxyfence/Rules.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include <algorithm>
#include <map>
#include <set>

using namespace clang;

namespace proxyfence {

const StandaloneRule FenceClobberRule = {
    "proxyfence-fence-clobber",
    "inline asm emitting fence.proxy.async or fence.mbarrier_init without a "
    "\"memory\" clobber: the compiler may move C++ shared-memory accesses "
    "across it"};

namespace {

/// The first proxy or mbarrier-init fence the asm text emits, or empty.
std::string fenceOpcode(const GCCAsmStmt *Asm) {
  ptx::Program P = ptx::parse(Asm->getAsmString());
  for (const ptx::Instruction &I : P.Instructions)
    for (const ptx::Effect &E : ptx::classify(I))
      if (E.Kind == ptx::EffectKind::ProxyFence ||
          E.Kind == ptx::EffectKind::InitFence)
        return I.Opcode;
  return "";
}

bool hasMemoryClobber(const GCCAsmStmt *Asm) {
  for (unsigned I = 0; I < Asm->getNumClobbers(); ++I)
    if (Asm->getClobber(I) == "memory")
      return true;
  return false;
}

/// Asm statements and calls of one function body.
class BodyScan : public RecursiveASTVisitor<BodyScan> {
public:
  std::vector<const GCCAsmStmt *> Asms;
  std::vector<std::pair<const Expr *, const FunctionDecl *>> Calls;

  bool VisitGCCAsmStmt(GCCAsmStmt *S) {
    Asms.push_back(S);
    return true;
  }
  bool VisitCallExpr(CallExpr *C) {
    if (const FunctionDecl *F = C->getDirectCallee())
      Calls.push_back({C, F});
    return true;
  }
  bool VisitCXXConstructExpr(CXXConstructExpr *C) {
    Calls.push_back({C, C->getConstructor()});
    return true;
  }
  // Lambdas are functions of their own, reached when called.
  bool TraverseLambdaExpr(LambdaExpr *) { return true; }
};

/// Offset of the first character after the token at \p L.
unsigned endOfToken(const SourceManager &SM, const LangOptions &LO,
                    SourceLocation L) {
  return SM.getFileOffset(L) + Lexer::MeasureTokenLength(L, SM, LO);
}

/// The edit that adds "memory" to the clobbers, written the way the
/// statement already is: `, "memory"` after the last clobber, or the colons
/// it lacks before its closing parenthesis.
std::optional<tooling::Replacement> clobberFix(const GCCAsmStmt *Asm,
                                               const SourceManager &SM,
                                               const LangOptions &LO,
                                               std::string &Why) {
  SourceLocation Begin = Asm->getBeginLoc(), End = Asm->getRParenLoc();
  if (Begin.isMacroID() || End.isMacroID()) {
    Why = "the asm statement is written in a macro";
    return std::nullopt;
  }
  if (Asm->isAsmGoto()) {
    Why = "asm goto";
    return std::nullopt;
  }
  StringRef Path = SM.getFilename(Begin);
  if (unsigned N = Asm->getNumClobbers()) {
    SourceLocation Last = Asm->getClobberExpr(N - 1)->getEndLoc();
    if (Last.isMacroID()) {
      Why = "the clobbers are written in a macro";
      return std::nullopt;
    }
    return tooling::Replacement(Path, endOfToken(SM, LO, Last), 0,
                                ", \"memory\"");
  }
  // Count the colons written after the template (`::` is two).
  const Expr *Str = Asm->getAsmStringExpr();
  SourceLocation StrEnd = Str->getEndLoc();
  if (StrEnd.isMacroID()) {
    Why = "the asm template is written in a macro";
    return std::nullopt;
  }
  unsigned From = endOfToken(SM, LO, StrEnd), To = SM.getFileOffset(End);
  StringRef Buf = SM.getBufferData(SM.getFileID(Begin));
  unsigned Colons = 0;
  int Depth = 0;
  for (unsigned I = From; I < To; ++I) {
    char C = Buf[I];
    if (C == '"') { // a constraint string
      for (++I; I < To && Buf[I] != '"'; ++I)
        if (Buf[I] == '\\')
          ++I;
      continue;
    }
    if (C == '/' && I + 1 < To && Buf[I + 1] == '/') {
      I = Buf.find('\n', I);
      if (I == StringRef::npos || I >= To)
        break;
      continue;
    }
    if (C == '/' && I + 1 < To && Buf[I + 1] == '*') {
      size_t E = Buf.find("*/", I + 2);
      if (E == StringRef::npos || E >= To)
        break;
      I = E + 1;
      continue;
    }
    if (C == '(' || C == '[')
      ++Depth;
    else if (C == ')' || C == ']')
      --Depth;
    else if (C == ':' && Depth == 0)
      ++Colons;
  }
  if (Colons == 0)
    return tooling::Replacement(Path, From, 0, " ::: \"memory\"");
  // Insert after the last operand, before any space ahead of the `)`.
  unsigned At = To;
  while (At > From && isspace(static_cast<unsigned char>(Buf[At - 1])))
    --At;
  static const char *const Tail[] = {"", " : : \"memory\"", " : \"memory\"",
                                     " \"memory\""};
  if (Colons > 3) {
    Why = "unexpected asm operand syntax";
    return std::nullopt;
  }
  return tooling::Replacement(Path, At, 0, Tail[Colons]);
}

} // namespace

std::string clobberMessage(const ClobberFinding &F) {
  return "inline asm emits '" + F.Fence +
         "' without a \"memory\" clobber: the compiler may move C++ "
         "shared-memory accesses across the fence";
}

std::vector<ClobberFinding>
findClobberlessFences(ASTContext &Ctx, llvm::ArrayRef<const FunctionDecl *> Roots,
                      const std::function<bool(SourceLocation)> &Editable) {
  const SourceManager &SM = Ctx.getSourceManager();
  // Every function reachable from the roots, each scanned once.
  llvm::DenseMap<const FunctionDecl *, BodyScan> Scans;
  std::vector<const FunctionDecl *> Work(Roots.begin(), Roots.end());
  std::vector<const FunctionDecl *> Order;
  while (!Work.empty()) {
    const FunctionDecl *F = Work.back();
    Work.pop_back();
    if (!F || !F->getBody() || F->isDependentContext() || Scans.count(F))
      continue;
    BodyScan &S = Scans[F];
    S.TraverseStmt(F->getBody());
    Order.push_back(F);
    for (const auto &[Call, Callee] : Scans[F].Calls) {
      const FunctionDecl *Def = nullptr;
      if (Callee->hasBody(Def))
        Work.push_back(Def);
    }
  }

  std::vector<ClobberFinding> Out;
  // One finding per place in the source (template instantiations repeat it).
  std::map<unsigned, size_t> ByOffset;
  llvm::DenseMap<const FunctionDecl *, std::vector<size_t>> ByWrapper;
  for (const FunctionDecl *F : Order)
    for (const GCCAsmStmt *Asm : Scans[F].Asms) {
      if (hasMemoryClobber(Asm) || !Editable(Asm->getBeginLoc()))
        continue;
      std::string Fence = fenceOpcode(Asm);
      if (Fence.empty())
        continue;
      unsigned Off = SM.getFileOffset(SM.getExpansionLoc(Asm->getBeginLoc()));
      auto [It, New] = ByOffset.try_emplace(Off, Out.size());
      if (New) {
        ClobberFinding C{Asm, Fence, F, {}, std::nullopt, ""};
        C.Fix = clobberFix(Asm, SM, Ctx.getLangOpts(), C.NoFixReason);
        Out.push_back(std::move(C));
      }
      ByWrapper[F->getCanonicalDecl()].push_back(It->second);
    }

  // The call sites relying on each wrapper, once per place.
  std::vector<std::set<unsigned>> CallSeen(Out.size());
  for (const FunctionDecl *F : Order)
    for (const auto &[Call, Callee] : Scans[F].Calls) {
      auto W = ByWrapper.find(Callee->getCanonicalDecl());
      if (W == ByWrapper.end())
        continue;
      unsigned Off = SM.getFileOffset(SM.getExpansionLoc(Call->getBeginLoc()));
      for (size_t I : W->second)
        if (CallSeen[I].insert(Off).second)
          Out[I].Calls.push_back(Call);
    }
  auto offsetOf = [&SM](const Stmt *S) {
    SourceLocation L = SM.getExpansionLoc(S->getBeginLoc());
    return std::make_pair(SM.getFilename(L), SM.getFileOffset(L));
  };
  for (ClobberFinding &C : Out)
    std::sort(C.Calls.begin(), C.Calls.end(),
              [&](const Expr *A, const Expr *B) {
                return offsetOf(A) < offsetOf(B);
              });
  std::stable_sort(Out.begin(), Out.end(),
                   [&](const ClobberFinding &A, const ClobberFinding &B) {
                     return offsetOf(A.Asm) < offsetOf(B.Asm);
                   });
  return Out;
}

} // namespace proxyfence
