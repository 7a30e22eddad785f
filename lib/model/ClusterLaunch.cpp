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
  /// Kernel definitions, instantiations included.
  std::vector<const FunctionDecl *> &Kernels;
  LaunchScan(ASTContext &Ctx, llvm::DenseMap<const FunctionDecl *, bool> &L,
             llvm::DenseMap<const FunctionDecl *, bool> &E,
             std::vector<const FunctionDecl *> &Kernels)
      : Launched(L), Escaped(E), Kernels(Kernels), ClusterDims(Ctx) {}
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
      launched(F);
    else if (const VarDecl *V = launchVariable(K->getCallee()))
      launched(KernelOf.lookup(V));
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
    KernelOf[V] = K;
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
  bool VisitFunctionDecl(FunctionDecl *F) {
    if (F->hasAttr<CUDAGlobalAttr>() && F->doesThisDeclarationHaveABody() &&
        !F->isDependentContext())
      Kernels.push_back(F);
    return true;
  }
  bool VisitDeclRefExpr(DeclRefExpr *D) {
    if (Queries.count(D))
      return true;
    if (const auto *F = dyn_cast<FunctionDecl>(D->getDecl()))
      if (F->hasAttr<CUDAGlobalAttr>())
        escape(F);
    if (const auto *V = dyn_cast<VarDecl>(D->getDecl()))
      if (const FunctionDecl *K = KernelOf.lookup(V))
        escape(K);
    return true;
  }

private:
  /// Launches count for the kernel as named (a template's specialization)
  /// and for its template, which an uninstantiated pattern is judged by.
  void launched(const FunctionDecl *K) {
    Launched[kernelKey(K)] = Launched[K->getCanonicalDecl()] = true;
  }
  /// A kernel handed to code other than `<<<...>>>`: a launch whose cluster
  /// the enclosing host code sets to one CTA, or else unknown.
  void escape(const FunctionDecl *K) {
    const FunctionDecl *Host = Functions.empty() ? nullptr : Functions.back();
    if (Host && ClusterDims.onlyOneCtaClusters(Host))
      launched(K);
    else
      Escaped[kernelKey(K)] = Escaped[K->getCanonicalDecl()] = true;
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
  LaunchScan(Ctx, Launched, Escaped, Kernels)
      .TraverseDecl(Ctx.getTranslationUnitDecl());
}

namespace {
/// The functions a body calls directly, constructors and lambdas included.
class Callees : public RecursiveASTVisitor<Callees> {
public:
  llvm::SmallVector<const FunctionDecl *, 16> Out;
  bool shouldVisitLambdaBody() const { return true; }
  bool VisitCallExpr(CallExpr *C) {
    add(C->getDirectCallee());
    return true;
  }
  bool VisitCXXConstructExpr(CXXConstructExpr *C) {
    add(C->getConstructor());
    return true;
  }
  bool VisitLambdaExpr(LambdaExpr *L) {
    add(L->getCallOperator());
    return true;
  }

private:
  void add(const FunctionDecl *F) {
    const FunctionDecl *Def = nullptr;
    if (F && F->hasBody(Def))
      Out.push_back(Def);
  }
};
} // namespace

void ClusterLaunches::mapCallers() {
  CallersMapped = true;
  // A kernel whose calls reach further than this leaves the map incomplete:
  // then no device function is taken to run in a cluster of one.
  constexpr unsigned MaxReach = 50000;
  for (const FunctionDecl *K : Kernels) {
    llvm::DenseSet<const FunctionDecl *> Seen;
    llvm::SmallVector<const FunctionDecl *, 64> Work = {K};
    Seen.insert(K);
    while (!Work.empty()) {
      const FunctionDecl *F = Work.pop_back_val();
      if (F != K)
        KernelsCalling[F].push_back(K);
      Callees C;
      C.TraverseStmt(F->getBody());
      for (const FunctionDecl *Callee : C.Out)
        if (Seen.insert(Callee).second)
          Work.push_back(Callee);
      if (Seen.size() > MaxReach) {
        CallersIncomplete = true;
        return;
      }
    }
  }
}

bool ClusterLaunches::singleCta(const FunctionDecl *Fn) {
  if (!Fn)
    return false;
  if (!Scanned)
    scan();
  if (!Fn->hasAttr<CUDAGlobalAttr>())
    return calledOnlyInOneCtaClusters(Fn);
  return kernelSingleCta(Fn);
}

bool ClusterLaunches::calledOnlyInOneCtaClusters(const FunctionDecl *Fn) {
  if (!CallersMapped)
    mapCallers();
  const FunctionDecl *Def = nullptr;
  if (CallersIncomplete || !Fn->hasBody(Def))
    return false;
  auto It = KernelsCalling.find(Def);
  return It != KernelsCalling.end() &&
         llvm::all_of(It->second, [&](const FunctionDecl *K) {
           return kernelSingleCta(K);
         });
}

bool ClusterLaunches::kernelSingleCta(const FunctionDecl *Fn) {
  if (Fn->hasAttr<CUDAClusterDimsAttr>())
    return false;
  if (const FunctionDecl *P = Fn->getTemplateInstantiationPattern())
    if (P->hasAttr<CUDAClusterDimsAttr>())
      return false;
  // An instantiation by its own launches: a generic `device_kernel<Op>`
  // has as many clusters as the operations it runs.
  const FunctionDecl *K = Fn->getTemplateInstantiationPattern()
                              ? Fn->getCanonicalDecl()
                              : kernelKey(Fn);
  return Launched.lookup(K) && !Escaped.lookup(K);
}

} // namespace proxyfence
