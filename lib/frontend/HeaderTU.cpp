//===- HeaderTU.cpp - the translation unit to analyse a header in ---------===//
#include "frontend/HeaderTU.h"
#include "frontend/CompileArgs.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include <map>
#include <set>
#include <vector>

namespace proxyfence {

namespace {

/// A project tree with more CUDA sources than this is searched in part.
constexpr size_t MaxTreeSources = 4000;

std::string normalised(llvm::StringRef Dir, llvm::StringRef P) {
  llvm::SmallString<256> S;
  if (llvm::sys::path::is_absolute(P))
    S = P;
  else {
    S = Dir;
    llvm::sys::path::append(S, P);
  }
  llvm::sys::path::remove_dots(S, /*remove_dot_dot=*/true);
  return std::string(S);
}

bool isCuda(const clang::tooling::CompileCommand &C) {
  llvm::StringRef Ext = llvm::sys::path::extension(C.Filename);
  if (Ext == ".cu" || Ext == ".cuh")
    return true;
  for (size_t I = 1; I + 1 < C.CommandLine.size(); ++I)
    if (C.CommandLine[I] == "-x" &&
        (C.CommandLine[I + 1] == "cu" || C.CommandLine[I + 1] == "cuda"))
      return true;
  return llvm::is_contained(C.CommandLine, "-xcu") ||
         llvm::is_contained(C.CommandLine, "-xcuda");
}

/// Where an entry looks for headers: its -iquote and -I directories
/// (system directories hold no project header), and its forced includes.
struct SearchPath {
  std::vector<std::string> Quote, Angled, Forced;
};

SearchPath searchPath(const clang::tooling::CompileCommand &C) {
  SearchPath S;
  const std::vector<std::string> &A = C.CommandLine;
  for (size_t I = 1; I < A.size(); ++I) {
    llvm::StringRef Arg = A[I];
    auto take = [&](llvm::StringRef Flag, std::vector<std::string> &Into) {
      if (!Arg.starts_with(Flag))
        return false;
      llvm::StringRef V = Arg.substr(Flag.size());
      if (V.empty() && I + 1 < A.size())
        V = A[++I];
      Into.push_back(normalised(C.Directory, V));
      return true;
    };
    if (Arg.starts_with("-include-") || Arg.starts_with("-isystem"))
      continue;
    if (take("-iquote", S.Quote) || take("--include-path=", S.Angled) ||
        take("--include-path", S.Angled) || take("-I", S.Angled) ||
        take("--pre-include=", S.Forced) || take("--pre-include", S.Forced) ||
        take("-include", S.Forced))
      continue;
  }
  return S;
}

} // namespace

std::vector<std::string> userIncludeDirs(const std::vector<std::string> &Cmd) {
  clang::tooling::CompileCommand C;
  C.CommandLine = Cmd;
  llvm::SmallString<256> Cwd;
  if (!llvm::sys::fs::current_path(Cwd))
    C.Directory = std::string(Cwd);
  for (llvm::StringRef A : Cmd)
    if (A.consume_front("-working-directory="))
      C.Directory = normalised(C.Directory, A);
  SearchPath S = searchPath(C);
  std::vector<std::string> Dirs = std::move(S.Quote);
  Dirs.insert(Dirs.end(), S.Angled.begin(), S.Angled.end());
  return Dirs;
}

namespace {

/// `#include "x"` / `#include <x>` lines of a file, in order (conditions
/// are not evaluated: any line counts).
std::vector<std::pair<std::string, bool>> includeLines(llvm::StringRef Text) {
  std::vector<std::pair<std::string, bool>> Out;
  while (!Text.empty()) {
    auto [Line, Rest] = Text.split('\n');
    Text = Rest;
    Line = Line.ltrim();
    if (!Line.consume_front("#"))
      continue;
    Line = Line.ltrim();
    if (!Line.consume_front("include_next") && !Line.consume_front("include") &&
        !Line.consume_front("import"))
      continue;
    Line = Line.ltrim();
    if (Line.empty() || (Line[0] != '"' && Line[0] != '<'))
      continue;
    char Close = Line[0] == '"' ? '"' : '>';
    size_t End = Line.find(Close, 1);
    if (End == llvm::StringRef::npos)
      continue;
    Out.emplace_back(Line.substr(1, End - 1).str(), Close == '"');
  }
  return Out;
}

/// Reads include lines transitively, each file once per search path.
class IncludeScanner {
public:
  /// Whether \p Entry (with \p S) reaches \p Target.
  bool reaches(const std::string &Entry, const SearchPath &S,
               const std::string &Target) {
    std::set<std::string> Seen;
    std::vector<std::string> Work(S.Forced.begin(), S.Forced.end());
    Work.push_back(Entry);
    while (!Work.empty()) {
      std::string F = std::move(Work.back());
      Work.pop_back();
      if (F == Target)
        return true;
      if (!Seen.insert(F).second)
        continue;
      for (const std::string &Next : includes(F, S))
        Work.push_back(Next);
    }
    return false;
  }
  /// The fewest `#include` steps from \p Entry to \p Target, if any (a
  /// breadth-first walk).
  std::optional<unsigned> hops(const std::string &Entry, const SearchPath &S,
                               const std::string &Target) {
    std::set<std::string> Seen{Entry};
    std::vector<std::string> Level{Entry};
    for (unsigned Depth = 0; !Level.empty(); ++Depth) {
      std::vector<std::string> Next;
      for (const std::string &F : Level) {
        if (F == Target)
          return Depth;
        for (const std::string &N : includes(F, S))
          if (Seen.insert(N).second)
            Next.push_back(N);
      }
      Level = std::move(Next);
    }
    return std::nullopt;
  }
  unsigned Scanned = 0;

  /// The files \p File names in its `#include` lines that exist.
  const std::vector<std::string> &includes(const std::string &File,
                                           const SearchPath &S) {
    std::string Key = File;
    for (const auto *Dirs : {&S.Quote, &S.Angled})
      for (const std::string &D : *Dirs)
        Key += "\n" + D;
    auto It = Cache.find(Key);
    if (It != Cache.end())
      return It->second;
    std::vector<std::string> &Out = Cache[Key];
    auto Buf = llvm::MemoryBuffer::getFile(File);
    if (!Buf)
      return Out;
    ++Scanned;
    llvm::StringRef Dir = llvm::sys::path::parent_path(File);
    for (const auto &[Name, Quoted] : includeLines((*Buf)->getBuffer())) {
      std::vector<std::string> Dirs;
      if (Quoted) {
        Dirs.push_back(Dir.str());
        Dirs.insert(Dirs.end(), S.Quote.begin(), S.Quote.end());
      }
      Dirs.insert(Dirs.end(), S.Angled.begin(), S.Angled.end());
      for (const std::string &D : Dirs) {
        std::string P = normalised(D, Name);
        if (llvm::sys::fs::is_regular_file(P)) {
          Out.push_back(P);
          break;
        }
      }
    }
    return Out;
  }
  std::map<std::string, std::vector<std::string>> Cache;
};

/// The words and numbers of a source outside comments and preprocessor
/// lines, counted: what its configuration is made of (the template
/// arguments of an explicit instantiation, a kernel's launch constants).
std::map<std::string, unsigned> configurationTokens(llvm::StringRef File) {
  std::map<std::string, unsigned> Out;
  auto Buf = llvm::MemoryBuffer::getFile(File);
  if (!Buf)
    return Out;
  llvm::StringRef Text = (*Buf)->getBuffer();
  bool InBlockComment = false;
  while (!Text.empty()) {
    auto [Line, Rest] = Text.split('\n');
    Text = Rest;
    if (!InBlockComment && Line.ltrim().starts_with("#"))
      continue;
    for (size_t I = 0; I < Line.size();) {
      llvm::StringRef Tail = Line.substr(I);
      if (InBlockComment) {
        size_t End = Tail.find("*/");
        if (End == llvm::StringRef::npos)
          break;
        InBlockComment = false;
        I += End + 2;
        continue;
      }
      if (Tail.starts_with("//"))
        break;
      if (Tail.starts_with("/*")) {
        InBlockComment = true;
        I += 2;
        continue;
      }
      char C = Line[I];
      if (!llvm::isAlnum(C) && C != '_') {
        ++I;
        continue;
      }
      size_t J = I;
      while (J < Line.size() && (llvm::isAlnum(Line[J]) || Line[J] == '_'))
        ++J;
      ++Out[Line.substr(I, J - I).str()];
      I = J;
    }
  }
  return Out;
}

/// How many tokens one configuration has that the other lacks, counted
/// with multiplicity both ways.
unsigned configurationDistance(const std::map<std::string, unsigned> &A,
                               const std::map<std::string, unsigned> &B) {
  unsigned D = 0;
  for (const auto &[T, N] : A) {
    auto It = B.find(T);
    unsigned M = It == B.end() ? 0 : It->second;
    D += N > M ? N - M : M - N;
  }
  for (const auto &[T, N] : B)
    if (!A.count(T))
      D += N;
  return D;
}

/// Path components \p A and \p B share from the root.
unsigned commonPrefix(llvm::StringRef A, llvm::StringRef B) {
  unsigned N = 0;
  for (auto I = llvm::sys::path::begin(A), J = llvm::sys::path::begin(B),
            IE = llvm::sys::path::end(A), JE = llvm::sys::path::end(B);
       I != IE && J != JE && *I == *J; ++I, ++J)
    ++N;
  return N;
}

} // namespace

std::optional<HeaderContext>
headerContext(const clang::tooling::CompilationDatabase &DB,
              llvm::StringRef Header) {
  std::string Target = normalised("/", Header);
  IncludeScanner Scanner;
  std::optional<HeaderContext> Nearest;
  unsigned NearestScore = 0;
  for (const clang::tooling::CompileCommand &C : DB.getAllCompileCommands()) {
    if (!isCuda(C))
      continue;
    std::string Entry = normalised(C.Directory, C.Filename);
    if (Scanner.reaches(Entry, searchPath(C), Target)) {
      HeaderContext H{Entry, C, /*Includes=*/true, Scanner.Scanned};
      return H;
    }
    unsigned Score = commonPrefix(llvm::sys::path::parent_path(Entry),
                                  llvm::sys::path::parent_path(Target));
    if (!Nearest || Score > NearestScore) {
      Nearest = HeaderContext{Entry, C, /*Includes=*/false, 0};
      NearestScore = Score;
    }
  }
  if (!Nearest)
    return Nearest;
  Nearest->FilesScanned = Scanner.Scanned;
  // Its flags, not its source file: the header is the input.
  std::vector<std::string> &A = Nearest->Command.CommandLine;
  for (size_t I = A.size(); I-- > 1;)
    if (A[I] == Nearest->Command.Filename ||
        normalised(Nearest->Command.Directory, A[I]) == Nearest->EntryFile)
      A.erase(A.begin() + I);
  return Nearest;
}

/// The files below \p Root that \p Wanted accepts, in path order, at most
/// \p Limit of them; hidden directories (.git, .cache) are skipped.
static std::vector<std::string>
filesBelow(llvm::StringRef Root, size_t Limit,
           llvm::function_ref<bool(llvm::StringRef)> Wanted) {
  std::vector<std::string> Out;
  std::error_code EC;
  for (llvm::sys::fs::recursive_directory_iterator It(Root, EC), End;
       It != End && !EC && Out.size() < Limit; It.increment(EC)) {
    llvm::StringRef Name = llvm::sys::path::filename(It->path());
    if (Name.starts_with(".")) {
      It.no_push();
      continue;
    }
    // Regular files only: opening a FIFO named `x.cu` would block.
    if (Wanted(Name) && llvm::sys::fs::is_regular_file(It->path()))
      Out.push_back(normalised("/", It->path()));
  }
  llvm::sort(Out);
  return Out;
}

namespace {
/// The flags a header given alone is read with, and the tree searched for
/// files that include it.
struct TreeSearch {
  clang::tooling::CompileCommand Flags;
  SearchPath Path;
  std::string Root;
};

TreeSearch treeSearch(llvm::StringRef Target, llvm::StringRef ProjectRoot,
                      bool GitWorkTree, const std::vector<std::string> &Args) {
  TreeSearch T;
  clang::tooling::CompileCommand &Flags = T.Flags;
  // Relative -I directories are relative to where the tool runs.
  llvm::SmallString<256> Cwd;
  if (!llvm::sys::fs::current_path(Cwd))
    Flags.Directory = std::string(Cwd);
  Flags.CommandLine.push_back("clang++");
  Flags.CommandLine.insert(Flags.CommandLine.end(), Args.begin(), Args.end());
  T.Path = searchPath(Flags);
  const SearchPath &S = T.Path;
  // Outside a git tree: also the directory above the -I or -iquote
  // directory that holds the header (`include/` of a project whose sources
  // sit beside it).
  std::string &Root = T.Root;
  Root = ProjectRoot.str();
  if (!GitWorkTree)
    for (const auto *Dirs : {&S.Quote, &S.Angled})
      for (const std::string &Dir : *Dirs) {
        llvm::StringRef Parent = llvm::sys::path::parent_path(Dir);
        if (Target.starts_with(Dir + "/") && !Parent.empty() &&
            Parent.size() < Root.size() &&
            llvm::StringRef(Root).starts_with(Parent))
          Root = Parent.str();
      }
  return T;
}
} // namespace

namespace {
/// How far a file of the tree is from being the one to read a header in:
/// none when it cannot be.
using CandidateCost = llvm::function_ref<std::optional<unsigned>(
    IncludeScanner &, const std::string &File, const TreeSearch &,
    const std::string &Target)>;

/// Candidate files, each with its cost.
using RatedFiles = std::vector<std::pair<std::string, unsigned>>;

/// The file below the header's tree that \p Wanted names and \p Cost rates
/// lowest, the first in path order on ties; every file rated goes to
/// \p Rated when given.
std::optional<HeaderContext>
cheapestInTree(llvm::StringRef Header, llvm::StringRef ProjectRoot,
               bool GitWorkTree, const std::vector<std::string> &Args,
               llvm::function_ref<bool(llvm::StringRef)> Wanted,
               CandidateCost Cost, RatedFiles *Rated = nullptr) {
  std::string Target = normalised("/", Header);
  TreeSearch T = treeSearch(Target, ProjectRoot, GitWorkTree, Args);
  IncludeScanner Scanner;
  std::optional<HeaderContext> Best;
  unsigned BestCost = 0;
  for (const std::string &F : filesBelow(T.Root, MaxTreeSources, Wanted)) {
    std::optional<unsigned> C = Cost(Scanner, F, T, Target);
    if (C && Rated)
      Rated->emplace_back(F, *C);
    if (!C || (Best && *C >= BestCost))
      continue;
    Best = HeaderContext{F, T.Flags, /*Includes=*/true, 0};
    BestCost = *C;
  }
  if (Best)
    Best->FilesScanned = Scanner.Scanned;
  return Best;
}
} // namespace

/// The lower-case words of a file name's stem (`flash_fwd_hdim64_sm90`:
/// flash, fwd, hdim64, sm90).
static std::set<std::string> nameWords(llvm::StringRef Path) {
  llvm::SmallVector<llvm::StringRef, 8> Parts;
  llvm::sys::path::stem(Path).split(Parts, '_', -1, /*KeepEmpty=*/false);
  std::set<std::string> Words;
  for (llvm::StringRef P : Parts)
    for (llvm::StringRef W : llvm::split(P, '-'))
      if (!W.empty())
        Words.insert(W.lower());
  return Words;
}

/// The word a file name built for \p Arch carries (`sm90` for sm_90a,
/// `sm100` for sm_100f); empty for none.
static std::string archNameWord(llvm::StringRef Arch) {
  if (!Arch.consume_front("sm_"))
    return {};
  llvm::StringRef Digits = Arch.take_while(llvm::isDigit);
  return Digits.empty() ? std::string() : "sm" + Digits.str();
}

std::optional<HeaderContext>
includingSourceInTree(llvm::StringRef Header, llvm::StringRef ProjectRoot,
                      bool GitWorkTree, const std::vector<std::string> &Args) {
  auto IsSource = [](llvm::StringRef Name) {
    return llvm::sys::path::extension(Name) == ".cu";
  };
  // The fewest #include steps; of sources as near, one whose name says it
  // is built for the target architecture (`flash_bwd_hdim128_sm90.cu` for
  // sm_90a), as generated instantiation files are named: one for another
  // architecture may compile the header's code away.
  std::string ArchWord = archNameWord(targetArch(Args, ""));
  auto Hops = [&](IncludeScanner &S, const std::string &File,
                  const TreeSearch &T,
                  const std::string &Target) -> std::optional<unsigned> {
    std::optional<unsigned> H = S.hops(File, T.Path, Target);
    if (!H)
      return H;
    bool ForTarget = !ArchWord.empty() && nameWords(File).count(ArchWord);
    return *H * 2 + (ForTarget ? 0 : 1);
  };
  RatedFiles Including;
  std::optional<HeaderContext> Best = cheapestInTree(
      Header, ProjectRoot, GitWorkTree, Args, IsSource, Hops, &Including);
  if (Best)
    Best->SecondEntryFile =
        mostDifferentSource(Including, Header, Best->EntryFile);
  return Best;
}

std::optional<HeaderContext>
includingHeaderInTree(llvm::StringRef Header, llvm::StringRef ProjectRoot,
                      bool GitWorkTree, const std::vector<std::string> &Args) {
  // A direct includer, the nearer to the header the better.
  auto Distance = [](IncludeScanner &S, const std::string &File,
                     const TreeSearch &T,
                     const std::string &Target) -> std::optional<unsigned> {
    if (File == Target || !llvm::is_contained(S.includes(File, T.Path), Target))
      return std::nullopt;
    return 1000 - commonPrefix(llvm::sys::path::parent_path(File),
                               llvm::sys::path::parent_path(Target));
  };
  return cheapestInTree(Header, ProjectRoot, GitWorkTree, Args, isHeaderName,
                        Distance);
}

std::string mostDifferentSource(
    const std::vector<std::pair<std::string, unsigned>> &Including,
    llvm::StringRef Header, const std::string &First) {
  // As clangd's pick of a file for a header: the sources whose names share
  // the most words with the header's, of those the one configured most
  // unlike the first.
  std::set<std::string> HeaderWords = nameWords(Header);
  auto proximity = [&](llvm::StringRef Source) {
    unsigned N = 0;
    for (const std::string &W : nameWords(Source))
      N += HeaderWords.count(W);
    return N;
  };
  unsigned Nearest = 0;
  for (const auto &[Source, Hops] : Including)
    if (Source != First)
      Nearest = std::max(Nearest, proximity(Source));
  std::map<std::string, unsigned> Chosen = configurationTokens(First);
  auto size = [](const std::map<std::string, unsigned> &T) {
    unsigned N = 0;
    for (const auto &[Word, Count] : T)
      N += Count;
    return N;
  };
  // Another configuration of the same kind has about as much text of its
  // own: one with much more (every configuration at once) would cost far
  // more than the first, one with much less (a file of #includes of other
  // sources) configures nothing itself.
  unsigned MinSize = (2 * size(Chosen) + 2) / 3,
           MaxSize = 3 * size(Chosen) / 2;
  std::string Second;
  unsigned BestDistance = 0, BestHops = 0;
  for (const auto &[Source, Hops] : Including) {
    if (Source == First || proximity(Source) < Nearest)
      continue;
    std::map<std::string, unsigned> Tokens = configurationTokens(Source);
    if (size(Tokens) > MaxSize || size(Tokens) < MinSize)
      continue;
    unsigned D = configurationDistance(Chosen, Tokens);
    if (D > BestDistance || (D == BestDistance && D && Hops < BestHops)) {
      Second = Source;
      BestDistance = D;
      BestHops = Hops;
    }
  }
  return Second;
}

bool isHeaderName(llvm::StringRef Path) {
  llvm::StringRef Ext = llvm::sys::path::extension(Path);
  return Ext.empty() || Ext == ".h" || Ext == ".hh" || Ext == ".hpp" ||
         Ext == ".hxx" || Ext == ".cuh" || Ext == ".inl" || Ext == ".inc";
}

std::string describeHeaderContext(llvm::StringRef Header,
                                  const HeaderContext &C) {
  if (C.Includes)
    return "header " + Header.str() + " analysed in translation unit " +
           C.EntryFile + " (" + std::to_string(C.FilesScanned) +
           " files scanned for #include)";
  return "header " + Header.str() + " is included by no database entry (" +
         std::to_string(C.FilesScanned) +
         " files scanned); analysed as written with the flags of " +
         C.EntryFile;
}

} // namespace proxyfence
