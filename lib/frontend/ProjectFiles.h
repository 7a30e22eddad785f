//===- ProjectFiles.h - which files are the user's to fix -----------------===//
//
// Findings are reported, and fences inserted, only in the user's own code.
// The project's root is the git work tree that holds the input or, outside
// one (an unpacked release, an sdist), the topmost directory above the input
// that holds a build or licence file (CMakeLists.txt, setup.py, LICENSE...),
// else the input's own directory. Outside git, the root also takes the -I and
// -iquote directories of the same tree that no other tree claims
// (`-I../include`, or `-I../../include` at the top of a tree further up,
// short of a top-level or home directory). The compilation database's
// directory belongs to the project. Never the project's: nested
// repositories (their own .git), vendored trees (third_party/, 3rdparty/,
// vendor/, external/...),
// the CUDA toolkit, /usr and -isystem directories. Everything else (CUTLASS
// through -I from its own checkout) is library code.
//
//===----------------------------------------------------------------------===//
#ifndef PROXYFENCE_PROJECTFILES_H
#define PROXYFENCE_PROJECTFILES_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include <string>
#include <vector>

namespace proxyfence {

class ProjectFiles {
public:
  /// \p MainFile: the input, absolute or relative to the working directory;
  /// \p IncludeDirs: the command's -I/-iquote directories; \p DatabaseDir:
  /// the directory of the compilation database it came from.
  ProjectFiles(llvm::StringRef MainFile, llvm::StringRef CudaPath,
               llvm::ArrayRef<std::string> IncludeDirs = {},
               llvm::StringRef DatabaseDir = "");
  /// Whether \p Path (absolute, dots removed) belongs to the project.
  bool contains(llvm::StringRef Path) const;
  /// The project's root directory, and whether it is a git work tree.
  llvm::StringRef root() const { return Root; }
  bool isGitWorkTree() const { return Git; }
  /// Directories outside root() that the command adds to the project.
  llvm::ArrayRef<std::string> extraRoots() const { return Extra; }

private:
  /// Whether directory \p Dir (inside \p Top, a root) is in the project: no
  /// directory between it and Top starts another repository or is vendored.
  bool directoryIn(llvm::StringRef Dir, llvm::StringRef Top) const;
  bool excluded(llvm::StringRef Path) const;

  std::string Root, CudaPath;
  std::vector<std::string> Extra;
  bool Git = false;
  mutable llvm::StringMap<bool> Directories;
};

} // namespace proxyfence

#endif
