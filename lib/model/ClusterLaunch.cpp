//===- ClusterLaunch.cpp - kernels that run without a cluster -------------===//
#include "model/ClusterLaunch.h"
#include "clang/AST/Attr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "llvm/ADT/DenseSet.h"

using namespace clang;

namespace proxyfence {

/// Instantiations of one kernel template share its launches.
static const FunctionDecl *kernelKey(const FunctionDecl *F) {
  if (const FunctionDecl *P = F->getTemplateInstantiationPattern())
    F = P;
  return F->getCanonicalDecl();
}

namespace {
class LaunchScan : public RecursiveASTVisitor<LaunchScan> {
public:
  llvm::DenseMap<const FunctionDecl *, bool> &Launched, &Escaped;
  LaunchScan(llvm::DenseMap<const FunctionDecl *, bool> &L,
             llvm::DenseMap<const FunctionDecl *, bool> &E)
      : Launched(L), Escaped(E) {}
  bool shouldVisitTemplateInstantiations() const { return true; }

  bool TraverseCUDAKernelCallExpr(CUDAKernelCallExpr *K) {
    // The callee of `k<<<...>>>(args)` is a launch; the rest is traversed.
    if (const FunctionDecl *F = K->getDirectCallee())
      Launched[kernelKey(F)] = true;
    for (Stmt *Child : K->children())
      if (Child != K->getCallee())
        TraverseStmt(Child);
    return true;
  }
  /// `cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize,
  /// n)` and the occupancy queries name a kernel without launching it; an
  /// attribute naming a cluster dimension does change its launch.
  bool VisitCallExpr(CallExpr *C) {
    const FunctionDecl *F = C->getDirectCallee();
    if (!F || !F->getDeclName().isIdentifier())
      return true;
    llvm::StringRef Name = F->getName();
    if (!Name.starts_with("cudaFuncSetAttribute") &&
        !Name.starts_with("cudaFuncGetAttributes") &&
        !Name.starts_with("cudaOccupancy"))
      return true;
    for (const Expr *A : C->arguments())
      if (const auto *D = dyn_cast<DeclRefExpr>(A->IgnoreParenImpCasts()))
        if (llvm::StringRef(D->getDecl()->getNameAsString()).contains("Cluster"))
          return true;
    for (const Expr *A : C->arguments())
      if (const auto *D = dyn_cast<DeclRefExpr>(A->IgnoreParenCasts()))
        Queries.insert(D);
    return true;
  }
  bool VisitDeclRefExpr(DeclRefExpr *D) {
    if (const auto *F = dyn_cast<FunctionDecl>(D->getDecl()))
      if (F->hasAttr<CUDAGlobalAttr>() && !Queries.count(D))
        Escaped[kernelKey(F)] = true;
    return true;
  }

private:
  llvm::DenseSet<const DeclRefExpr *> Queries;
};
} // namespace

void ClusterLaunches::scan() {
  Scanned = true;
  LaunchScan(Launched, Escaped).TraverseDecl(Ctx.getTranslationUnitDecl());
}

bool ClusterLaunches::singleCta(const FunctionDecl *Fn) {
  if (!Fn || !Fn->hasAttr<CUDAGlobalAttr>() ||
      Fn->hasAttr<CUDAClusterDimsAttr>())
    return false;
  if (const FunctionDecl *P = Fn->getTemplateInstantiationPattern())
    if (P->hasAttr<CUDAClusterDimsAttr>())
      return false;
  if (!Scanned)
    scan();
  const FunctionDecl *K = kernelKey(Fn);
  return Launched.lookup(K) && !Escaped.lookup(K);
}

} // namespace proxyfence
