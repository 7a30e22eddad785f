//===- Files.cpp - paths and whole-or-nothing file writes ------------------===//
#include "support/Files.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Signals.h"
#include <unistd.h>

namespace proxyfence {

std::string absolutePath(llvm::StringRef P) {
  llvm::SmallString<256> S(P);
  llvm::sys::fs::make_absolute(S);
  llvm::sys::path::remove_dots(S, /*remove_dot_dot=*/true);
  return std::string(S);
}

/// Why \p Path (resolved: \p Target, its status \p St) must not be replaced:
/// a rename ignores the file's own mode and links, so both are checked here.
static std::string whyNotReplaceable(llvm::StringRef Path,
                                     llvm::StringRef Target,
                                     const llvm::sys::fs::file_status &St) {
  if (!llvm::sys::fs::is_regular_file(St))
    return "'" + Path.str() + "' is not a regular file";
  if ((St.permissions() & llvm::sys::fs::all_write) == 0 ||
      llvm::sys::fs::access(Target, llvm::sys::fs::AccessMode::Write))
    return "'" + Path.str() + "' is read-only";
  if (St.getLinkCount() > 1)
    return "'" + Path.str() + "' has " + std::to_string(St.getLinkCount()) +
           " hard links, which replacing it would split";
  return "";
}

std::string whyNotWritable(llvm::StringRef Path) {
  llvm::SmallString<256> Target;
  llvm::sys::fs::file_status St;
  if (std::error_code EC = llvm::sys::fs::real_path(Path, Target))
    return "cannot read '" + Path.str() + "': " + EC.message();
  if (std::error_code EC = llvm::sys::fs::status(Target, St))
    return "cannot read '" + Path.str() + "': " + EC.message();
  return whyNotReplaceable(Path, Target, St);
}

std::string whyNotRewritable(llvm::StringRef Path, llvm::StringRef Expected) {
  std::string Why = whyNotWritable(Path);
  if (!Why.empty())
    return Why;
  auto Now = llvm::MemoryBuffer::getFile(Path, /*IsText=*/false,
                                         /*RequiresNullTerminator=*/false);
  if (!Now)
    return "cannot read '" + Path.str() + "': " + Now.getError().message();
  if ((*Now)->getBuffer() != Expected)
    return "'" + Path.str() + "' changed on disk during the analysis";
  return "";
}

llvm::Error writeFileAtomically(llvm::StringRef Path, llvm::StringRef Expected,
                                llvm::StringRef Content) {
  auto fail = [&](const std::string &Why) {
    return llvm::createStringError(
        std::make_error_code(std::errc::operation_not_permitted),
        Why + "; not overwritten");
  };
  std::string Why = whyNotRewritable(Path, Expected);
  if (!Why.empty())
    return fail(Why);
  // Through a symlink the file it names is replaced; the link stays a link.
  llvm::SmallString<256> Target;
  llvm::sys::fs::file_status St;
  if (llvm::sys::fs::real_path(Path, Target) ||
      llvm::sys::fs::status(Target, St))
    return fail("cannot read '" + Path.str() + "'");
  llvm::SmallString<256> Model(Target);
  Model += ".proxyfence-%%%%%%.tmp";
  int FD;
  llvm::SmallString<256> Tmp;
  if (std::error_code EC = llvm::sys::fs::createUniqueFile(Model, FD, Tmp))
    return fail("cannot create a temporary file next to '" + Path.str() +
                "': " + EC.message());
  // An interrupt (not SIGKILL) leaves no temporary file behind.
  llvm::sys::RemoveFileOnSignal(Tmp);
  auto discard = [&](const std::string &Why) {
    llvm::sys::fs::remove(Tmp);
    llvm::sys::DontRemoveFileOnSignal(Tmp);
    return fail(Why);
  };
  {
    llvm::raw_fd_ostream OS(FD, /*shouldClose=*/true);
    OS << Content;
    OS.flush();
    if (OS.has_error()) {
      std::error_code EC = OS.error();
      OS.clear_error();
      return discard("cannot write '" + Tmp.str().str() + "': " + EC.message());
    }
    // The owner too: a file rewritten by root stays its owner's.
    llvm::sys::fs::file_status New;
    if (!llvm::sys::fs::status(FD, New) &&
        (New.getUser() != St.getUser() || New.getGroup() != St.getGroup()))
      if (std::error_code EC = llvm::sys::fs::changeFileOwnership(
              FD, St.getUser(), St.getGroup()))
        return discard("cannot keep the owner of '" + Path.str() +
                       "': " + EC.message());
    // On disk before the rename: a crash never leaves an empty file.
    if (::fsync(FD) != 0)
      return discard("cannot write '" + Tmp.str().str() +
                     "': " + std::strerror(errno));
  }
  if (std::error_code EC = llvm::sys::fs::setPermissions(Tmp, St.permissions()))
    return discard("cannot set the permissions of '" + Tmp.str().str() +
                   "': " + EC.message());
  if (std::error_code EC = llvm::sys::fs::rename(Tmp, Target))
    return discard("cannot replace '" + Path.str() + "': " + EC.message());
  llvm::sys::DontRemoveFileOnSignal(Tmp);
  return llvm::Error::success();
}

} // namespace proxyfence
