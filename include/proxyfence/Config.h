//===- Config.h - .proxyfence.yaml configuration files ---------------------===//
//
// Each input is analysed with the nearest `.proxyfence.yaml` found in its
// directory or a directory above it (as clang-tidy finds `.clang-tidy`).
// Precedence: the command line, then the configuration file, then the
// built-in default. A file with `inherit-parent-config: true` is merged over
// the next configuration further up.
//
//===----------------------------------------------------------------------===//
#ifndef PROXYFENCE_CONFIG_H
#define PROXYFENCE_CONFIG_H

#include "proxyfence/DriverOptions.h"
#include "fix/Fixes.h"
#include "model/Vocabulary.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace proxyfence {

inline constexpr const char ConfigFileName[] = ".proxyfence.yaml";

/// What configuration files set; what they leave unset keeps the command
/// line's value or the built-in default.
struct Config {
  /// The files read, nearest first; empty when none was found.
  std::vector<std::string> Files;
  std::optional<std::string> Arch;
  std::optional<FenceStyle> Style;
  std::optional<bool> RequireInitProxyFence;
  std::optional<std::string> HeaderFilter;
  std::vector<std::string> Disable;
  VocabularyTable Vocabulary;
  bool InheritParent = false;
  /// Where each key (and each vocabulary entry, as "vocabulary.NAME") was
  /// set: "file:line", for --dump-config.
  std::map<std::string, std::string> Origin;
};

/// Parses one configuration file's text. Errors read
/// "<Path>:<line>:<col>: <what>".
llvm::Expected<Config> parseConfig(llvm::StringRef Text, llvm::StringRef Path);

/// Finds and reads the configuration of files, each directory's once.
class ConfigFinder {
public:
  /// The configuration of the source file (or directory) \p Path: the
  /// nearest .proxyfence.yaml at or above its directory, merged with its
  /// parents' as it asks; an empty Config when there is none.
  llvm::Expected<std::shared_ptr<const Config>> forPath(llvm::StringRef Path);

private:
  llvm::Expected<std::shared_ptr<const Config>> forDirectory(std::string Dir);
  std::map<std::string, std::shared_ptr<const Config>> ByDirectory;
};

/// \p Opts with \p C's values where the command line gave none. The
/// configuration's arch is a default: the compile command \p Command's own
/// arch comes first.
DriverOptions applyConfig(const DriverOptions &Opts, const Config &C,
                          const std::vector<std::string> &Command);

/// The options of each of \p Inputs (the inputs of \p Opts) with its
/// configuration applied. On a bad configuration file, returns nothing and
/// sets \p Why to a one-line reason.
std::vector<DriverOptions>
optionsPerInput(const DriverOptions &Opts,
                const std::vector<InputCommand> &Inputs, std::string &Why);

/// `--dump-config`: the effective configuration of each of Opts.Files (of
/// the current directory when none), as YAML that reads back the same, with
/// where each value comes from as comments. Exit 0, or 2 on a bad file.
int runDumpConfig(const DriverOptions &Opts, llvm::raw_ostream &Out,
                  llvm::raw_ostream &Err);

} // namespace proxyfence

#endif
