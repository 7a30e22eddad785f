//===- ClusterLaunch.cpp - kernels that run without a cluster -------------===//
#include "model/ClusterLaunch.h"
#include "model/LaunchClusterDims.h"
#include "clang/AST/ASTLambda.h"
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
        if (llvm::StringRef(D->getDecl()->getNameAsString()).contains("Cluster")) {
          // It sets the kernel's cluster: never a launch without one.
          for (const Expr *K : C->arguments())
            if (const auto *KD = dyn_cast<DeclRefExpr>(K->IgnoreParenCasts()))
              ClusterAttributes.insert(KD);
          return true;
        }
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
    if (const auto *F = dyn_cast<FunctionDecl>(D->getDecl());
        F && F->hasAttr<CUDAGlobalAttr>() && ClusterAttributes.count(D)) {
      escaped(F);
      return true;
    }
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
    Launched[kernelKey(K)] = true;
    Launched[K->getCanonicalDecl()] = true;
  }
  /// A kernel handed to code other than `<<<...>>>`: a launch whose cluster
  /// the enclosing host code sets to one CTA, or else unknown.
  void escape(const FunctionDecl *K) {
    const FunctionDecl *Host = Functions.empty() ? nullptr : Functions.back();
      if (Host && ClusterDims.onlyOneCtaClusters(Host))
      launched(K);
    else
      escaped(K);
  }
  void escaped(const FunctionDecl *K) {
    Escaped[kernelKey(K)] = true;
    Escaped[K->getCanonicalDecl()] = true;
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

  llvm::DenseSet<const DeclRefExpr *> Queries, ClusterAttributes;
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
/// The functions a definition may call: those it calls or names (a call
/// through a pointer, as CuTe's `explode(fn, ...)`, reaches a function whose
/// address a caller took), constructors, destructors, member initialisers
/// and default arguments included, lambdas too. A virtual call may reach
/// an overrider nothing names.
class Callees : public RecursiveASTVisitor<Callees> {
public:
  llvm::SmallVector<const FunctionDecl *, 16> Out;
  bool Indirect = false;
  bool shouldVisitImplicitCode() const { return true; }
  // A lambda's body is its call operator's, reached as a callee; a generic
  // lambda's as written is a pattern, its calls resolved per instantiation.
  bool shouldVisitLambdaBody() const { return false; }
  bool VisitCallExpr(CallExpr *C) {
    if (C->isInstantiationDependent())
      return true;
    const auto *M = dyn_cast_or_null<CXXMethodDecl>(C->getDirectCallee());
    if (M && M->isVirtual())
      Indirect = true;
    add(C->getDirectCallee());
    return true;
  }
  bool VisitDeclRefExpr(DeclRefExpr *D) {
    add(dyn_cast<FunctionDecl>(D->getDecl()));
    return true;
  }
  bool VisitCXXConstructExpr(CXXConstructExpr *C) {
    add(C->getConstructor());
    if (const CXXRecordDecl *RD = C->getConstructor()->getParent())
      add(RD->getDestructor());
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

/// Whether only this translation unit can call \p F: a kernel elsewhere
/// (relocatable device code) may reach an external non-inline function.
bool callableOnlyHere(const FunctionDecl *F) {
  return F->isInlined() || F->isInlineSpecified() ||
         F->getTemplateInstantiationPattern() || !F->isExternallyVisible();
}
} // namespace

void ClusterLaunches::mapCallers() {
  CallersMapped = true;
  // Kernels share most of what they call: each body is read once.
  llvm::DenseMap<const FunctionDecl *, llvm::SmallVector<const FunctionDecl *, 8>>
      CalleesOf;
  // A kernel whose calls reach further than this leaves the map incomplete:
  // then no device function is taken to run in a cluster of one.
  constexpr unsigned MaxReach = 400000;
  for (const FunctionDecl *K : Kernels) {
    llvm::DenseSet<const FunctionDecl *> Seen;
    llvm::SmallVector<const FunctionDecl *, 64> Work = {K};
    Seen.insert(K);
    while (!Work.empty()) {
      const FunctionDecl *F = Work.pop_back_val();
      if (F != K)
        KernelsCalling[F].push_back(K);
      auto [It, New] = CalleesOf.try_emplace(F);
      if (New) {
        Callees C;
        // The visitor skips a lambda's body when asked for its call operator.
        if (isLambdaCallOperator(F))
          C.TraverseStmt(F->getBody());
        else
          C.TraverseDecl(const_cast<FunctionDecl *>(F));
        if (C.Indirect) {
          CallersIncomplete = true;
          return;
        }
        It->second = std::move(C.Out);
      }
      for (const FunctionDecl *Callee : CalleesOf.find(F)->second)
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
  if (CallersIncomplete || !Fn->hasBody(Def) || !callableOnlyHere(Def))
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
