//===- Suppressions.h - NOLINT and proxyfence: ignore comments -------------===//
#ifndef PROXYFENCE_SUPPRESSIONS_H
#define PROXYFENCE_SUPPRESSIONS_H

#include "llvm/ADT/StringRef.h"
#include <optional>
#include <string>
#include <vector>

namespace proxyfence {

/// Whether a warning of check \p Check on line \p Line (1-based) of a file
/// holding \p Text is silenced, as clang-tidy reads NOLINT comments:
///   NOLINT or NOLINT(<checks>) on the line;
///   NOLINTNEXTLINE or NOLINTNEXTLINE(<checks>) on the line before;
///   between a NOLINTBEGIN[(<checks>)] line and the NOLINTEND[(<checks>)]
///   line with the same list that closes it (an unclosed one counts not);
///   `proxyfence: ignore` or `proxyfence: ignore(<rules>)` on the line;
///   `proxyfence: ignore-next-line[(<rules>)]` on the line before.
/// <checks> is a comma-separated list of check names, `*` matching any
/// text; in <rules> the `proxyfence-` prefix may be left out.
bool isSuppressed(llvm::StringRef Text, unsigned Line, llvm::StringRef Check);

/// The same, with the comments of a file read once: a file with many
/// findings is not rescanned for each of them.
class SuppressionIndex {
public:
  explicit SuppressionIndex(llvm::StringRef Text);
  bool suppressed(unsigned Line, llvm::StringRef Check) const;

private:
  struct LineEntry {
    unsigned Line; // the line it silences (NOLINTNEXTLINE: the next one)
    std::optional<std::string> Checks;
    bool ProxyfenceComment;
  };
  struct RegionEntry {
    unsigned Begin, End;
    std::optional<std::string> Checks;
  };
  std::vector<LineEntry> Lines; // sorted by line
  std::vector<RegionEntry> Regions;
};

} // namespace proxyfence

#endif
