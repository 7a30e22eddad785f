//===- ProjectFiles.h - which files are the user's to fix -----------------===//
//
// Findings are reported, and fences inserted, only in the user's own code:
// the git work tree that holds the input, without its submodules (or other
// nested repositories) and the CUDA toolkit. An input outside any git work
// tree has its own directory tree as its project. Everything else (CUTLASS
// or CuTe through -I, a vendored copy with its own .git) is library code.
//
//===----------------------------------------------------------------------===//
#ifndef PROXYFENCE_PROJECTFILES_H
#define PROXYFENCE_PROJECTFILES_H

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include <string>

namespace proxyfence {

class ProjectFiles {
public:
  /// \p MainFile: the input, absolute or relative to the working directory.
  ProjectFiles(llvm::StringRef MainFile, llvm::StringRef CudaPath);
  /// Whether \p Path (absolute, dots removed) belongs to the project.
  bool contains(llvm::StringRef Path) const;
  /// The project's root directory, and whether it is a git work tree.
  llvm::StringRef root() const { return Root; }
  bool isGitWorkTree() const { return Git; }

private:
  /// Whether directory \p Dir (inside Root) is in the project: no directory
  /// between it and Root starts another repository.
  bool directoryIn(llvm::StringRef Dir) const;

  std::string Root, CudaPath;
  bool Git = false;
  mutable llvm::StringMap<bool> Directories;
};

} // namespace proxyfence

#endif
