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
#include <optional>

namespace proxyfence {

class ClusterLaunches {
public:
  explicit ClusterLaunches(clang::ASTContext &Ctx) : Ctx(Ctx) {}
  /// Whether kernel \p Fn is known to run with one CTA per cluster.
  bool singleCta(const clang::FunctionDecl *Fn);

private:
  void scan();

  clang::ASTContext &Ctx;
  bool Scanned = false;
  /// Per kernel (primary template for instantiations): launched with
  /// <<<>>> (true) / referenced any other way (false).
  llvm::DenseMap<const clang::FunctionDecl *, bool> Launched, Escaped;
};

} // namespace proxyfence

#endif
