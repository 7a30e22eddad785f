//===- Config.cpp - .proxyfence.yaml configuration files -------------------===//
//
// Read with the YAML parser rather than YAMLTraits so that every error can
// name the line and column of the key or value at fault.
//
//===----------------------------------------------------------------------===//
#include "support/Files.h"
#include "proxyfence/Config.h"
#include "frontend/CompileArgs.h"
#include "proxyfence/Rules.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/YAMLParser.h"
#include <set>

namespace proxyfence {

namespace yaml = llvm::yaml;

namespace {

const char *const Keys[] = {"arch",
                            "disable",
                            "fence-style",
                            "header-filter",
                            "inherit-parent-config",
                            "mbarrier-init-proxy-fence",
                            "vocabulary"};

const char *fenceStyleName(FenceStyle S) {
  switch (S) {
  case FenceStyle::Auto:
    return "auto";
  case FenceStyle::Ptx:
    return "ptx";
  case FenceStyle::CudaPtx:
    return "cuda-ptx";
  case FenceStyle::CudaExperimental:
    return "cuda-experimental";
  case FenceStyle::Cutlass:
    return "cutlass";
  }
  return "auto";
}

/// Reads one file's YAML into a Config; the first error wins.
class ConfigReader {
public:
  ConfigReader(llvm::StringRef Text, llvm::StringRef Path) : Path(Path.str()) {
    SM.setDiagHandler(
        [](const llvm::SMDiagnostic &D, void *Ctx) {
          auto *R = static_cast<ConfigReader *>(Ctx);
          if (R->Error.empty())
            R->Error = R->Path + ":" + std::to_string(D.getLineNo()) + ":" +
                       std::to_string(D.getColumnNo() + 1) + ": invalid YAML: " +
                       D.getMessage().str();
        },
        this);
    Buffer = llvm::MemoryBuffer::getMemBufferCopy(Text, Path);
  }

  llvm::Expected<Config> read() {
    C.Files.push_back(Path);
    // Syntax first: the reading below stops at the first value it rejects,
    // which may lie before a syntax error.
    if (!yaml::Stream(Buffer->getMemBufferRef(), SM, /*ShowColors=*/false)
             .validate())
      return llvm::createStringError(std::errc::invalid_argument, "%s",
                                     Error.c_str());
    yaml::Stream S(Buffer->getMemBufferRef(), SM, /*ShowColors=*/false);
    auto Doc = S.begin();
    if (Doc != S.end()) {
      readDocument(*Doc);
      if (Error.empty() && ++Doc != S.end())
        fail(Doc->getRoot(), "more than one YAML document");
    }
    if (!Error.empty())
      return llvm::createStringError(std::errc::invalid_argument, "%s",
                                     Error.c_str());
    return std::move(C);
  }

private:
  std::string Path;
  llvm::SourceMgr SM;
  std::unique_ptr<llvm::MemoryBuffer> Buffer;
  std::string Error;
  Config C;

  std::string lineOf(yaml::Node *N) {
    return std::to_string(
        SM.getLineAndColumn(N->getSourceRange().Start).first);
  }
  void fail(yaml::Node *N, const llvm::Twine &Msg) {
    if (!Error.empty())
      return;
    Error = Path + ":";
    if (N) {
      auto [Line, Col] = SM.getLineAndColumn(N->getSourceRange().Start);
      Error += std::to_string(Line) + ":" + std::to_string(Col) + ":";
    }
    Error += " " + Msg.str();
  }

  /// The text of a scalar value; nullopt (and an error) for anything else.
  std::optional<std::string> scalar(yaml::Node *N, llvm::StringRef Key) {
    if (auto *Sc = llvm::dyn_cast_or_null<yaml::ScalarNode>(N)) {
      llvm::SmallString<64> Storage;
      return Sc->getValue(Storage).str();
    }
    if (N && llvm::isa<yaml::NullNode>(N))
      fail(N, "'" + Key + "' needs a value");
    else if (N)
      fail(N, "'" + Key + "' must be a single value");
    return std::nullopt;
  }

  void readDocument(yaml::Document &D) {
    yaml::Node *Root = D.getRoot();
    if (!Error.empty() || !Root || llvm::isa<yaml::NullNode>(Root))
      return; // an empty file sets nothing
    auto *Map = llvm::dyn_cast<yaml::MappingNode>(Root);
    if (!Map) {
      fail(Root, "expected a mapping of keys to values");
      return;
    }
    std::set<std::string> Seen;
    for (yaml::KeyValueNode &KV : *Map) {
      if (!Error.empty())
        return;
      auto *KeyNode = llvm::dyn_cast_or_null<yaml::ScalarNode>(KV.getKey());
      if (!KeyNode) {
        fail(KV.getKey(), "expected a key");
        return;
      }
      llvm::SmallString<32> KeyStorage;
      std::string Key = KeyNode->getValue(KeyStorage).str();
      if (!llvm::is_contained(Keys, Key)) {
        std::string Expected;
        for (const char *K : Keys)
          Expected += (Expected.empty() ? "" : ", ") + std::string(K);
        fail(KeyNode, "unknown key '" + Key + "' (expected one of: " +
                          Expected + ")");
        return;
      }
      if (!Seen.insert(Key).second) {
        fail(KeyNode, "duplicate key '" + Key + "'");
        return;
      }
      yaml::Node *Value = KV.getValue();
      if (!Error.empty())
        return;
      if (!Value || llvm::isa<yaml::NullNode>(Value)) {
        fail(KeyNode, "'" + Key + "' needs a value");
        return;
      }
      readKey(Key, Value);
      if (Error.empty())
        C.Origin[Key] = Path + ":" + lineOf(KeyNode);
    }
  }

  void readKey(llvm::StringRef Key, yaml::Node *V) {
    if (Key == "disable")
      return readDisable(V);
    if (Key == "vocabulary")
      return readVocabulary(V);
    std::optional<std::string> S = scalar(V, Key);
    if (!S)
      return;
    if (Key == "arch") {
      if (!isKnownArch(*S))
        return fail(V, "unknown arch '" + *S +
                           "' (expected a CUDA GPU architecture such as "
                           "sm_90a or sm_100a)");
      C.Arch = *S;
    } else if (Key == "fence-style") {
      C.Style = parseFenceStyle(*S);
      if (!C.Style)
        return fail(V, "unknown fence-style '" + *S +
                           "' (expected auto, ptx, cuda-ptx, "
                           "cuda-experimental or cutlass)");
    } else if (Key == "mbarrier-init-proxy-fence") {
      if (*S != "off" && *S != "require")
        return fail(V, "unknown mbarrier-init-proxy-fence '" + *S +
                           "' (expected off or require)");
      C.RequireInitProxyFence = *S == "require";
    } else if (Key == "header-filter") {
      std::string Why;
      if (!S->empty() && !llvm::Regex(*S).isValid(Why))
        return fail(V, "bad header-filter regex '" + *S + "': " + Why);
      C.HeaderFilter = *S;
    } else if (Key == "inherit-parent-config") {
      if (*S != "true" && *S != "false")
        return fail(V, "inherit-parent-config must be true or false, not '" +
                           *S + "'");
      C.InheritParent = *S == "true";
    }
  }

  /// `disable: [rule, ...]`, or a single rule.
  void readDisable(yaml::Node *V) {
    auto add = [&](yaml::Node *N) {
      std::optional<std::string> R = scalar(N, "disable");
      if (!R)
        return;
      if (!isKnownRule(*R))
        return fail(N, "unknown rule '" + *R + "' (see --list-rules)");
      if (!llvm::is_contained(C.Disable, *R))
        C.Disable.push_back(*R);
    };
    if (auto *Seq = llvm::dyn_cast_or_null<yaml::SequenceNode>(V)) {
      for (yaml::Node &N : *Seq)
        if (Error.empty())
          add(&N);
      return;
    }
    add(V);
  }

  /// `vocabulary: {name: effects}`; effects a scalar (comma-separated) or a
  /// sequence of them.
  void readVocabulary(yaml::Node *V) {
    auto *Map = llvm::dyn_cast_or_null<yaml::MappingNode>(V);
    if (!Map) {
      fail(V, "'vocabulary' must map function names to effects");
      return;
    }
    for (yaml::KeyValueNode &KV : *Map) {
      if (!Error.empty())
        return;
      std::optional<std::string> Name = scalar(KV.getKey(), "vocabulary");
      if (!Name)
        return;
      if (C.Vocabulary.count(*Name)) {
        fail(KV.getKey(), "duplicate vocabulary entry '" + *Name + "'");
        return;
      }
      std::vector<ptx::Effect> Effects;
      auto addEffects = [&](yaml::Node *N) {
        std::optional<std::string> Text = scalar(N, *Name);
        if (!Text)
          return;
        std::string Why;
        auto Parsed = parseEffects(*Text, Why);
        if (!Parsed)
          return fail(N, Why);
        Effects.insert(Effects.end(), Parsed->begin(), Parsed->end());
      };
      yaml::Node *Value = KV.getValue();
      if (!Value || llvm::isa<yaml::NullNode>(Value)) {
        fail(KV.getKey(), "vocabulary entry '" + *Name +
                              "' needs effects ('' for none)");
        return;
      }
      if (auto *Seq = llvm::dyn_cast_or_null<yaml::SequenceNode>(Value)) {
        for (yaml::Node &N : *Seq)
          if (Error.empty())
            addEffects(&N);
      } else {
        addEffects(Value);
      }
      if (!Error.empty())
        return;
      C.Vocabulary[*Name] = std::move(Effects);
      C.Origin["vocabulary." + *Name] = Path + ":" + lineOf(KV.getKey());
    }
  }
};

/// \p Child over \p Parent: the child's values win, rules disabled in either
/// stay disabled, vocabulary entries merge by name.
Config merge(const Config &Child, const Config &Parent) {
  Config M = Parent;
  M.Files = Child.Files;
  M.Files.insert(M.Files.end(), Parent.Files.begin(), Parent.Files.end());
  if (Child.Arch)
    M.Arch = Child.Arch;
  if (Child.Style)
    M.Style = Child.Style;
  if (Child.RequireInitProxyFence)
    M.RequireInitProxyFence = Child.RequireInitProxyFence;
  if (Child.HeaderFilter)
    M.HeaderFilter = Child.HeaderFilter;
  for (const std::string &R : Child.Disable)
    if (!llvm::is_contained(M.Disable, R))
      M.Disable.push_back(R);
  for (const auto &[Name, Effects] : Child.Vocabulary)
    M.Vocabulary[Name] = Effects;
  for (const auto &[Key, Where] : Child.Origin)
    M.Origin[Key] = Where;
  M.InheritParent = Child.InheritParent;
  return M;
}

} // namespace

llvm::Expected<Config> parseConfig(llvm::StringRef Text, llvm::StringRef Path) {
  return ConfigReader(Text, Path).read();
}

llvm::Expected<std::shared_ptr<const Config>>
ConfigFinder::forPath(llvm::StringRef Path) {
  std::string Abs = absolutePath(Path);
  if (!llvm::sys::fs::is_directory(Abs))
    Abs = llvm::sys::path::parent_path(Abs).str();
  return forDirectory(Abs);
}

llvm::Expected<std::shared_ptr<const Config>>
ConfigFinder::forDirectory(std::string Dir) {
  auto Cached = ByDirectory.find(Dir);
  if (Cached != ByDirectory.end())
    return Cached->second;
  std::shared_ptr<const Config> Found;
  llvm::SmallString<256> File(Dir);
  llvm::sys::path::append(File, ConfigFileName);
  llvm::StringRef Parent = llvm::sys::path::parent_path(Dir);
  if (llvm::sys::fs::is_regular_file(File)) {
    auto Buf = llvm::MemoryBuffer::getFile(File, /*IsText=*/true);
    if (!Buf)
      return llvm::createStringError(Buf.getError(), "cannot read '%s': %s",
                                     File.c_str(),
                                     Buf.getError().message().c_str());
    llvm::Expected<Config> C = parseConfig((*Buf)->getBuffer(), File);
    if (!C)
      return C.takeError();
    if (C->InheritParent && !Parent.empty() && Parent != Dir) {
      auto Up = forDirectory(Parent.str());
      if (!Up)
        return Up.takeError();
      Found = std::make_shared<const Config>(merge(*C, **Up));
    } else {
      Found = std::make_shared<const Config>(std::move(*C));
    }
  } else if (!Parent.empty() && Parent != Dir) {
    auto Up = forDirectory(Parent.str());
    if (!Up)
      return Up.takeError();
    Found = *Up;
  } else {
    Found = std::make_shared<const Config>();
  }
  ByDirectory[Dir] = Found;
  return Found;
}

DriverOptions applyConfig(const DriverOptions &Opts, const Config &C,
                          const std::vector<std::string> &Command) {
  DriverOptions O = Opts;
  if (O.Arch.empty() && C.Arch && !isKnownArch(archOfCommand(Command)))
    O.Arch = *C.Arch;
  if (!O.Given.Style && C.Style)
    O.Style = *C.Style;
  if (!O.Given.RequireInitProxyFence && C.RequireInitProxyFence)
    O.RequireInitProxyFence = *C.RequireInitProxyFence;
  if (!O.Given.HeaderFilter && O.HeaderFilter.empty() && C.HeaderFilter)
    O.HeaderFilter = *C.HeaderFilter;
  // --disable adds to the configuration's rules: neither can re-enable.
  for (const std::string &R : C.Disable)
    if (!llvm::is_contained(O.DisabledRules, R))
      O.DisabledRules.push_back(R);
  // The command line has no vocabulary: the configuration's extends the
  // built-in table.
  O.Vocabulary = C.Vocabulary;
  return O;
}

std::vector<DriverOptions>
optionsPerInput(const DriverOptions &Opts,
                const std::vector<InputCommand> &Inputs, std::string &Why) {
  ConfigFinder Finder;
  std::vector<DriverOptions> PerInput;
  for (const auto &[File, Cmd] : Inputs) {
    auto C = Finder.forPath(File);
    if (!C) {
      Why = llvm::toString(C.takeError());
      return {};
    }
    PerInput.push_back(applyConfig(Opts, **C, Cmd));
  }
  return PerInput;
}

/// A YAML scalar that reads back as \p S.
static std::string quoted(llvm::StringRef S) {
  bool Plain = !S.empty() &&
               S.find_first_of(":#'\"{}[],&*!|>%@`\\") == llvm::StringRef::npos &&
               S.trim() == S && S != "true" && S != "false" && S != "null" &&
               S != "~";
  if (Plain)
    return S.str();
  std::string Q = "'";
  for (char Ch : S)
    Q += Ch == '\'' ? std::string("''") : std::string(1, Ch);
  return Q + "'";
}

int runDumpConfig(const DriverOptions &Opts, llvm::raw_ostream &Out,
                  llvm::raw_ostream &Err) {
  if (!Opts.Arch.empty() && !isKnownArch(Opts.Arch)) {
    Err << "proxyfence: error: unknown --arch '" << Opts.Arch
        << "' (expected a CUDA GPU architecture such as sm_90a or sm_100a)\n";
    return ExitInputError;
  }
  std::vector<std::string> Paths = Opts.Files;
  if (Paths.empty())
    Paths.push_back(".");
  ConfigFinder Finder;
  std::vector<std::pair<std::string, std::shared_ptr<const Config>>> Found;
  for (const std::string &P : Paths) {
    if (!llvm::sys::fs::exists(P)) {
      Err << "proxyfence: error: cannot read '" << P
          << "': no such file or directory\n";
      return ExitInputError;
    }
    auto C = Finder.forPath(P);
    if (!C) {
      Err << "proxyfence: error: " << llvm::toString(C.takeError()) << "\n";
      return ExitInputError;
    }
    Found.push_back({P, *C});
  }
  for (size_t I = 0; I < Found.size(); ++I) {
    const Config &C = *Found[I].second;
    // No compile command here: the configuration's arch shows as set.
    DriverOptions O = applyConfig(Opts, C, {});
    auto from = [&](bool CommandLine, const char *Key) -> std::string {
      if (CommandLine)
        return "command line";
      auto It = C.Origin.find(Key);
      return It == C.Origin.end() ? "default" : It->second;
    };
    if (I)
      Out << "---\n";
    Out << "# proxyfence configuration for " << Found[I].first << "\n";
    if (C.Files.empty())
      Out << "# no " << ConfigFileName << " found; built-in defaults\n";
    for (const std::string &F : C.Files)
      Out << "# from " << F << "\n";
    Out << "# precedence: command line > configuration file > default\n";
    Out << "arch: " << (O.Arch.empty() ? "sm_90a" : O.Arch) << "  # "
        << from(!Opts.Arch.empty(), "arch")
        << " (the compile command's arch comes first)\n";
    Out << "fence-style: " << fenceStyleName(O.Style) << "  # "
        << from(Opts.Given.Style, "fence-style") << "\n";
    Out << "mbarrier-init-proxy-fence: "
        << (O.RequireInitProxyFence ? "require" : "off") << "  # "
        << from(Opts.Given.RequireInitProxyFence, "mbarrier-init-proxy-fence")
        << "\n";
    Out << "header-filter: " << quoted(O.HeaderFilter) << "  # "
        << from(Opts.Given.HeaderFilter || !Opts.HeaderFilter.empty(),
                "header-filter")
        << "\n";
    Out << "disable: [";
    for (size_t R = 0; R < O.DisabledRules.size(); ++R)
      Out << (R ? ", " : "") << O.DisabledRules[R];
    Out << "]";
    if (!O.DisabledRules.empty()) {
      Out << "  # ";
      bool CommandLine = !Opts.DisabledRules.empty(), File = !C.Disable.empty();
      Out << (CommandLine && File ? "command line and " + from(false, "disable")
              : CommandLine       ? std::string("command line")
                                  : from(false, "disable"));
    }
    Out << "\n";
    if (O.Vocabulary.empty()) {
      Out << "vocabulary: {}  # only the built-in table\n";
      continue;
    }
    Out << "vocabulary:  # extends the built-in table\n";
    for (const auto &[Name, Effects] : O.Vocabulary)
      Out << "  " << quoted(Name) << ": " << quoted(formatEffects(Effects))
          << "  # " << from(false, ("vocabulary." + Name).c_str()) << "\n";
  }
  return ExitClean;
}

} // namespace proxyfence
