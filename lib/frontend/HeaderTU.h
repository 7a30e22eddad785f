//===- HeaderTU.h - the translation unit to analyse a header in -----------===//
//
// A header has no entry of its own in a compilation database. As clangd
// does, proxyfence analyses it inside an entry that includes it (found by
// reading `#include` lines transitively, no preprocessing), so that its
// templates are seen with that entry's flags and instantiations. When no
// entry includes it, the header itself is parsed with the flags of the
// nearest entry (the longest common directory prefix), and its templates
// are analysed as written.
//
//===----------------------------------------------------------------------===//
#ifndef PROXYFENCE_HEADERTU_H
#define PROXYFENCE_HEADERTU_H

#include "clang/Tooling/CompilationDatabase.h"
#include "llvm/ADT/StringRef.h"
#include <optional>
#include <string>
#include <vector>

namespace proxyfence {

struct HeaderContext {
  /// The entry's source file (absolute).
  std::string EntryFile;
  clang::tooling::CompileCommand Command;
  /// The entry includes the header (directly or not); otherwise only its
  /// flags are borrowed, by nearness.
  bool Includes = false;
  /// Files whose `#include` lines were read to decide.
  unsigned FilesScanned = 0;
  /// Another source that includes the header, configured most unlike
  /// EntryFile (mostDifferentSource), for a second instantiation; empty
  /// when there is none.
  std::string SecondEntryFile;
};

/// The entry of \p DB to analyse \p Header (absolute) in: the first CUDA
/// entry, in database order, that includes it, else the CUDA entry nearest
/// to it; none when the database has no CUDA entry.
std::optional<HeaderContext>
headerContext(const clang::tooling::CompilationDatabase &DB,
              llvm::StringRef Header);

/// With no compilation database: the CUDA source below \p ProjectRoot
/// (outside a git work tree, also below the directory above the -I
/// directory holding the header) that includes \p Header in the fewest
/// steps, read with the header's own compiler arguments \p Args (their -I
/// and -iquote directories); none when no source includes it.
std::optional<HeaderContext>
includingSourceInTree(llvm::StringRef Header, llvm::StringRef ProjectRoot,
                      bool GitWorkTree, const std::vector<std::string> &Args);

/// The header of the same tree (searched as includingSourceInTree does)
/// that names \p Header in an `#include` line, the nearest to it: what a
/// header that is not self-contained (it uses what its includer included
/// first) is read after. None when no header includes it.
std::optional<HeaderContext>
includingHeaderInTree(llvm::StringRef Header, llvm::StringRef ProjectRoot,
                      bool GitWorkTree, const std::vector<std::string> &Args);
/// Of the sources in \p Including (each with its #include steps to
/// \p Header) whose file names share the most words with the header's
/// (clangd's proximity), the one whose own text (its words and numbers
/// outside comments and preprocessor lines: an explicit instantiation's template arguments)
/// differs most from \p First's, fewer steps first on a tie; empty when
/// none differs. Generated instantiation files each switch on other
/// features of a header's templates (`if constexpr` arms, members used in
/// one configuration only): the second instantiation reaches code the
/// first one compiled away.
std::string mostDifferentSource(
    const std::vector<std::pair<std::string, unsigned>> &Including,
    llvm::StringRef Header, const std::string &First);

/// The -I and -iquote directories of command line \p Cmd, absolute (against
/// its -working-directory, else the current directory).
std::vector<std::string> userIncludeDirs(const std::vector<std::string> &Cmd);

/// Whether \p Path names a header (.h, .cuh, .hpp, ... or no extension).
bool isHeaderName(llvm::StringRef Path);

/// The --stats line saying how a header was analysed.
std::string describeHeaderContext(llvm::StringRef Header,
                                  const HeaderContext &C);

} // namespace proxyfence

#endif
