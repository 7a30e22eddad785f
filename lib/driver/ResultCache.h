//===- ResultCache.h - analysis results kept between runs ------------------===//
//
// A translation unit's outcome is stored under a key made of the tool
// (version and executable), the effective options, the unit's front-end
// command and file; the entry lists every file the parse read with a hash
// of its text, as ccache's direct mode does. A lookup re-hashes those
// files: any change (the unit, a header it includes) is a miss, and the
// parse runs again. Reading files costs far less than preprocessing.
//
//===----------------------------------------------------------------------===//
#ifndef PROXYFENCE_RESULTCACHE_H
#define PROXYFENCE_RESULTCACHE_H

#include "driver/InputJob.h"
#include <optional>
#include <set>
#include <string>

namespace proxyfence {

class ResultCache {
public:
  /// The cache under $XDG_CACHE_HOME/proxyfence (else ~/.cache/proxyfence),
  /// holding at most \p MaxBytes; disabled when no directory can be made.
  explicit ResultCache(uint64_t MaxBytes = 512ull << 20);
  bool enabled() const { return !Dir.empty(); }

  /// The stored outcome of \p Job, when every file it read is unchanged
  /// and it was computed against the same earlier findings \p Reported.
  std::optional<FileOutcome> lookup(const DriverOptions &Opts,
                                    const InputCommand &Job,
                                    const std::set<std::string> &Reported);
  /// Stores an accepted outcome (atomically: concurrent runs may store the
  /// same key; one wins whole), then trims the cache to its size.
  void store(const DriverOptions &Opts, const InputCommand &Job,
             const FileOutcome &O);

private:
  std::string entryPath(const DriverOptions &Opts, const InputCommand &Job);
  void trim();
  std::string Dir;
  uint64_t MaxBytes;
};

} // namespace proxyfence

#endif
