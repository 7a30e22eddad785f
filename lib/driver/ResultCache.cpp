//===- ResultCache.cpp - analysis results kept between runs ----------------===//
#include "support/ContentHash.h"
#include "support/Files.h"
#include "driver/ResultCache.h"
#include "frontend/CompileArgs.h"
#include "frontend/ProjectFiles.h"
#include "proxyfence/NvccView.h"
#include "driver/OutcomeFile.h"
#include "model/Vocabulary.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SHA256.h"
#include <algorithm>

namespace proxyfence {


/// The tool itself: its version and a hash of its executable, so that a
/// rebuilt tool (same version, other rules) never reads older results.
static const std::string &toolIdentity() {
  static const std::string Id = [] {
    std::string Exe = llvm::sys::fs::getMainExecutable(nullptr, nullptr);
    auto Buf = llvm::MemoryBuffer::getFile(Exe);
    return std::string(PF_VERSION) + "-" +
           (Buf ? contentHash((*Buf)->getBuffer()).substr(0, 16) : "unknown");
  }();
  return Id;
}

ResultCache::ResultCache(uint64_t MaxBytes) : MaxBytes(MaxBytes) {
  llvm::SmallString<256> Root;
  if (auto X = llvm::sys::Process::GetEnv("XDG_CACHE_HOME"); X && !X->empty())
    Root = *X;
  else if (auto H = llvm::sys::Process::GetEnv("HOME"); H && !H->empty())
    llvm::sys::path::append(Root, *H, ".cache");
  else
    return;
  llvm::sys::path::append(Root, "proxyfence", toolIdentity());
  if (!llvm::sys::fs::create_directories(Root))
    Dir = std::string(Root);
}

std::string ResultCache::entryPath(const DriverOptions &Opts,
                                   const InputCommand &Job) {
  // What decides the result besides the files read: options and command.
  std::string Key = toolIdentity() + '\0' + Job.first + '\0';
  // Fields end in NUL (a "\0..." literal would end at its first byte).
  auto Field = [&Key](llvm::StringRef Name, llvm::StringRef Value) {
    Key += (Name + "=" + Value).str();
    Key += '\0';
  };
  for (const std::string &A :
       deviceCommand(Job.second, Job.first,
                     {Opts.Arch, Opts.CudaPath, Opts.NvccView}))
    Key += A + '\0';
  // The nvcc view changes the parse; its prelude is read from memory, not
  // from a file the entry could check.
  Field("nvcc-view", Opts.NvccView ? nvccPreludeText() : "off");
  // A header analysed inside an entry that includes it (HeaderTU.h).
  Field("focus", Opts.FocusHeader);
  Field("context", Opts.HeaderContextNote);
  Field("second-source", Opts.FocusSecondSource);
  Field("arch", Opts.Arch);
  Field("style", std::to_string(int(Opts.Style)));
  Field("init", std::to_string(Opts.RequireInitProxyFence));
  Field("headers", Opts.HeaderFilter);
  Field("max-errors", std::to_string(Opts.MaxErrors));
  // Which headers are the user's depends on the tree around the file (its
  // .git, build files, vendored directories), not only on the command.
  ProjectFiles Project(Job.first, Opts.CudaPath, Opts.IncludeDirs,
                       Opts.DatabaseDir);
  Field("project", Project.root());
  for (const std::string &E : Project.extraRoots())
    Field("project-dir", E);
  for (const std::string &R : Opts.DisabledRules)
    Field("disabled", R);
  for (const auto &[Name, Effects] : Opts.Vocabulary)
    Field("vocabulary", Name + ":" + formatEffects(Effects));
  llvm::SmallString<256> P(Dir);
  llvm::sys::path::append(P, contentHash(Key).substr(0, 40) + ".json");
  return std::string(P);
}

std::optional<FileOutcome>
ResultCache::lookup(const DriverOptions &Opts, const InputCommand &Job,
                    const std::set<std::string> &Reported) {
  if (!enabled())
    return std::nullopt;
  std::string Path = entryPath(Opts, Job);
  auto Buf = llvm::MemoryBuffer::getFile(Path);
  if (!Buf)
    return std::nullopt;
  llvm::Expected<FileOutcome> O = readOutcome((*Buf)->getBuffer());
  if (!O) {
    llvm::consumeError(O.takeError());
    return std::nullopt;
  }
  for (const auto &[File, Hash] : O->R.Inputs) {
    auto Now = llvm::MemoryBuffer::getFile(File, /*IsText=*/false,
                                           /*RequiresNullTerminator=*/false);
    if (!Now || contentHash((*Now)->getBuffer()) != Hash)
      return std::nullopt;
  }
  // The result skipped exactly the findings earlier files reported then;
  // it holds now if they report the same ones of this unit.
  for (const std::string &K : O->R.Keys)
    if (Reported.count(K))
      return std::nullopt;
  for (const std::string &K : O->R.SkippedKeys)
    if (!Reported.count(K))
      return std::nullopt;
  // Used now: the size bound removes the least recently used first.
  int FD;
  if (!llvm::sys::fs::openFileForWrite(Path, FD, llvm::sys::fs::CD_OpenExisting,
                                       llvm::sys::fs::OF_Append)) {
    llvm::sys::fs::setLastAccessAndModificationTime(
        FD, std::chrono::system_clock::now());
    llvm::sys::Process::SafelyCloseFileDescriptor(FD);
  }
  return std::move(*O);
}

void ResultCache::store(const DriverOptions &Opts, const InputCommand &Job,
                        const FileOutcome &O) {
  if (!enabled() || !O.accepted() || O.R.Inputs.empty())
    return;
  if (llvm::Error E = writeNewFile(entryPath(Opts, Job), writeOutcome(O)))
    llvm::consumeError(std::move(E)); // a cache that cannot write is off
  trim();
}

/// Removes the least recently used entries past MaxBytes (down to 3/4 of
/// it, so that not every store lists the directory again).
void ResultCache::trim() {
  struct Entry {
    std::string Path;
    llvm::sys::TimePoint<> Time;
    uint64_t Size;
  };
  std::vector<Entry> Entries;
  uint64_t Total = 0;
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC;
       It.increment(EC)) {
    llvm::sys::fs::file_status St;
    if (llvm::sys::path::extension(It->path()) != ".json" ||
        llvm::sys::fs::status(It->path(), St))
      continue;
    Entries.push_back({It->path(), St.getLastModificationTime(), St.getSize()});
    Total += St.getSize();
  }
  if (Total <= MaxBytes)
    return;
  llvm::sort(Entries, [](const Entry &A, const Entry &B) { return A.Time < B.Time; });
  for (const Entry &E : Entries) {
    if (Total <= MaxBytes / 4 * 3)
      break;
    if (!llvm::sys::fs::remove(E.Path))
      Total -= E.Size;
  }
}

} // namespace proxyfence
