//===- ClusterLaunch.h - kernels that run without a cluster ---------------===//
//
// A kernel with no `__cluster_dims__` whose every use in the translation
// unit is a `<<<...>>>` launch (which cannot ask for a cluster) runs as a
// cluster of one CTA: a "remote" arrive to rank 0 reaches its own barrier.
// So does one handed to cudaLaunchKernelEx by host code that sets every
// launch cluster dimension it sets to constants of one CTA
// (LaunchClusterDims.h). Where a kernel's launch is not visible, or its
// cluster dimension is not known, nothing is known.
//
//===----------------------------------------------------------------------===//
#ifndef PROXYFENCE_CLUSTERLAUNCH_H
#define PROXYFENCE_CLUSTERLAUNCH_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include <optional>
#include <vector>

namespace proxyfence {

class ClusterLaunches {
public:
  explicit ClusterLaunches(clang::ASTContext &Ctx) : Ctx(Ctx) {}
  /// Whether kernel \p Fn is known to run with one CTA per cluster; for a
  /// device function, whether every kernel that calls it (directly or not)
  /// is.
  bool singleCta(const clang::FunctionDecl *Fn);

private:
  void scan();
  void mapCallers();
  bool kernelSingleCta(const clang::FunctionDecl *Kernel);
  bool calledOnlyInOneCtaClusters(const clang::FunctionDecl *Fn);

  clang::ASTContext &Ctx;
  bool Scanned = false;
  /// Per kernel, as named (a specialization) and as its primary template:
  /// launched without a cluster (true) / referenced any other way (false).
  llvm::DenseMap<const clang::FunctionDecl *, bool> Launched, Escaped;
  std::vector<const clang::FunctionDecl *> Kernels;
  /// The kernels each device function's definition is reached from.
  llvm::DenseMap<const clang::FunctionDecl *,
                 llvm::SmallVector<const clang::FunctionDecl *, 2>>
      KernelsCalling;
  bool CallersMapped = false, CallersIncomplete = false;
};

} // namespace proxyfence

#endif
