//===- ProjectFiles.cpp - which files are the user's to fix ---------------===//
#include "frontend/ProjectFiles.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

namespace proxyfence {

namespace fs = llvm::sys::fs;
namespace path = llvm::sys::path;

/// \p P made absolute, with symlinks and dots resolved where it exists.
static std::string canonical(llvm::StringRef P) {
  llvm::SmallString<256> Abs(P);
  fs::make_absolute(Abs);
  path::remove_dots(Abs, /*remove_dot_dot=*/true);
  llvm::SmallString<256> Real;
  if (!fs::real_path(Abs, Real))
    return std::string(Real);
  return std::string(Abs);
}

/// Whether \p Dir starts a repository: a `.git` directory, or the `.git`
/// file of a submodule or worktree.
static bool hasGitEntry(llvm::StringRef Dir) {
  llvm::SmallString<256> G(Dir);
  path::append(G, ".git");
  return fs::exists(G);
}

/// Whether \p Path lies inside directory \p Dir.
static bool isUnder(llvm::StringRef Path, llvm::StringRef Dir) {
  if (!Path.starts_with(Dir))
    return false;
  return Path.size() == Dir.size() || Dir.ends_with("/") ||
         path::is_separator(Path[Dir.size()]);
}

ProjectFiles::ProjectFiles(llvm::StringRef MainFile, llvm::StringRef Cuda)
    : CudaPath(Cuda.empty() ? std::string() : canonical(Cuda)) {
  std::string Main = canonical(MainFile);
  llvm::StringRef Dir = path::parent_path(Main);
  for (llvm::StringRef D = Dir; !D.empty(); D = path::parent_path(D)) {
    if (hasGitEntry(D)) {
      Root = D.str();
      Git = true;
      return;
    }
    if (path::parent_path(D) == D)
      break;
  }
  Root = Dir.str();
}

bool ProjectFiles::directoryIn(llvm::StringRef Dir) const {
  if (Dir.size() <= Root.size())
    return true; // Root itself
  auto It = Directories.find(Dir);
  if (It != Directories.end())
    return It->second;
  bool In = !hasGitEntry(Dir) && directoryIn(path::parent_path(Dir));
  Directories[Dir] = In;
  return In;
}

bool ProjectFiles::contains(llvm::StringRef Path) const {
  std::string P = canonical(Path);
  if (!CudaPath.empty() && isUnder(P, CudaPath))
    return false;
  if (!isUnder(P, Root))
    return false;
  return directoryIn(path::parent_path(P));
}

} // namespace proxyfence
