//===- OwnFences.cpp - code that writes its proxy fences itself ------------===//
#include "model/OwnFences.h"
#include "ptx/Ptx.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"

using namespace clang;

namespace proxyfence {

namespace {
/// fence.proxy.async of a space that covers shared memory.
bool sharedProxyFence(llvm::ArrayRef<ptx::Effect> Effects) {
  return llvm::any_of(Effects, [](const ptx::Effect &E) {
    return E.Kind == ptx::EffectKind::ProxyFence &&
           E.Space != ptx::FenceSpace::Global;
  });
}
} // namespace

bool OwnFences::fences(const FunctionDecl *Fn, unsigned Depth,
                       bool &Incomplete) {
  const FunctionDecl *Def = nullptr;
  if (!Fn->hasBody(Def) || !Def || !Def->getBody())
    return false;
  if (auto It = Fences.find(Def); It != Fences.end())
    return It->second;
  // A callee too deep, or one whose answer is being worked out (recursion):
  // not known here, so nothing above it is remembered as fence-free.
  if (Depth > 6 || !InProgress.insert(Def).second) {
    Incomplete = true;
    return false;
  }
  bool Found = false, Partial = false;
  llvm::SmallVector<const Stmt *, 32> Work{Def->getBody()};
  while (!Work.empty() && !Found) {
    const Stmt *S = Work.pop_back_val();
    if (!S)
      continue;
    if (const auto *Asm = dyn_cast<GCCAsmStmt>(S)) {
      ptx::Program P = ptx::parse(Asm->getAsmString(), {});
      for (const ptx::Instruction &I : P.Instructions)
        Found |= sharedProxyFence(ptx::classify(I));
    } else if (const auto *Call = dyn_cast<CallExpr>(S)) {
      if (const FunctionDecl *Callee = Call->getDirectCallee()) {
        const FunctionDecl *CalleeDef = nullptr;
        if (Callee->hasBody(CalleeDef) && CalleeDef)
          Found |= fences(CalleeDef, Depth + 1, Partial);
        else
          Found |= sharedProxyFence(bodilessEffects(
              Callee->getQualifiedNameAsString(),
              Callee->getDeclName().isIdentifier() ? Callee->getName() : "",
              User));
      }
    } else if (const auto *L = dyn_cast<LambdaExpr>(S)) {
      Work.push_back(L->getBody());
      continue;
    }
    for (const Stmt *Child : S->children())
      Work.push_back(Child);
  }
  InProgress.erase(Def);
  if (Found || !Partial)
    Fences[Def] = Found;
  else
    Incomplete = true;
  return Found;
}

bool OwnFences::scopeFencesItself(const FunctionDecl *Fn) {
  // A lambda belongs to the function that defines it.
  while (const auto *MD = dyn_cast<CXXMethodDecl>(Fn)) {
    if (!MD->getParent()->isLambda())
      break;
    const auto *Outer = dyn_cast_or_null<FunctionDecl>(
        MD->getParent()->getDeclContext()->getNonClosureAncestor());
    if (!Outer)
      break;
    Fn = Outer;
  }
  const Decl *Scope = Fn;
  const auto *MD = dyn_cast<CXXMethodDecl>(Fn);
  if (MD)
    Scope = MD->getParent();
  auto [It, New] = ScopeFences.try_emplace(Scope, false);
  if (!New)
    return It->second;
  bool Found = false;
  if (!MD) {
    bool Incomplete = false;
    Found = fences(Fn, 0, Incomplete);
  } else {
    for (const Decl *D : MD->getParent()->decls()) {
      if (const auto *FT = dyn_cast<FunctionTemplateDecl>(D))
        D = FT->getTemplatedDecl();
      bool Incomplete = false;
      if (const auto *M = dyn_cast<FunctionDecl>(D);
          M && fences(M, 0, Incomplete)) {
        Found = true;
        break;
      }
    }
  }
  ScopeFences[Scope] = Found;
  return Found;
}

} // namespace proxyfence
