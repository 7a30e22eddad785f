//===- FenceClobber.cpp - proxyfence-fence-clobber ------------------------===//
//
// A fence.proxy.async asm with no "memory" clobber, relied on after a C++
// shared-memory access: the compiler may sink that store below it (or hoist
// it above), so the hardware fence orders nothing the program wrote.
//
//===----------------------------------------------------------------------===//
#include "rules/FenceClobber.h"
#include "model/Memory.h"
#include "ptx/Ptx.h"
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
    "inline asm emitting fence.proxy.async without a \"memory\" clobber, "
    "called after C++ shared-memory accesses: the compiler may move them "
    "across it"};

namespace {

/// The first proxy fence over shared memory the asm text emits, or empty.
/// fence.mbarrier_init orders only mbarrier.init, itself a volatile asm the
/// compiler keeps in place: it needs no clobber. fence.proxy.async.global
/// orders no shared-memory access, so moving one across it changes nothing.
std::string fenceOpcode(const GCCAsmStmt *Asm) {
  ptx::Program P = ptx::parse(Asm->getAsmString());
  for (const ptx::Instruction &I : P.Instructions)
    for (const ptx::Effect &E : ptx::classify(I))
      if (E.Kind == ptx::EffectKind::ProxyFence && fenceCoversShared(E.Space))
        return I.Opcode;
  return "";
}

/// Where one body accesses shared memory with C++ (not asm) loads and
/// stores: what the compiler may move across a clobber-less asm.
class CxxAccessScan : public RecursiveASTVisitor<CxxAccessScan> {
public:
  CxxAccessScan(MemoryModel &M, const FunctionDecl *Fn,
                std::vector<SourceLocation> &Out)
      : M(M), Fn(Fn), Out(Out) {}
  bool VisitBinaryOperator(BinaryOperator *BO) {
    if (BO->isAssignmentOp())
      note(BO->getLHS(), BO);
    return true;
  }
  bool VisitUnaryOperator(UnaryOperator *UO) {
    if (UO->isIncrementDecrementOp())
      note(UO->getSubExpr(), UO);
    return true;
  }
  bool VisitImplicitCastExpr(ImplicitCastExpr *IC) {
    if (IC->getCastKind() == CK_LValueToRValue)
      note(IC->getSubExpr(), IC);
    return true;
  }
  bool VisitCXXOperatorCallExpr(CXXOperatorCallExpr *OC) {
    if (OC->isAssignmentOp() && OC->getNumArgs() == 2)
      note(OC->getArg(0), OC);
    return true;
  }
  bool TraverseLambdaExpr(LambdaExpr *) { return true; }

private:
  void note(const Expr *Object, const Expr *At) {
    if (!M.objectOf(Object, Fn).empty())
      Out.push_back(At->getBeginLoc());
  }
  MemoryModel &M;
  const FunctionDecl *Fn;
  std::vector<SourceLocation> &Out;
};

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
findClobberlessFences(ASTContext &Ctx, MemoryModel &Memory,
                      llvm::ArrayRef<const FunctionDecl *> Roots,
                      const std::function<bool(SourceLocation)> &Editable) {
  const SourceManager &SM = Ctx.getSourceManager();
  // Whether a C++ shared-memory access of \p F is written before \p L:
  // the compiler may sink it below a clobber-less fence at L.
  llvm::DenseMap<const FunctionDecl *, std::vector<SourceLocation>> Accesses;
  auto accessBefore = [&](const FunctionDecl *F, SourceLocation L) {
    auto [It, New] = Accesses.try_emplace(F);
    if (New)
      CxxAccessScan(Memory, F, It->second)
          .TraverseStmt(const_cast<Stmt *>(F->getBody()));
    L = SM.getExpansionLoc(L);
    return llvm::any_of(It->second, [&](SourceLocation A) {
      return SM.isBeforeInTranslationUnit(SM.getExpansionLoc(A), L);
    });
  };
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

  // Clobber-less proxy fences, by the function (wrapper) that holds them.
  llvm::DenseMap<const FunctionDecl *, std::vector<const GCCAsmStmt *>> Fences;
  for (const FunctionDecl *F : Order)
    for (const GCCAsmStmt *Asm : Scans[F].Asms)
      if (!hasMemoryClobber(Asm) && Editable(Asm->getBeginLoc()) &&
          !fenceOpcode(Asm).empty())
        Fences[F->getCanonicalDecl()].push_back(Asm);

  // A fence is reported when analysed code relies on it after a C++
  // shared-memory access: in its own function, or at a call of its wrapper;
  // each such call is a note.
  std::vector<ClobberFinding> Out;
  std::map<unsigned, size_t> ByOffset; // instantiations repeat a place
  std::vector<std::set<unsigned>> CallSeen;
  auto findingOf = [&](const GCCAsmStmt *Asm, const FunctionDecl *Wrapper) {
    unsigned Off = SM.getFileOffset(SM.getExpansionLoc(Asm->getBeginLoc()));
    auto [It, New] = ByOffset.try_emplace(Off, Out.size());
    if (New) {
      ClobberFinding C{Asm, fenceOpcode(Asm), Wrapper, {}, std::nullopt, ""};
      C.Fix = clobberFix(Asm, SM, Ctx.getLangOpts(), C.NoFixReason);
      Out.push_back(std::move(C));
      CallSeen.emplace_back();
    }
    return It->second;
  };
  for (const FunctionDecl *F : Order) {
    auto Own = Fences.find(F->getCanonicalDecl());
    if (Own != Fences.end())
      for (const GCCAsmStmt *Asm : Own->second)
        if (llvm::is_contained(Scans[F].Asms, Asm) &&
            accessBefore(F, Asm->getBeginLoc()))
          findingOf(Asm, F);
    for (const auto &[Call, Callee] : Scans[F].Calls) {
      auto W = Fences.find(Callee->getCanonicalDecl());
      if (W == Fences.end() || !accessBefore(F, Call->getBeginLoc()))
        continue;
      const FunctionDecl *Def = nullptr;
      Callee->hasBody(Def);
      unsigned Off = SM.getFileOffset(SM.getExpansionLoc(Call->getBeginLoc()));
      for (const GCCAsmStmt *Asm : W->second) {
        size_t I = findingOf(Asm, Def ? Def : Callee);
        if (CallSeen[I].insert(Off).second)
          Out[I].Calls.push_back(Call);
      }
    }
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
