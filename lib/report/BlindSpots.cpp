//===- BlindSpots.cpp - device code the analysis could not see -------------===//
#include "report/BlindSpots.h"
#include "report/ProjectCodeVisitor.h"
#include "clang/AST/Attr.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "llvm/ADT/DenseMap.h"
#include "clang/Basic/SourceManager.h"
#include <set>

using namespace clang;

namespace proxyfence {

void BlindSpots::add(const BlindSpots &O) {
  DeviceFunctions += O.DeviceFunctions;
  Stubs.insert(Stubs.end(), O.Stubs.begin(), O.Stubs.end());
  Dropped.insert(Dropped.end(), O.Dropped.begin(), O.Dropped.end());
  ResolvedCalls += O.ResolvedCalls;
  for (const auto &[Kind, N] : O.AsmKinds)
    AsmKinds[Kind] += N;
}

void BlindSpots::addArchitecture(const BlindSpots &O) {
  DeviceFunctions = std::max(DeviceFunctions, O.DeviceFunctions);
  llvm::erase_if(Stubs, [&](const std::string &S) {
    return !llvm::is_contained(O.Stubs, S);
  });
  ResolvedCalls = std::max(ResolvedCalls, O.ResolvedCalls);
  for (const auto &[Kind, N] : O.AsmKinds)
    AsmKinds[Kind] = std::max(AsmKinds[Kind], N);
}

namespace {

/// What an asm statement does, by its instructions (each kind once).
std::vector<const char *> asmKinds(llvm::StringRef Text) {
  static const std::pair<const char *, const char *> Kinds[] = {
      {"cp.async.bulk.tensor", "TMA"},
      {"cp.reduce.async.bulk.tensor", "TMA"},
      {"wgmma.mma_async", "GMMA"},
      {"tcgen05.cp", "UTCCP"},
      {"tcgen05.mma", "UMMA"},
      {"mbarrier.", "mbarrier"},
      {"fence.proxy.async", "proxy fence"},
      {"barrier.cluster", "barrier"},
      {"bar.sync", "barrier"},
      {"bar.arrive", "barrier"},
      {"barrier.sync", "barrier"},
      {"barrier.arrive", "barrier"},
  };
  std::vector<const char *> Out;
  for (auto [Prefix, Kind] : Kinds)
    if (Text.contains(Prefix) && !llvm::is_contained(Out, Kind))
      Out.push_back(Kind);
  // Bulk copies that are not tensor copies.
  if (Text.contains("cp.async.bulk.") && !Text.contains("cp.async.bulk.tensor") &&
      !Text.contains("cp.async.bulk.commit_group") &&
      !Text.contains("cp.async.bulk.wait_group"))
    Out.push_back("bulk copy");
  return Out;
}

/// What a statement of a stub may be: a trap, or what comes with one.
enum class StubPart { No, Trap, Filler };

StubPart classify(const Stmt *S) {
  if (!S || isa<NullStmt>(S))
    return StubPart::Filler;
  if (const auto *A = dyn_cast<GCCAsmStmt>(S)) {
    std::string Asm = A->getAsmString();
    llvm::StringRef Text = llvm::StringRef(Asm).trim();
    Text.consume_back(";");
    Text = Text.trim();
    return Text == "trap" || Text == "brkpt" ? StubPart::Trap : StubPart::No;
  }
  if (const auto *C = dyn_cast<CompoundStmt>(S)) {
    StubPart Worst = StubPart::Filler;
    for (const Stmt *Sub : C->body()) {
      StubPart P = classify(Sub);
      if (P == StubPart::No)
        return P;
      if (P == StubPart::Trap)
        Worst = P;
    }
    return Worst;
  }
  const auto *E = dyn_cast<Expr>(S);
  if (!E)
    return StubPart::No;
  E = E->IgnoreParenImpCasts();
  // (void)0 from assert under NDEBUG, (void)param.
  if (const auto *Cast = dyn_cast<CStyleCastExpr>(E))
    if (Cast->getType()->isVoidType())
      return StubPart::Filler;
  if (const auto *Call = dyn_cast<CallExpr>(E))
    if (const FunctionDecl *F = Call->getDirectCallee()) {
      llvm::StringRef N = F->getName();
      if (N == "__trap" || N == "__brkpt" || N == "__builtin_trap")
        return StubPart::Trap;
      if (N == "printf" || N == "__assertfail" || N == "__assert_fail")
        return StubPart::Filler;
    }
  if (const auto *C = dyn_cast<ConditionalOperator>(E)) // assert's ?:
    return classify(C->getTrueExpr()) != StubPart::No &&
                   classify(C->getFalseExpr()) != StubPart::No
               ? StubPart::Filler
               : StubPart::No;
  return StubPart::No;
}

class Collector : public ProjectCodeVisitor<Collector> {
public:
  Collector(ASTContext &Ctx, const std::function<bool(SourceLocation)> &Counted,
            llvm::ArrayRef<SourceLocation> Errors)
      : ProjectCodeVisitor(Ctx.getSourceManager()), Counted(Counted) {
    for (SourceLocation L : Errors)
      if (L.isValid())
        ErrorLocs.push_back(SM.getExpansionLoc(L));
  }
  BlindSpots Result;

  bool VisitGCCAsmStmt(GCCAsmStmt *A) {
    SourceLocation L = SM.getExpansionLoc(A->getAsmLoc());
    if (L.isInvalid() || !Counted(L) || !SeenAsm.insert(L.getRawEncoding()).second)
      return true;
    for (const char *Kind : asmKinds(A->getAsmString()))
      ++Result.AsmKinds[Kind];
    return true;
  }
  bool VisitFunctionDecl(FunctionDecl *FD) {
    // Template patterns count too (an instantiation's body is the same
    // one, counted once): a kernel template that nothing instantiates and
    // whose body the front end broke is code not seen.
    if (!FD->doesThisDeclarationHaveABody() || FD->isImplicit() ||
        FD->isDefaulted())
      return true;
    if (!FD->hasAttr<CUDAGlobalAttr>() && !FD->hasAttr<CUDADeviceAttr>())
      return true;
    countResolvedCalls(FD);
    const auto *Body = dyn_cast_or_null<CompoundStmt>(FD->getBody());
    SourceLocation Begin = Body ? SM.getExpansionLoc(Body->getLBracLoc())
                                : SM.getExpansionLoc(FD->getLocation());
    if (Begin.isInvalid() || !Counted(Begin) ||
        !Seen.insert(Begin.getRawEncoding()).second)
      return true;
    ++Result.DeviceFunctions;
    std::string Where = where(FD->getLocation()) + ": " +
                        FD->getQualifiedNameAsString();
    if (FD->isInvalidDecl() || (Body && holdsError(Body))) {
      Result.Dropped.push_back(Where + ": code dropped by a front-end error");
      return true;
    }
    if (!Body || isa<CXXConstructorDecl>(FD) || isa<CXXDestructorDecl>(FD))
      return true;
    StubPart P = classify(Body);
    if (P == StubPart::Trap)
      Result.Stubs.push_back(Where + ": only traps");
    else if (P == StubPart::Filler && preprocessedAway(Body))
      Result.Stubs.push_back(Where + ": empty once preprocessed");
    return true;
  }

private:
  /// The calls of \p FD's pattern that only an instantiation resolves,
  /// found resolved in \p FD (the same source location).
  void countResolvedCalls(const FunctionDecl *FD) {
    const FunctionDecl *Pattern = FD->getTemplateInstantiationPattern();
    if (!Pattern || !Pattern->getBody() || !FD->getBody() ||
        !Counted(SM.getExpansionLoc(Pattern->getLocation())))
      return;
    auto [It, New] = DependentCalls.try_emplace(Pattern);
    if (New)
      collectCalls(Pattern->getBody(), [&](const CallExpr *C) {
        if (!C->getDirectCallee() || C->isTypeDependent())
          It->second.insert(C->getBeginLoc().getRawEncoding());
      });
    if (It->second.empty())
      return;
    collectCalls(FD->getBody(), [&](const CallExpr *C) {
      unsigned L = C->getBeginLoc().getRawEncoding();
      if (C->getDirectCallee() && It->second.count(L) &&
          ResolvedSeen.insert(L).second)
        ++Result.ResolvedCalls;
    });
  }
  static void collectCalls(const Stmt *Body,
                           llvm::function_ref<void(const CallExpr *)> F) {
    llvm::SmallVector<const Stmt *, 64> Work{Body};
    while (!Work.empty()) {
      const Stmt *S = Work.pop_back_val();
      if (!S || isa<LambdaExpr>(S))
        continue; // a lambda's body is a function of its own
      if (const auto *C = dyn_cast<CallExpr>(S))
        F(C);
      for (const Stmt *Child : S->children())
        Work.push_back(Child);
    }
  }

  std::string where(SourceLocation L) {
    PresumedLoc P = SM.getPresumedLoc(SM.getExpansionLoc(L));
    if (P.isInvalid())
      return "<unknown>";
    return std::string(P.getFilename()) + ":" + std::to_string(P.getLine()) +
           ":" + std::to_string(P.getColumn());
  }
  bool holdsError(const CompoundStmt *Body) {
    SourceLocation B = SM.getExpansionLoc(Body->getLBracLoc()),
                   E = SM.getExpansionLoc(Body->getRBracLoc());
    for (SourceLocation L : ErrorLocs)
      if (SM.getFileID(L) == SM.getFileID(B) && !SM.isBeforeInTranslationUnit(L, B) &&
          !SM.isBeforeInTranslationUnit(E, L))
        return true;
    return false;
  }
  /// The written body holds a preprocessor directive: an #if took its code.
  bool preprocessedAway(const CompoundStmt *Body) {
    SourceLocation B = SM.getExpansionLoc(Body->getLBracLoc()),
                   E = SM.getExpansionLoc(Body->getRBracLoc());
    if (SM.getFileID(B) != SM.getFileID(E))
      return false;
    bool Invalid = false;
    llvm::StringRef Text = SM.getBufferData(SM.getFileID(B), &Invalid);
    if (Invalid)
      return false;
    unsigned From = SM.getFileOffset(B), To = SM.getFileOffset(E);
    llvm::StringRef Inside = Text.slice(From, To);
    for (size_t I = Inside.find('#'); I != llvm::StringRef::npos;
         I = Inside.find('#', I + 1)) {
      llvm::StringRef Before = Inside.substr(0, I);
      size_t NL = Before.find_last_of('\n');
      if (NL != llvm::StringRef::npos && Before.substr(NL + 1).trim().empty())
        return true; // '#' first on its line
    }
    return false;
  }

  const std::function<bool(SourceLocation)> &Counted;
  std::vector<SourceLocation> ErrorLocs;
  std::set<unsigned> Seen, SeenAsm, ResolvedSeen;
  llvm::DenseMap<const FunctionDecl *, std::set<unsigned>> DependentCalls;
};

} // namespace

BlindSpots findBlindSpots(ASTContext &Ctx,
                          const std::function<bool(SourceLocation)> &Counted,
                          llvm::ArrayRef<SourceLocation> Errors) {
  Collector C(Ctx, Counted, Errors);
  C.TraverseDecl(Ctx.getTranslationUnitDecl());
  return std::move(C.Result);
}

} // namespace proxyfence
