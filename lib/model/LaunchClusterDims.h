//===- LaunchClusterDims.h - cluster dimensions host code launches with ---===//
//
// A kernel launched with cudaLaunchKernelEx (directly or through a launcher
// such as a library's `launch(grid, cluster, block, ..., kernel, params)`)
// runs in the cluster that the launch attribute's `clusterDim` names. Host
// code often computes it from constants of the instantiation
// (`dim3 cluster(size<0>(ClusterShape{}), ...)`) and hands it down through
// helpers. This follows the stores into `clusterDim` from a launching
// function into the helpers it calls, binding parameters to arguments, and
// evaluates them where they are constant.
//
//===----------------------------------------------------------------------===//
#ifndef PROXYFENCE_LAUNCHCLUSTERDIMS_H
#define PROXYFENCE_LAUNCHCLUSTERDIMS_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "llvm/ADT/DenseMap.h"

namespace proxyfence {

class LaunchClusterDims {
public:
  explicit LaunchClusterDims(clang::ASTContext &Ctx) : Ctx(Ctx) {}
  /// Whether host function \p Host, or a helper it calls, stores a launch
  /// cluster dimension, and every one it stores is a constant of one CTA.
  bool onlyOneCtaClusters(const clang::FunctionDecl *Host);

private:
  clang::ASTContext &Ctx;
  llvm::DenseMap<const clang::FunctionDecl *, bool> Known;
};

} // namespace proxyfence

#endif
