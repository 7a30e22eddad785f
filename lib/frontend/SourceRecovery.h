//===- SourceRecovery.h - what nvcc accepts and clang rejects --------------===//
//
// nvcc accepts inline asm that clang drops with an error: a single `%` before
// a PTX special register (`%laneid`, `%clock64`) in an asm statement with
// operands, an operand number past the operands in code nvcc never
// instantiates, and operand lists missing the comma between two operands
// (CuTe's UTCCP copies). Every file the front end reads goes through a file
// system that repairs these in memory, with length-neutral edits inside the
// asm statement (each inserted byte pays for itself with a blank removed
// nearby), so every offset, line and column outside it stays the file's own
// and --fix edits the bytes on disk. Nothing is written to the user's tree.
//
//===----------------------------------------------------------------------===//
#ifndef PROXYFENCE_SOURCERECOVERY_H
#define PROXYFENCE_SOURCERECOVERY_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/VirtualFileSystem.h"
#include <map>
#include <mutex>
#include <set>
#include <string>

namespace proxyfence {

/// What recoverSource changed in one text.
struct Recovery {
  std::string Text;          // the repaired text, as long as the original
  unsigned Escapes = 0;      // `%name` made `%%name`
  unsigned Commas = 0;       // missing operand commas added
  unsigned Unrepairable = 0; // rejections seen but left alone (no blank to spend)
  unsigned Typenames = 0;     // `typename` supplied before a dependent type
  unsigned TypenamesLeft = 0; // ... and not, for want of blanks on the line
};

/// Repairs \p Text (see above). \p ExtraEscapes: offsets of `%` that the
/// front end rejected where the scan does not look (an asm string built in
/// a macro), repaired inside their string literal. \p Typenames: offsets of
/// dependent type names used as template arguments without `typename`
/// (nvcc accepts them; clang drops the instantiation), found by an earlier
/// parse; each gets the keyword, paid for with blanks of its own line.
Recovery recoverSource(llvm::StringRef Text,
                       llvm::ArrayRef<unsigned> ExtraEscapes = {},
                       llvm::ArrayRef<unsigned> Typenames = {});

/// A file system that hands the front end repaired texts and remembers the
/// original of every file it repaired.
class RecoveringFileSystem : public llvm::vfs::ProxyFileSystem {
public:
  explicit RecoveringFileSystem(
      llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> Base)
      : ProxyFileSystem(std::move(Base)) {}

  /// Repair these `%` offsets too (from an earlier run's diagnostics).
  void addEscapes(const std::string &Path, llvm::ArrayRef<unsigned> Offsets);
  /// Supply `typename` at these offsets (from an earlier run's diagnostics).
  void addTypenames(const std::string &Path, llvm::ArrayRef<unsigned> Offsets);

  llvm::ErrorOr<std::unique_ptr<llvm::vfs::File>>
  openFileForRead(const llvm::Twine &Path) override;

  /// Original text of each repaired file, by the name it was opened with.
  std::map<std::string, std::string> originals() const;
  unsigned repairs() const;
  /// Rejections seen and left alone (Recovery::Unrepairable).
  unsigned unrepaired() const;
  /// `typename` keywords supplied, and those left out (no blanks).
  unsigned typenames() const;
  unsigned typenamesLeft() const;

private:
  friend class RecoveredFile;
  void noteRepaired(const std::string &Path, std::string Original,
                    const Recovery &R);
  mutable std::mutex Lock;
  std::map<std::string, std::vector<unsigned>> Extra;
  std::map<std::string, std::vector<unsigned>> TypenameAt;
  std::map<std::string, std::string> Originals;
  unsigned Repairs = 0;
  unsigned Unrepaired = 0;
  unsigned Typenames = 0;
  unsigned TypenamesLeft = 0;
};

} // namespace proxyfence

#endif
