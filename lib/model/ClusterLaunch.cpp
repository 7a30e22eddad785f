//===- ClusterLaunch.cpp - kernels that run without a cluster -------------===//
#include "model/ClusterLaunch.h"
#include "model/LaunchClusterDims.h"
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
  LaunchScan(ASTContext &Ctx, llvm::DenseMap<const FunctionDecl *, bool> &L,
             llvm::DenseMap<const FunctionDecl *, bool> &E)
      : Launched(L), Escaped(E), ClusterDims(Ctx) {}
  bool shouldVisitTemplateInstantiations() const { return true; }

  bool TraverseDecl(Decl *D) {
    auto *F = dyn_cast_or_null<FunctionDecl>(D);
    if (F)
      Functions.push_back(F);
    bool Continue = RecursiveASTVisitor::TraverseDecl(D);
    if (F)
      Functions.pop_back();
    return Continue;
  }

  bool TraverseCUDAKernelCallExpr(CUDAKernelCallExpr *K) {
    // The callee of `k<<<...>>>(args)` is a launch; the rest is traversed.
    if (const FunctionDecl *F = K->getDirectCallee())
      Launched[kernelKey(F)] = true;
    else if (const VarDecl *V = launchVariable(K->getCallee()))
      Launched[KernelOf.lookup(V)] = true;
    for (Stmt *Child : K->children())
      if (Child != K->getCallee())
        TraverseStmt(Child);
    return true;
  }
  /// `auto k = kernel<...>;` names a kernel without launching it; a later
  /// `k<<<...>>>` is its launch, and any other use of `k` lets it escape.
  bool TraverseVarDecl(VarDecl *V) {
    const FunctionDecl *K = V->hasLocalStorage() ? kernelNamed(V->getInit())
                                                 : nullptr;
    if (!K)
      return RecursiveASTVisitor::TraverseVarDecl(V);
    KernelOf[V] = kernelKey(K);
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
    if (Queries.count(D))
      return true;
    if (const auto *F = dyn_cast<FunctionDecl>(D->getDecl()))
      if (F->hasAttr<CUDAGlobalAttr>())
        escape(kernelKey(F));
    if (const auto *V = dyn_cast<VarDecl>(D->getDecl()))
      if (const FunctionDecl *K = KernelOf.lookup(V))
        escape(K);
    return true;
  }

private:
  /// A kernel handed to code other than `<<<...>>>`: a launch whose cluster
  /// the enclosing host code sets to one CTA, or else unknown.
  void escape(const FunctionDecl *K) {
    const FunctionDecl *Host = Functions.empty() ? nullptr : Functions.back();
    if (Host && ClusterDims.onlyOneCtaClusters(Host))
      Launched[K] = true;
    else
      Escaped[K] = true;
  }

  /// The kernel \p E names (`kernel<T>`, `&kernel<T>`), if any.
  static const FunctionDecl *kernelNamed(const Expr *E) {
    if (!E)
      return nullptr;
    E = E->IgnoreParenCasts();
    if (const auto *U = dyn_cast<UnaryOperator>(E);
        U && U->getOpcode() == UO_AddrOf)
      E = U->getSubExpr()->IgnoreParenCasts();
    const auto *D = dyn_cast<DeclRefExpr>(E);
    const auto *F = D ? dyn_cast<FunctionDecl>(D->getDecl()) : nullptr;
    return F && F->hasAttr<CUDAGlobalAttr>() ? F : nullptr;
  }
  /// The variable holding a kernel that \p Callee calls through.
  const VarDecl *launchVariable(const Expr *Callee) const {
    const auto *D = dyn_cast<DeclRefExpr>(Callee->IgnoreParenCasts());
    const auto *V = D ? dyn_cast<VarDecl>(D->getDecl()) : nullptr;
    return V && KernelOf.count(V) ? V : nullptr;
  }

  llvm::DenseSet<const DeclRefExpr *> Queries;
  llvm::DenseMap<const VarDecl *, const FunctionDecl *> KernelOf;
  LaunchClusterDims ClusterDims;
  llvm::SmallVector<const FunctionDecl *, 4> Functions;
};
} // namespace

void ClusterLaunches::scan() {
  Scanned = true;
  LaunchScan(Ctx, Launched, Escaped).TraverseDecl(Ctx.getTranslationUnitDecl());
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
