//===- AddressSpaceGuards.cpp - code that runs only off shared memory -----===//
#include "model/AddressSpaceGuards.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/StringRef.h"

using namespace clang;

namespace proxyfence {

namespace {
constexpr unsigned MaxWrapperDepth = 4;

/// Whether running \p S always leaves the enclosing block: a return, a trap.
bool alwaysExits(const Stmt *S) {
  if (!S)
    return false;
  if (isa<ReturnStmt>(S))
    return true;
  if (const auto *CS = dyn_cast<CompoundStmt>(S))
    return !CS->body_empty() && alwaysExits(CS->body_back());
  if (const auto *Call = dyn_cast<CallExpr>(S))
    if (const FunctionDecl *F = Call->getDirectCallee())
      return F->isNoReturn() ||
             (F->getIdentifier() && F->getName() == "__trap");
  return false;
}

/// Whether root \p R lies in the object a root of \p Tested designates.
bool within(const MemRoot &R, const AliasSet &Tested) {
  for (const MemRoot &T : Tested.roots()) {
    if (T.Kind != R.Kind)
      continue;
    bool SameObject = R.Kind == MemRoot::This ||
                      R.Kind == MemRoot::ThisValue ||
                      R.Kind == MemRoot::DynamicShared || T.Var == R.Var;
    if (SameObject && T.overlaps(R))
      return true;
  }
  return false;
}

/// Whether the tested pointer is a parameter or the address of a member of
/// `*this` (`&__barrier`): one object a caller chose, so what is reached
/// through it is that object. A local pointer may hold several (`c ? gmem :
/// tile`), and the test says nothing of the others.
bool namesCallersObject(const Expr *P) {
  P = P->IgnoreParenCasts();
  if (const auto *UO = dyn_cast<UnaryOperator>(P);
      UO && UO->getOpcode() == UO_AddrOf) {
    const Expr *Sub = UO->getSubExpr()->IgnoreParenImpCasts();
    if (const auto *ME = dyn_cast<MemberExpr>(Sub))
      return isa<CXXThisExpr>(ME->getBase()->IgnoreParenImpCasts());
    P = Sub;
  }
  const auto *Ref = dyn_cast<DeclRefExpr>(P);
  return Ref && isa<ParmVarDecl>(Ref->getDecl());
}

std::optional<std::pair<bool, bool>> builtinTest(const FunctionDecl *F) {
  if (!F->getBuiltinID() || !F->getIdentifier())
    return std::nullopt;
  llvm::StringRef Name = F->getName();
  if (!Name.consume_front("__nvvm_isspacep_"))
    return std::nullopt;
  if (Name == "shared" || Name == "shared_cluster")
    return std::make_pair(false, true);
  if (Name == "local" || Name == "global" || Name == "const")
    return std::make_pair(true, false);
  return std::nullopt;
}
} // namespace

bool AddressSpaceGuards::excludesShared(const Stmt *S, const FunctionDecl *Fn,
                                        const AliasSet &Mem) {
  if (!S || !Fn || Mem.empty() || Mem.isUnknown())
    return false;
  const Regions &R = regionsOf(Fn);
  auto It = R.find(S);
  if (It == R.end())
    return false;
  return llvm::any_of(It->second, [&](const AliasSet &Tested) {
    return llvm::all_of(Mem.roots(),
                        [&](const MemRoot &M) { return within(M, Tested); });
  });
}

const AddressSpaceGuards::Regions &
AddressSpaceGuards::regionsOf(const FunctionDecl *Fn) {
  auto [It, New] = Cache.try_emplace(Fn);
  if (!New || !Fn->getBody())
    return It->second;
  Regions Found;
  llvm::SmallVector<const Stmt *, 32> Work{Fn->getBody()};
  // What \p Cond's arm (\p WhenTrue) knows is not shared memory.
  auto testedBy = [&](const Expr *Cond, bool WhenTrue) {
    llvm::SmallVector<const Expr *, 2> Pointers;
    notSharedWhen(Cond, WhenTrue, Fn, Pointers);
    llvm::SmallVector<AliasSet, 1> Tested;
    for (const Expr *P : Pointers) {
      if (!namesCallersObject(P))
        continue;
      AliasSet T = Memory.valueOf(P, Fn);
      if (!T.empty() && !T.isUnknown())
        Tested.push_back(std::move(T));
    }
    return Tested;
  };
  auto regionsFor = [&](const Expr *Cond, bool WhenTrue, const Stmt *Region) {
    for (const AliasSet &T : testedBy(Cond, WhenTrue))
      addRegion(Region, T, Found);
  };
  while (!Work.empty()) {
    const Stmt *S = Work.pop_back_val();
    if (!S || isa<LambdaExpr>(S))
      continue;
    if (const auto *If = dyn_cast<IfStmt>(S); If && !If->isConstexpr()) {
      regionsFor(If->getCond(), true, If->getThen());
      if (If->getElse())
        regionsFor(If->getCond(), false, If->getElse());
    }
    // `if (!__isLocal(p)) return;` guards the rest of the block.
    if (const auto *CS = dyn_cast<CompoundStmt>(S)) {
      for (auto I = CS->body_begin(), E = CS->body_end(); I != E; ++I) {
        const auto *If = dyn_cast<IfStmt>(*I);
        if (!If || If->getElse() || !alwaysExits(If->getThen()))
          continue;
        for (const AliasSet &T : testedBy(If->getCond(), false))
          for (auto Rest = std::next(I); Rest != E; ++Rest)
            addRegion(*Rest, T, Found);
      }
    }
    for (const Stmt *Child : S->children())
      Work.push_back(Child);
  }
  return Cache[Fn] = std::move(Found);
}

void AddressSpaceGuards::addRegion(const Stmt *Region, const AliasSet &NotShared,
                                   Regions &Out) {
  llvm::SmallVector<const Stmt *, 32> Work{Region};
  while (!Work.empty()) {
    const Stmt *S = Work.pop_back_val();
    if (!S)
      continue;
    Out[S].push_back(NotShared);
    for (const Stmt *Child : S->children())
      Work.push_back(Child);
  }
}

void AddressSpaceGuards::notSharedWhen(
    const Expr *Cond, bool WhenTrue, const FunctionDecl *Fn,
    llvm::SmallVectorImpl<const Expr *> &Out) {
  if (!Cond)
    return;
  Cond = Cond->IgnoreParenImpCasts();
  if (const auto *UO = dyn_cast<UnaryOperator>(Cond);
      UO && UO->getOpcode() == UO_LNot)
    return notSharedWhen(UO->getSubExpr(), !WhenTrue, Fn, Out);
  if (const auto *BO = dyn_cast<BinaryOperator>(Cond)) {
    BinaryOperatorKind Op = BO->getOpcode();
    if ((Op == BO_LAnd && WhenTrue) || (Op == BO_LOr && !WhenTrue)) {
      notSharedWhen(BO->getLHS(), WhenTrue, Fn, Out);
      notSharedWhen(BO->getRHS(), WhenTrue, Fn, Out);
      return;
    }
    // `test(p) != 0`, `test(p) == 0`.
    if (Op == BO_EQ || Op == BO_NE) {
      auto isZero = [](const Expr *E) {
        const auto *L = dyn_cast<IntegerLiteral>(E->IgnoreParenImpCasts());
        return L && L->getValue() == 0;
      };
      const Expr *Other = isZero(BO->getRHS())   ? BO->getLHS()
                          : isZero(BO->getLHS()) ? BO->getRHS()
                                                 : nullptr;
      if (Other)
        notSharedWhen(Other, Op == BO_NE ? WhenTrue : !WhenTrue, Fn, Out);
      return;
    }
  }
  if (std::optional<Test> T = testOf(Cond))
    if (WhenTrue ? T->NotSharedIfTrue : T->NotSharedIfFalse)
      Out.push_back(T->Pointer);
}

std::optional<AddressSpaceGuards::Test>
AddressSpaceGuards::testOf(const Expr *E, unsigned Depth) {
  const auto *Call = dyn_cast<CallExpr>(E->IgnoreParenImpCasts());
  if (!Call || !Call->getNumArgs())
    return std::nullopt;
  const FunctionDecl *F = Call->getDirectCallee();
  if (!F)
    return std::nullopt;
  if (auto Flags = builtinTest(F))
    return Test{Call->getArg(0), Flags->first, Flags->second};
  if (Depth >= MaxWrapperDepth)
    return std::nullopt;
  auto Wrapped = wrappedTest(F, Depth + 1);
  if (!Wrapped || Wrapped->second >= Call->getNumArgs())
    return std::nullopt;
  Test T = Wrapped->first;
  T.Pointer = Call->getArg(Wrapped->second);
  return T;
}

std::optional<std::pair<AddressSpaceGuards::Test, unsigned>>
AddressSpaceGuards::wrappedTest(const FunctionDecl *F, unsigned Depth) {
  const FunctionDecl *Def = nullptr;
  if (!F->hasBody(Def) || !Def || isa<CXXMethodDecl>(Def))
    return std::nullopt;
  std::optional<std::pair<Test, unsigned>> Agreed;
  bool Disagree = false;
  llvm::SmallVector<const Stmt *, 16> Work{Def->getBody()};
  while (!Work.empty() && !Disagree) {
    const Stmt *S = Work.pop_back_val();
    if (!S || isa<LambdaExpr>(S))
      continue;
    if (const auto *Ret = dyn_cast<ReturnStmt>(S)) {
      std::optional<Test> T =
          Ret->getRetValue() ? testOf(Ret->getRetValue(), Depth) : std::nullopt;
      const auto *Ref =
          T ? dyn_cast<DeclRefExpr>(T->Pointer->IgnoreParenCasts()) : nullptr;
      const auto *Param =
          Ref ? dyn_cast<ParmVarDecl>(Ref->getDecl()) : nullptr;
      if (!Param) {
        Disagree = true;
        break;
      }
      unsigned Index = Param->getFunctionScopeIndex();
      if (Agreed && (Agreed->second != Index ||
                     Agreed->first.NotSharedIfTrue != T->NotSharedIfTrue ||
                     Agreed->first.NotSharedIfFalse != T->NotSharedIfFalse))
        Disagree = true;
      Agreed = std::make_pair(*T, Index);
      continue;
    }
    for (const Stmt *Child : S->children())
      Work.push_back(Child);
  }
  if (Disagree)
    return std::nullopt;
  return Agreed;
}

} // namespace proxyfence
