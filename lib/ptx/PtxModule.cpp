//===- PtxModule.cpp - a whole PTX module: functions, line info, CFGs -----===//
//
// The module level is a short list of statement forms: line directives
// (`.version`, `.target`, `.address_size`, `.file`), `.section` blocks (debug
// data, skipped), declarations ending in `;` (possibly with `= {...}`
// initialisers) and functions, whose body is the `{ }` after the header.
// Bodies go to ptx::parse, which keeps labels, scopes and directives.
//
//===----------------------------------------------------------------------===//
#include "ptx/PtxModule.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include <algorithm>
#include <optional>
#include <tuple>

using llvm::StringRef;

namespace proxyfence::ptx {

int Function::resolveLabel(unsigned From, StringRef Name) const {
  unsigned S = From < Body.size() ? Body[From].I.Scope : 0;
  while (true) {
    for (const Label &L : Labels)
      if (L.Scope == S && L.Name == Name)
        return static_cast<int>(L.Target);
    if (S == 0 || S >= ScopeParents.size())
      return -1;
    S = ScopeParents[S];
  }
}

int Module::find(StringRef Name) const {
  for (size_t I = 0; I < Functions.size(); ++I)
    if (Functions[I].Name == Name)
      return static_cast<int>(I);
  return -1;
}

std::string callee(const Instruction &I) {
  if (I.Parts.empty() || I.Parts[0] != "call")
    return "";
  // call[.uni] [(ret),] target, (args)[, prototype]
  for (const Operand &O : I.Operands) {
    StringRef T = StringRef(O.Text).trim();
    if (T.starts_with("("))
      continue;
    return T.starts_with("%") ? "" : T.str();
  }
  return "";
}

namespace {

bool isSpace(char C) {
  return C == ' ' || C == '\t' || C == '\n' || C == '\r' || C == '\v' ||
         C == '\f';
}

bool isIdentChar(char C) {
  return llvm::isAlnum(C) || C == '_' || C == '$' || C == '%' || C == '.';
}

/// Blanks comments, keeping offsets and newlines; string literals (`.file`
/// paths, `.pragma "nounroll"`) may hold `//`.
std::string blankComments(StringRef Text) {
  std::string Out = Text.str();
  size_t N = Out.size();
  for (size_t I = 0; I < N;) {
    char C = Out[I];
    if (C == '"') {
      for (++I; I < N && Out[I] != '"' && Out[I] != '\n'; ++I)
        if (Out[I] == '\\' && I + 1 < N)
          ++I;
      if (I < N && Out[I] == '"')
        ++I;
    } else if (C == '/' && I + 1 < N && Out[I + 1] == '/') {
      for (; I < N && Out[I] != '\n'; ++I)
        Out[I] = ' ';
    } else if (C == '/' && I + 1 < N && Out[I + 1] == '*') {
      Out[I] = Out[I + 1] = ' ';
      for (I += 2; I < N; ++I) {
        if (Out[I] == '*' && I + 1 < N && Out[I + 1] == '/') {
          Out[I] = Out[I + 1] = ' ';
          I += 2;
          break;
        }
        if (Out[I] != '\n')
          Out[I] = ' ';
      }
    } else {
      ++I;
    }
  }
  return Out;
}

/// Reads "N L C" from the front of \p S.
bool readPos(StringRef &S, SourcePos &P) {
  unsigned *Fields[] = {&P.File, &P.Line, &P.Col};
  for (unsigned *F : Fields) {
    S = S.ltrim();
    StringRef Num = S.take_while(llvm::isDigit);
    if (Num.empty() || Num.getAsInteger(10, *F))
      return false;
    S = S.drop_front(Num.size());
  }
  return true;
}

class ModuleParser {
public:
  explicit ModuleParser(StringRef Text) : Clean(blankComments(Text)), S(Clean) {
    LineStarts.push_back(0);
    for (size_t I = 0; I < S.size(); ++I)
      if (S[I] == '\n')
        LineStarts.push_back(I + 1);
  }

  llvm::Expected<Module> run() {
    skipSpaces();
    if (!S.substr(Pos).starts_with(".version"))
      return llvm::createStringError(
          "not a PTX module: it does not start with a .version directive");
    while (true) {
      skipSpaces();
      if (Pos >= S.size())
        break;
      if (S[Pos] == '}')
        return error(Pos, "unbalanced '}'");
      if (S[Pos] != '.')
        return error(Pos, "unexpected '" +
                              S.substr(Pos).take_until(isSpace).take_front(40) +
                              "' outside a function body");
      StringRef Word = S.substr(Pos).take_until([](char C) {
        return isSpace(C) || C == '(' || C == ';' || C == '{';
      });
      if (Word == ".version" || Word == ".target" || Word == ".address_size") {
        Pos += Word.size();
        StringRef Value = restOfLine().trim();
        if (Word == ".version")
          M.Version = Value.str();
        else if (Word == ".target")
          M.Target = Value.str();
      } else if (Word == ".file") {
        Pos += Word.size();
        file(restOfLine());
      } else if (Word == ".loc") {
        restOfLine();
      } else if (Word == ".section") {
        if (llvm::Error E = section())
          return std::move(E);
      } else if (llvm::Error E = statement()) {
        return std::move(E);
      }
    }
    return std::move(M);
  }

private:
  std::string Clean;
  StringRef S;
  size_t Pos = 0;
  std::vector<size_t> LineStarts;
  Module M;
  /// The line info most recently given for a position: where an
  /// `inlined_at` chain continues.
  std::map<std::tuple<unsigned, unsigned, unsigned>, unsigned> LastInfoAt;

  unsigned lineOf(size_t Off) const {
    return std::upper_bound(LineStarts.begin(), LineStarts.end(), Off) -
           LineStarts.begin();
  }
  unsigned colOf(size_t Off) const {
    return Off - LineStarts[lineOf(Off) - 1] + 1;
  }

  llvm::Error error(size_t Off, const llvm::Twine &Msg) const {
    return llvm::createStringError("line " + llvm::Twine(lineOf(Off)) + ": " +
                                   Msg);
  }

  void skipSpaces() {
    while (Pos < S.size() && isSpace(S[Pos]))
      ++Pos;
  }

  StringRef restOfLine() {
    size_t Start = Pos;
    while (Pos < S.size() && S[Pos] != '\n')
      ++Pos;
    return S.slice(Start, Pos);
  }

  /// `.file 1 "path"[, timestamp, size]`.
  void file(StringRef Line) {
    Line = Line.ltrim();
    StringRef Num = Line.take_while(llvm::isDigit);
    unsigned N;
    if (Num.getAsInteger(10, N))
      return;
    Line = Line.drop_front(Num.size()).ltrim();
    if (!Line.consume_front("\""))
      return;
    std::string Path;
    for (size_t I = 0; I < Line.size() && Line[I] != '"'; ++I) {
      if (Line[I] == '\\' && I + 1 < Line.size())
        ++I;
      Path += Line[I];
    }
    M.Files[N] = Path;
  }

  /// Offset of the `}` matching the `{` at \p Open; npos if none.
  size_t matchingBrace(size_t Open) const {
    unsigned Depth = 0;
    for (size_t I = Open; I < S.size(); ++I) {
      if (S[I] == '{')
        ++Depth;
      else if (S[I] == '}' && --Depth == 0)
        return I;
    }
    return StringRef::npos;
  }

  /// `.section .debug_str { ... }`: debug data, not code.
  llvm::Error section() {
    size_t Start = Pos;
    while (Pos < S.size() && S[Pos] != '{' && S[Pos] != ';' && S[Pos] != '\n')
      ++Pos;
    if (Pos < S.size() && S[Pos] == '\n') {
      skipSpaces();
      if (Pos >= S.size() || S[Pos] != '{')
        return llvm::Error::success(); // a section switch without a block
    }
    if (Pos < S.size() && S[Pos] == '{') {
      size_t Close = matchingBrace(Pos);
      if (Close == StringRef::npos)
        return error(Start, "the .section block never ends");
      Pos = Close + 1;
    } else if (Pos < S.size()) {
      ++Pos; // `;`
    }
    return llvm::Error::success();
  }

  /// A declaration (`...;`, maybe with `= {...}`) or a function.
  llvm::Error statement() {
    size_t Start = Pos;
    unsigned Parens = 0;
    bool Init = false;
    for (; Pos < S.size(); ++Pos) {
      char C = S[Pos];
      if (C == '(') {
        ++Parens;
      } else if (C == ')') {
        if (Parens)
          --Parens;
      } else if (C == '}' && !Parens) {
        return error(Pos, "unbalanced '}'");
      } else if (Parens) {
        continue;
      } else if (C == '=') {
        Init = true;
      } else if (C == ';') {
        ++Pos;
        return llvm::Error::success();
      } else if (C == '{') {
        size_t Close = matchingBrace(Pos);
        if (Close == StringRef::npos)
          return error(Pos, "'{' is never closed");
        if (Init) { // an initialiser: the statement goes on to its `;`
          Pos = Close;
          continue;
        }
        StringRef Header = S.slice(Start, Pos);
        bool IsEntry = false;
        if (auto Name = functionName(Header, IsEntry))
          function(*Name, IsEntry, Header, Start, Pos, Close);
        Pos = Close + 1;
        return llvm::Error::success();
      }
    }
    return error(Start, "the statement never ends (no ';' or body)");
  }

  /// The name after `.entry`/`.func` and an optional `(returns)`; nullopt
  /// when the header declares no function.
  static std::optional<std::string> functionName(StringRef Header,
                                                 bool &IsEntry) {
    size_t At = StringRef::npos;
    for (StringRef D : {".entry", ".func"}) {
      size_t K = Header.find(D);
      while (K != StringRef::npos) {
        size_t E = K + D.size();
        if ((K == 0 || isSpace(Header[K - 1])) &&
            (E >= Header.size() || isSpace(Header[E]) || Header[E] == '(')) {
          At = E;
          IsEntry = D == ".entry";
          break;
        }
        K = Header.find(D, E);
      }
      if (At != StringRef::npos)
        break;
    }
    if (At == StringRef::npos)
      return std::nullopt;
    StringRef Rest = Header.substr(At).ltrim();
    if (Rest.starts_with("(")) {
      size_t Close = Rest.find(')');
      Rest = Close == StringRef::npos ? "" : Rest.substr(Close + 1).ltrim();
    }
    return Rest.take_while(isIdentChar).str();
  }

  void function(std::string Name, bool IsEntry, StringRef Header, size_t Start,
                size_t Open, size_t Close) {
    Function F;
    F.Name = std::move(Name);
    F.IsEntry = IsEntry;
    F.Line = lineOf(Start + (Header.size() - Header.ltrim().size()));
    size_t Base = Open + 1;
    Program P = parse(S.slice(Base, Close));
    F.ScopeParents = std::move(P.ScopeParents);
    LastInfoAt.clear();
    int Info = -1; // a `.loc` holds until the next one
    size_t I = 0, L = 0, D = 0;
    const size_t NoMore = ~size_t(0);
    while (true) {
      size_t OI = I < P.Instructions.size() ? P.Instructions[I].Offset : NoMore;
      size_t OL = L < P.Labels.size() ? P.LabelOffsets[L] : NoMore;
      size_t OD = D < P.Directives.size() ? P.Directives[D].Offset : NoMore;
      size_t Next = std::min({OI, OL, OD});
      if (Next == NoMore)
        break;
      if (Next == OD) {
        StringRef Text = P.Directives[D++].Text;
        if (Text.consume_front(".loc") && !Text.empty() && isSpace(Text[0]))
          Info = loc(Text, Info);
      } else if (Next == OL) {
        F.Labels.push_back({P.Labels[L], P.LabelScopes[L],
                            static_cast<unsigned>(F.Body.size())});
        ++L;
      } else {
        ModuleInstruction MI;
        MI.I = std::move(P.Instructions[I++]);
        MI.I.Offset += Base;
        MI.Line = lineOf(MI.I.Offset);
        MI.Col = colOf(MI.I.Offset);
        MI.LineInfo = Info;
        F.Body.push_back(std::move(MI));
      }
    }
    M.Functions.push_back(std::move(F));
  }

  /// `.loc F L C[, function_name label[+off], inlined_at F2 L2 C2]`: the new
  /// line info, or \p Current when the directive is malformed.
  int loc(StringRef Text, int Current) {
    SourcePos P;
    if (!readPos(Text, P))
      return Current;
    std::vector<SourcePos> Chain{P};
    size_t At = Text.find("inlined_at");
    SourcePos Outer;
    StringRef Rest = At == StringRef::npos ? "" : Text.substr(At + 10);
    if (At != StringRef::npos && readPos(Rest, Outer)) {
      auto It = LastInfoAt.find({Outer.File, Outer.Line, Outer.Col});
      if (It != LastInfoAt.end())
        Chain.insert(Chain.end(), M.LineInfos[It->second].begin(),
                     M.LineInfos[It->second].end());
      else
        Chain.push_back(Outer);
    }
    M.LineInfos.push_back(std::move(Chain));
    unsigned Index = M.LineInfos.size() - 1;
    LastInfoAt[{P.File, P.Line, P.Col}] = Index;
    return static_cast<int>(Index);
  }
};

enum class Flow { Next, Branch, AnyLabel, Return, Trap };

Flow flowOf(const Instruction &I) {
  if (I.Parts.empty())
    return Flow::Next;
  StringRef Op = I.Parts[0];
  if (Op == "bra")
    return Flow::Branch;
  if (Op == "brx")
    return Flow::AnyLabel;
  if (Op == "ret" || Op == "exit")
    return Flow::Return;
  if (Op == "trap")
    return Flow::Trap;
  return Flow::Next;
}

} // namespace

llvm::Expected<Module> parseModule(StringRef Text) {
  return ModuleParser(Text).run();
}

Cfg buildCfg(const Function &F) {
  Cfg G;
  unsigned N = F.Body.size();
  if (N == 0)
    return G;
  std::vector<bool> Leader(N + 1, false);
  Leader[0] = true;
  for (const Function::Label &L : F.Labels)
    Leader[std::min(L.Target, N)] = true;
  for (unsigned I = 0; I < N; ++I)
    if (flowOf(F.Body[I].I) != Flow::Next)
      Leader[I + 1] = true;

  std::vector<unsigned> BlockOf(N, 0);
  for (unsigned I = 0; I < N; ++I) {
    if (Leader[I]) {
      if (!G.Blocks.empty())
        G.Blocks.back().End = I;
      G.Blocks.push_back({I, N, {}, false});
    }
    BlockOf[I] = G.Blocks.size() - 1;
  }

  for (Cfg::Block &B : G.Blocks) {
    auto GoTo = [&](unsigned Target) {
      if (Target >= N)
        B.Exits = true; // falls off the end of the body
      else
        B.Succs.push_back(BlockOf[Target]);
    };
    auto AnyLabel = [&] {
      for (const Function::Label &L : F.Labels)
        GoTo(L.Target);
    };
    const Instruction &Last = F.Body[B.End - 1].I;
    bool Guarded = !Last.Predicate.empty();
    switch (flowOf(Last)) {
    case Flow::Next:
      GoTo(B.End);
      break;
    case Flow::Branch: {
      int T = Last.Operands.empty()
                  ? -1
                  : F.resolveLabel(B.End - 1,
                                   StringRef(Last.Operands[0].Text).trim());
      if (T >= 0)
        GoTo(T);
      else
        AnyLabel();
      if (Guarded)
        GoTo(B.End);
      break;
    }
    case Flow::AnyLabel:
      AnyLabel();
      if (Guarded)
        GoTo(B.End);
      break;
    case Flow::Return:
      B.Exits = true;
      if (Guarded)
        GoTo(B.End);
      break;
    case Flow::Trap:
      if (Guarded)
        GoTo(B.End);
      break;
    }
    llvm::sort(B.Succs);
    B.Succs.erase(std::unique(B.Succs.begin(), B.Succs.end()), B.Succs.end());
  }
  return G;
}

} // namespace proxyfence::ptx
