//===- ProjectFiles.cpp - which files are the user's to fix ---------------===//
#include "frontend/ProjectFiles.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include <cstdlib>
#include <iterator>

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

static bool hasEntry(llvm::StringRef Dir, llvm::StringRef Name) {
  llvm::SmallString<256> G(Dir);
  path::append(G, Name);
  return fs::exists(G);
}

/// Whether \p Dir starts a repository: a `.git` directory, or the `.git`
/// file of a submodule or worktree.
static bool hasGitEntry(llvm::StringRef Dir) { return hasEntry(Dir, ".git"); }

/// Files that mark the top of a source tree unpacked without its .git.
static bool hasProjectMarker(llvm::StringRef Dir) {
  static const char *const Markers[] = {
      "CMakeLists.txt", "Makefile",     "GNUmakefile", "meson.build",
      "setup.py",       "setup.cfg",    "pyproject.toml", "WORKSPACE",
      "MODULE.bazel",   "LICENSE",      "LICENSE.txt", "LICENSE.md",
      "COPYING"};
  return llvm::any_of(Markers,
                      [&](const char *M) { return hasEntry(Dir, M); });
}

/// Directory names under which a project keeps other projects' code.
static bool isVendoredName(llvm::StringRef Name) {
  static const char *const Names[] = {
      "third_party",  "third-party", "thirdparty",    "3rdparty",
      "3rd_party",    "vendor",      "vendored",      "external",
      "extern",       "submodules",  "site-packages", "dist-packages",
      "_deps",        "node_modules"};
  return llvm::is_contained(Names, Name);
}

/// Whether \p Path lies inside directory \p Dir.
static bool isUnder(llvm::StringRef Path, llvm::StringRef Dir) {
  if (!Path.starts_with(Dir))
    return false;
  return Path.size() == Dir.size() || Dir.ends_with("/") ||
         path::is_separator(Path[Dir.size()]);
}

namespace {
/// The project that directory \p Dir belongs to: the git work tree above
/// it; else the topmost directory above it with a project marker, not
/// above a vendored directory, the home directory or a top-level one.
/// Empty when there is neither.
struct Owner {
  std::string Root;
  bool Git = false;
};
} // namespace

/// Whether the search for a project must not enter \p Dir: as git does,
/// a directory of GIT_CEILING_DIRECTORIES (a colon-separated list).
static bool isCeiling(llvm::StringRef Dir) {
  const char *Env = std::getenv("GIT_CEILING_DIRECTORIES");
  if (!Env)
    return false;
  llvm::SmallVector<llvm::StringRef, 4> Ceilings;
  llvm::StringRef(Env).split(Ceilings, ':', -1, /*KeepEmpty=*/false);
  return llvm::any_of(Ceilings, [&](llvm::StringRef C) {
    return C.rtrim('/') == Dir.rtrim('/');
  });
}

static Owner ownerOf(llvm::StringRef Dir) {
  const char *Home = std::getenv("HOME");
  std::string Top, Below;
  for (llvm::StringRef D = Dir; !D.empty() && !isCeiling(D);
       D = path::parent_path(D)) {
    if (hasGitEntry(D))
      return {D.str(), true};
    if (isVendoredName(path::filename(D)))
      return {Top.empty() ? Below : Top, false};
    bool TopLevel = std::distance(path::begin(D), path::end(D)) <= 2;
    if (TopLevel || (Home && D == llvm::StringRef(Home)))
      break;
    if (hasProjectMarker(D))
      Top = D.str();
    Below = D.str();
  }
  return {Top, false};
}

/// Whether \p Dir lies under the parent of \p Root, or is a directory at
/// the top of a tree further up that holds the root (`include/` of a
/// release whose examples/48/ is the root), short of a top-level directory,
/// the home directory or a GIT_CEILING_DIRECTORIES entry (where the search
/// for a root stops). A directory deeper inside such a tree
/// (`deps/cutlass/include`) is another project's.
static bool sameLooseTree(llvm::StringRef Dir, llvm::StringRef Root) {
  llvm::StringRef Parent = path::parent_path(Root);
  if (!Parent.empty() && isUnder(Dir, Parent))
    return true;
  const char *Home = std::getenv("HOME");
  for (llvm::StringRef A = Parent; !A.empty(); A = path::parent_path(A)) {
    bool TopLevel = std::distance(path::begin(A), path::end(A)) <= 2;
    if (TopLevel || isCeiling(A) || (Home && A == llvm::StringRef(Home)))
      return false;
    if (A != Parent && path::parent_path(Dir) == A)
      return true;
  }
  return false;
}

ProjectFiles::ProjectFiles(llvm::StringRef MainFile, llvm::StringRef Cuda,
                           llvm::ArrayRef<std::string> IncludeDirs,
                           llvm::StringRef DatabaseDir)
    : CudaPath(Cuda.empty() ? std::string() : canonical(Cuda)) {
  std::string Main = canonical(MainFile);
  llvm::StringRef Dir = path::parent_path(Main);
  Owner O = ownerOf(Dir);
  Root = O.Root.empty() ? Dir.str() : O.Root;
  Git = O.Git;
  auto addExtra = [&](const std::string &D) {
    if (D.empty() || excluded(D) || isUnder(D, Root) || isUnder(Root, D) ||
        llvm::is_contained(Extra, D))
      return;
    for (auto It = path::begin(D), End = path::end(D); It != End; ++It)
      if (isVendoredName(*It))
        return;
    Extra.push_back(D);
  };
  // -I and -iquote directories of the same unclaimed tree as the root
  // (`-I../include`, a release's include/ next to its examples/, or
  // `-I../../include` from examples/48/) join it unless another tree claims
  // them; one elsewhere is another project's (a dependency unpacked next
  // to the user's tree, CUTLASS's include/ in its own checkout).
  for (const std::string &I : IncludeDirs) {
    std::string D = canonical(I);
    if (!O.Git && sameLooseTree(D, Root) && fs::is_directory(D) &&
        ownerOf(D).Root.empty())
      addExtra(D);
  }
  if (!DatabaseDir.empty())
    addExtra(canonical(DatabaseDir));
}

bool ProjectFiles::excluded(llvm::StringRef P) const {
  return (!CudaPath.empty() && isUnder(P, CudaPath)) || isUnder(P, "/usr");
}

bool ProjectFiles::directoryIn(llvm::StringRef Dir, llvm::StringRef Top) const {
  if (Dir.size() <= Top.size())
    return true; // the root itself
  auto It = Directories.find(Dir);
  if (It != Directories.end())
    return It->second;
  bool In = !hasGitEntry(Dir) && !isVendoredName(path::filename(Dir)) &&
            directoryIn(path::parent_path(Dir), Top);
  Directories[Dir] = In;
  return In;
}

bool ProjectFiles::contains(llvm::StringRef Path) const {
  std::string P = canonical(Path);
  if (!CudaPath.empty() && isUnder(P, CudaPath))
    return false;
  llvm::StringRef Parent = path::parent_path(P);
  if (isUnder(P, Root))
    return directoryIn(Parent, Root);
  for (const std::string &E : Extra)
    if (isUnder(P, E))
      return directoryIn(Parent, E);
  return false;
}

} // namespace proxyfence
