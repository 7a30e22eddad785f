//===- SourceRecovery.cpp - what nvcc accepts and clang rejects ------------===//
#include "frontend/SourceRecovery.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include <algorithm>
#include <cstring>
#include <map>
#include <set>
#include <optional>
#include <tuple>

using llvm::StringRef;

namespace proxyfence {

namespace {

bool isIdent(char C) {
  return (C >= 'a' && C <= 'z') || (C >= 'A' && C <= 'Z') ||
         (C >= '0' && C <= '9') || C == '_' || C == '$';
}
bool isLetter(char C) { return (C >= 'a' && C <= 'z') || (C >= 'A' && C <= 'Z'); }
bool isDigit(char C) { return C >= '0' && C <= '9'; }
bool isBlank(char C) { return C == ' ' || C == '\t'; }

/// One asm statement (or, for an extra escape, one string literal): the
/// bytes to insert, and the blanks that may be spent to pay for them.
struct Span {
  size_t Begin = 0, End = 0;
  std::vector<std::pair<size_t, char>> Inserts; // before offset, byte
  std::vector<size_t> Blanks;                   // removable, in order
};

/// Walks C++ text, skipping comments and literals, to the asm statements.
class Scanner {
public:
  explicit Scanner(StringRef T) : T(T) {}

  /// Offset just past the string or character literal opening at \p I
  /// (T[I] is the quote).
  size_t skipQuoted(size_t I) const {
    char Q = T[I];
    for (++I; I < T.size(); ++I) {
      if (T[I] == '\\') {
        ++I;
        continue;
      }
      if (T[I] == Q || T[I] == '\n')
        return I + 1;
    }
    return T.size();
  }
  /// Past a raw string R"delim( ... )delim"; \p I at the quote.
  size_t skipRaw(size_t I) const {
    size_t Open = T.find('(', I);
    if (Open == StringRef::npos)
      return T.size();
    std::string Close = ")" + T.slice(I + 1, Open).str() + "\"";
    size_t End = T.find(Close, Open);
    return End == StringRef::npos ? T.size() : End + Close.size();
  }
  /// Past a comment starting at \p I, or \p I if there is none.
  size_t skipComment(size_t I) const {
    if (I + 1 >= T.size() || T[I] != '/')
      return I;
    if (T[I + 1] == '/') {
      size_t E = T.find('\n', I);
      return E == StringRef::npos ? T.size() : E;
    }
    if (T[I + 1] == '*') {
      size_t E = T.find("*/", I + 2);
      return E == StringRef::npos ? T.size() : E + 2;
    }
    return I;
  }
  size_t skipSpace(size_t I) const {
    while (I < T.size()) {
      size_t C = skipComment(I);
      if (C != I) {
        I = C;
        continue;
      }
      if (T[I] == ' ' || T[I] == '\t' || T[I] == '\n' || T[I] == '\r' ||
          (T[I] == '\\' && I + 1 < T.size() && T[I + 1] == '\n'))
        ++I;
      else
        break;
    }
    return I;
  }
  size_t identEnd(size_t I) const {
    while (I < T.size() && isIdent(T[I]))
      ++I;
    return I;
  }

  StringRef T;
};

/// `%` escapes in one string literal [Open, Close) of an extended asm
/// template that clang rejects and nvcc passes through: `%` + a letter not
/// followed by an operand number or name (`%laneid`, `%clock64`), and, when
/// the statement has \p Operands operands (negative: not counted), an
/// operand number past them (`%8` of seven: nvcc rejects it only once the
/// statement is instantiated, TK's unused cache-hint variants).
void badEscapes(StringRef T, size_t Open, size_t Close, int Operands,
                std::vector<size_t> &Out) {
  for (size_t I = Open + 1; I + 1 < Close; ++I) {
    if (T[I] == '\\') {
      ++I;
      continue;
    }
    if (T[I] != '%')
      continue;
    char C = T[I + 1];
    size_t D = I + 1; // the operand number, after a modifier letter
    if (isLetter(C)) {
      char N = I + 2 < Close ? T[I + 2] : '"';
      if (!isDigit(N) && N != '[') {
        Out.push_back(I);
        ++I;
        continue;
      }
      ++D;
    }
    if (D < Close && isDigit(T[D]) && Operands >= 0) {
      unsigned Num = 0;
      size_t E = D;
      for (; E < Close && isDigit(T[E]) && Num < 1000; ++E)
        Num = Num * 10 + unsigned(T[E] - '0');
      if (Num >= unsigned(Operands))
        Out.push_back(I);
      I = E - 1;
      continue;
    }
    ++I; // %%, %[name], %=, %{ ...
  }
}

/// Blanks of a string literal of PTX [Open, Close) that can go: next to
/// another blank or to punctuation, never between two words.
void literalBlanks(StringRef T, size_t Open, size_t Close,
                   std::vector<size_t> &Out) {
  auto Word = [](char C) { return isIdent(C) || C == '.' || C == '%'; };
  for (size_t I = Open + 1; I + 1 < Close; ++I) {
    if (T[I] == '\\') {
      ++I;
      continue;
    }
    if (!isBlank(T[I]))
      continue;
    char P = T[I - 1], N = T[I + 1];
    bool AfterEscape = I >= 2 && T[I - 2] == '\\' && (P == 'n' || P == 't');
    if (isBlank(P) || isBlank(N) || AfterEscape || !Word(P) || !Word(N))
      if (P != '\\' && N != '"' && P != '"')
        Out.push_back(I);
  }
}

/// A blank between tokens at \p I that can go without joining two tokens.
bool removableBetweenTokens(StringRef T, size_t I) {
  if (!isBlank(T[I]) || I == 0 || I + 1 >= T.size())
    return false;
  char P = T[I - 1], N = T[I + 1];
  if (isBlank(P) || isBlank(N))
    return P != '\\'; // one of a run
  // Punctuation that forms no longer token with a neighbour.
  auto Safe = [](char C) { return StringRef("(),\"{};").contains(C); };
  if (N == '"' && isIdent(P))
    return false; // would read as an encoding prefix or a literal suffix
  if (P == '"' && isIdent(N))
    return false;
  return Safe(P) || Safe(N);
}

/// Pays for each insertion of \p S with the nearest unused blank (one on
/// the same line first), then rewrites the span of \p Out. Returns the
/// insertions made; the others had no blank to spend.
std::vector<std::pair<size_t, char>> settle(StringRef T, const Span &S,
                                            std::string &Out) {
  std::vector<size_t> Removed;
  std::vector<char> Used(S.Blanks.size(), 0);
  std::vector<std::pair<size_t, char>> Kept;
  for (auto [At, Byte] : S.Inserts) {
    size_t Best = S.Blanks.size();
    std::pair<bool, size_t> BestCost{true, ~size_t(0)};
    for (size_t K = 0; K < S.Blanks.size(); ++K) {
      size_t B = S.Blanks[K];
      if (Used[K] || B == At)
        continue;
      size_t Lo = std::min(B, At), Hi = std::max(B, At);
      std::pair<bool, size_t> Cost{T.slice(Lo, Hi).contains('\n'), Hi - Lo};
      if (Cost < BestCost) {
        BestCost = Cost;
        Best = K;
      }
    }
    if (Best == S.Blanks.size())
      continue;
    Used[Best] = 1;
    Removed.push_back(S.Blanks[Best]);
    Kept.push_back({At, Byte});
  }
  llvm::sort(Removed);
  llvm::sort(Kept);
  // Original bytes, each insert before its offset, the spent blanks left
  // out: the same length, by construction.
  std::string New;
  New.reserve(S.End - S.Begin);
  size_t R = 0, K = 0;
  for (size_t I = S.Begin; I < S.End; ++I) {
    while (K < Kept.size() && Kept[K].first == I)
      New += Kept[K++].second;
    if (R < Removed.size() && Removed[R] == I) {
      ++R;
      continue;
    }
    New += Out[I];
  }
  Out.replace(S.Begin, S.End - S.Begin, New);
  return Kept;
}

/// Counts what \p Made repaired into \p Rec, and what was left.
void count(Recovery &Rec, const Span &S,
           const std::vector<std::pair<size_t, char>> &Made) {
  for (auto [At, Byte] : Made)
    (Byte == '%' ? Rec.Escapes : Rec.Commas) += 1;
  Rec.Unrepairable += S.Inserts.size() - Made.size();
}

/// One asm statement: its span, with the commas and escapes it lacks, and
/// where its `(` and its templates are.
struct AsmStatement {
  Span Sp;
  size_t Open = 0;
  std::vector<std::pair<size_t, size_t>> Templates;
};

/// The asm statement whose keyword spans [\p I, \p E), or none when no `(`
/// follows the keyword or the statement never closes.
std::optional<AsmStatement> scanAsm(const Scanner &S, size_t I, size_t E) {
  StringRef T = S.T;
  // asm [volatile|inline|goto]* ( template [: outputs [: inputs [: ...]]] )
  size_t J = S.skipSpace(E);
  for (;;) {
    size_t WE = S.identEnd(J);
    StringRef Q = T.slice(J, WE);
    if (Q != "volatile" && Q != "__volatile__" && Q != "__volatile" &&
        Q != "inline" && Q != "__inline__" && Q != "goto")
      break;
    J = S.skipSpace(WE);
  }
  if (J >= T.size() || T[J] != '(')
    return std::nullopt;
  AsmStatement St;
  Span &Sp = St.Sp;
  Sp.Begin = I;
  St.Open = J;
  std::vector<size_t> Escapes;
  std::vector<std::pair<size_t, size_t>> &Templates = St.Templates;
  unsigned Colons = 0, Depth = 0;
  // Operands as clang numbers them: outputs, one more for each `+`
  // (read-write) output, inputs; counted only where every operand of the
  // two lists is written out (`"r"(x)`, not a macro's `__AsmType(x)`).
  int Operands = 0;
  unsigned Items[3] = {}, Constraints[3] = {};
  size_t OperandClose = 0; // a `)` ending an operand, awaiting `,`
  size_t K = J;
  for (; K < T.size(); ++K) {
    size_t Cm = S.skipComment(K);
    if (Cm != K) {
      K = Cm - 1;
      continue;
    }
    char X = T[K];
    if (X == '"') {
      size_t LE = S.skipQuoted(K);
      if (Depth == 1 && Colons == 0)
        Templates.push_back({K, LE});
      bool InList = Depth == 1 && Colons >= 1 && Colons <= 2;
      if (InList && OperandClose) {
        Sp.Inserts.push_back({OperandClose + 1, ','});
        ++Items[Colons];
      }
      if (InList) {
        Operands += Colons == 1 && T.slice(K, LE).contains('+') ? 2 : 1;
        ++Constraints[Colons];
        Items[Colons] += Items[Colons] == 0;
      }
      OperandClose = 0;
      K = LE - 1;
      continue;
    }
    if (X == '(' || X == '[') {
      if (X == '[' && Depth == 1 && Colons >= 1 && Colons <= 2 &&
          OperandClose) {
        Sp.Inserts.push_back({OperandClose + 1, ','});
        ++Items[Colons];
      }
      if (Depth == 1 && Colons >= 1 && Colons <= 2)
        Items[Colons] += Items[Colons] == 0;
      OperandClose = 0;
      ++Depth;
      continue;
    }
    if (X == ')' || X == ']') {
      if (--Depth == 0)
        break;
      OperandClose = Depth == 1 && X == ')' ? K : 0;
      continue;
    }
    if (isBlank(X) || X == '\n' || X == '\r')
      continue;
    if (X == ':' && Depth == 1)
      ++Colons;
    else if (Depth == 1 && Colons >= 1 && Colons <= 2)
      Items[Colons] += X == ',' || Items[Colons] == 0;
    OperandClose = 0;
  }
  if (Items[1] != Constraints[1] || Items[2] != Constraints[2])
    Operands = -1;
  if (K >= T.size())
    return std::nullopt;
  Sp.End = K + 1;
  // A `%` is an escape only where there are operands (extended asm).
  // Labels (asm goto) are operands too: not counted, so not judged.
  if (Colons)
    for (auto [LO, LC] : Templates)
      badEscapes(T, LO, LC, Colons <= 3 ? Operands : -1, Escapes);
  for (size_t Esc : Escapes)
    Sp.Inserts.push_back({Esc, '%'});
  return St;
}

/// Repairs \p St in \p Rec; returns whether it paid for an insertion with
/// its blanks (then its span is one that an extra escape may not enter).
bool repairAsm(const Scanner &S, AsmStatement &St, Recovery &Rec) {
  StringRef T = S.T;
  Span &Sp = St.Sp;
  // The missing comma takes the place of a blank right after the `)`.
  std::vector<std::pair<size_t, char>> Pending;
  for (auto &Ins : Sp.Inserts) {
    if (Ins.second == ',' && isBlank(T[Ins.first])) {
      Rec.Text[Ins.first] = ',';
      ++Rec.Commas;
      continue;
    }
    Pending.push_back(Ins);
  }
  Sp.Inserts = std::move(Pending);
  if (Sp.Inserts.empty())
    return false;
  // Blanks: inside the templates, and between the statement's tokens.
  const std::vector<std::pair<size_t, size_t>> &Templates = St.Templates;
  size_t Next = 0;
  for (size_t B = St.Open; B < Sp.End; ++B) {
    if (Next < Templates.size() && B == Templates[Next].first) {
      B = Templates[Next++].second - 1;
      continue;
    }
    if (T[B] == '"') { // an operand's constraint
      B = S.skipQuoted(B) - 1;
      continue;
    }
    if (removableBetweenTokens(T, B))
      Sp.Blanks.push_back(B);
  }
  for (auto [LO, LC] : Templates)
    literalBlanks(T, LO, LC, Sp.Blanks);
  // Not a blank that became a comma.
  llvm::erase_if(Sp.Blanks, [&](size_t B) { return Rec.Text[B] != T[B]; });
  count(Rec, Sp, settle(T, Sp, Rec.Text));
  return true;
}

/// Escapes the front end reported elsewhere (asm strings from macros): each
/// in its string literal \p Literals, outside the statements \p Spans.
void repairExtraEscapes(StringRef T, llvm::ArrayRef<unsigned> ExtraEscapes,
                        const std::vector<Span> &Spans,
                        const std::vector<std::pair<size_t, size_t>> &Literals,
                        Recovery &Rec) {
  for (unsigned Off : ExtraEscapes) {
    if (Off >= T.size() || T[Off] != '%' || Rec.Text[Off] != '%')
      continue;
    if (llvm::any_of(Spans, [&](const Span &Sp) {
          return Sp.Begin <= Off && Off < Sp.End;
        }))
      continue; // already handled with its statement
    auto Lit = llvm::find_if(Literals, [&](auto L) {
      return L.first < Off && Off < L.second;
    });
    if (Lit == Literals.end())
      continue;
    Span Sp;
    Sp.Begin = Lit->first;
    Sp.End = Lit->second;
    Sp.Inserts.push_back({Off, '%'});
    literalBlanks(T, Lit->first, Lit->second, Sp.Blanks);
    count(Rec, Sp, settle(T, Sp, Rec.Text));
  }
}

/// Bytes of the line [\p Begin, \p End) that can go without changing what
/// it means: leading and trailing blanks, all but one blank of a run
/// between two tokens (the whole run beside punctuation that joins no
/// other), and the text of a `//` comment; none inside a literal.
std::vector<size_t> spendableOnLine(StringRef T, size_t Begin, size_t End,
                                    size_t &CommentBegin) {
  std::vector<size_t> Out;
  CommentBegin = End;
  size_t I = Begin;
  while (I < End && isBlank(T[I]))
    Out.push_back(I++);
  while (I < End) {
    char C = T[I];
    if (C == '"' || (C == '\'' && !(I > 0 && isIdent(T[I - 1])))) {
      for (++I; I < End && T[I] != C; ++I)
        if (T[I] == '\\')
          ++I;
      ++I;
      continue;
    }
    if (C == '/' && I + 1 < End && T[I + 1] == '/') {
      CommentBegin = I;
      for (I += 2; I < End; ++I)
        Out.push_back(I);
      break;
    }
    if (!isBlank(C)) {
      ++I;
      continue;
    }
    size_t RunEnd = I;
    while (RunEnd < End && isBlank(T[RunEnd]))
      ++RunEnd;
    // Punctuation that forms no longer token with a neighbour.
    auto Safe = [](char Ch) { return StringRef("(),{};").contains(Ch); };
    bool KeepOne = RunEnd < End && !Safe(T[I - 1]) && !Safe(T[RunEnd]);
    for (size_t B = I + (KeepOne ? 1 : 0); B < RunEnd; ++B)
      Out.push_back(B);
    I = RunEnd;
  }
  return Out;
}

/// Inserts `typename ` at each offset of \p At on one line [\p Begin,
/// \p End) of \p Rec's text, paid for with the spendable bytes nearest to
/// the insertions (spendableOnLine). Returns false, changing nothing, when
/// the line has too few.
/// The end of the line that starts at \p Begin, before any `\r\n`.
size_t lineEnd(StringRef T, size_t Begin) {
  size_t End = T.find('\n', Begin);
  End = End == StringRef::npos ? T.size() : End;
  if (End > Begin && T[End - 1] == '\r')
    --End;
  return End;
}

/// spendableOnLine over the lines of [\p Begin, \p End); \p CommentBegin
/// is the first line's.
std::vector<size_t> spendableOnLines(StringRef T, size_t Begin, size_t End,
                                     size_t &CommentBegin) {
  std::vector<size_t> Out;
  for (size_t B = Begin; B < End;) {
    size_t E = std::min(lineEnd(T, B), End), Comment;
    std::vector<size_t> Line = spendableOnLine(T, B, E, Comment);
    if (B == Begin)
      CommentBegin = Comment;
    Out.insert(Out.end(), Line.begin(), Line.end());
    B = T.find('\n', E);
    if (B == StringRef::npos)
      break;
    ++B;
  }
  return Out;
}

bool insertTypenames(StringRef T, size_t Begin, size_t End,
                     std::vector<size_t> At, Recovery &Rec) {
  static constexpr StringRef Keyword = "typename ";
  size_t Comment;
  std::vector<size_t> Spend = spendableOnLines(T, Begin, End, Comment);
  if (Spend.size() < Keyword.size() * At.size())
    return false;
  // A trailing comment's text first, then blanks after the insertions:
  // what precedes them on the line (the statement, the callee's name,
  // where findings and fixes point) keeps its columns, and only what lies
  // between an insertion and the bytes it spends shifts right.
  size_t Last = *llvm::max_element(At);
  auto Cost = [&](size_t B) {
    size_t D = ~size_t(0);
    for (size_t A : At)
      D = std::min(D, B < A ? A - B : B - A);
    return std::tuple{B < Last, B < Comment, D};
  };
  llvm::stable_sort(Spend,
                    [&](size_t X, size_t Y) { return Cost(X) < Cost(Y); });
  Spend.resize(Keyword.size() * At.size());
  llvm::sort(Spend);
  llvm::sort(At);
  std::string Line;
  size_t S = 0, A = 0;
  for (size_t I = Begin; I < End; ++I) {
    while (A < At.size() && At[A] == I) {
      Line += Keyword;
      ++A;
    }
    if (S < Spend.size() && Spend[S] == I) {
      ++S;
      continue;
    }
    Line += T[I];
  }
  Rec.Text.replace(Begin, End - Begin, Line);
  Rec.Typenames += At.size();
  return true;
}

/// The `typename` that nvcc lets a dependent type name in a template
/// argument do without (`f<T::value_type>(x)`): clang takes the name for
/// a value until the instantiation, which then fails and drops the call.
/// \p At are the names' offsets, from an earlier parse's errors. Lines that
/// hold a repaired asm statement (\p Spans) are left alone.
void repairTypenames(StringRef T, llvm::ArrayRef<unsigned> At,
                     const std::vector<Span> &Spans, Recovery &Rec) {
  std::map<size_t, std::vector<size_t>> ByLine; // line begin -> offsets
  for (unsigned Off : At) {
    if (Off >= T.size() || !(isIdent(T[Off]) || T.substr(Off, 2) == "::"))
      continue;
    if (T.substr(0, Off).rtrim(" \t").ends_with("typename"))
      continue;
    size_t LineBegin = T.rfind('\n', Off);
    LineBegin = LineBegin == StringRef::npos ? 0 : LineBegin + 1;
    auto &V = ByLine[LineBegin];
    if (!llvm::is_contained(V, Off))
      V.push_back(Off);
  }
  auto InAsm = [&](size_t Begin, size_t End) {
    return llvm::any_of(Spans, [&](const Span &Sp) {
      return Sp.Begin < End && Begin < Sp.End;
    });
  };
  std::set<size_t> Joined; // lines repaired with an earlier one
  for (auto &[Begin, Offsets] : ByLine) {
    if (Joined.count(Begin))
      continue;
    size_t End = lineEnd(T, Begin);
    std::vector<size_t> Unit = Offsets, JoinedHere;
    bool Done = !InAsm(Begin, End) && insertTypenames(T, Begin, End, Unit, Rec);
    // A short line (`f<T::X>(y);`) spends the blanks and comments of the
    // next lines, up to three of them: only the text between the insertion
    // and the bytes spent moves. A next line that needs repairs of its own
    // (`recast<decltype(c)::source_type>` then `::result_type`) joins them.
    for (int More = 0; !Done && More < 3 && !InAsm(Begin, End); ++More) {
      size_t Next = T.find('\n', End);
      if (Next == StringRef::npos)
        break;
      ++Next;
      if (InAsm(Next, lineEnd(T, Next)))
        break;
      if (auto It = ByLine.find(Next); It != ByLine.end()) {
        Unit.insert(Unit.end(), It->second.begin(), It->second.end());
        JoinedHere.push_back(Next);
      }
      End = lineEnd(T, Next);
      Done = insertTypenames(T, Begin, End, Unit, Rec);
    }
    if (Done) {
      Joined.insert(JoinedHere.begin(), JoinedHere.end());
      continue;
    }
    // Lines that would have joined this one try again on their own.
    Rec.TypenamesLeft += Offsets.size();
  }
}

} // namespace

Recovery recoverSource(StringRef T, llvm::ArrayRef<unsigned> ExtraEscapes,
                       llvm::ArrayRef<unsigned> Typenames) {
  Recovery Rec;
  Rec.Text = T.str();
  Scanner S(T);
  std::vector<Span> Spans;
  std::vector<std::pair<size_t, size_t>> Literals; // every string literal
  for (size_t I = 0; I < T.size();) {
    size_t C = S.skipComment(I);
    if (C != I) {
      I = C;
      continue;
    }
    char Ch = T[I];
    if (Ch == '"') {
      bool Raw = I > 0 && T[I - 1] == 'R' && (I < 2 || !isIdent(T[I - 2]) ||
                                              T.slice(I - 3, I - 1) == "u8" ||
                                              StringRef("uUL").contains(T[I - 2]));
      size_t E = Raw ? S.skipRaw(I) : S.skipQuoted(I);
      if (!Raw)
        Literals.push_back({I, E});
      I = E;
      continue;
    }
    if (Ch == '\'' && !(I > 0 && isIdent(T[I - 1]))) {
      I = S.skipQuoted(I); // not a digit separator
      continue;
    }
    if (!isIdent(Ch)) {
      ++I;
      continue;
    }
    size_t E = S.identEnd(I);
    StringRef Word = T.slice(I, E);
    bool StartsWord = I == 0 || !isIdent(T[I - 1]);
    if (!StartsWord || (Word != "asm" && Word != "__asm__" && Word != "__asm")) {
      I = E;
      continue;
    }
    std::optional<AsmStatement> St = scanAsm(S, I, E);
    if (!St) {
      I = E;
      continue;
    }
    if (repairAsm(S, *St, Rec))
      Spans.push_back(St->Sp);
    I = St->Sp.End;
  }
  repairExtraEscapes(T, ExtraEscapes, Spans, Literals, Rec);
  repairTypenames(T, Typenames, Spans, Rec);
  return Rec;
}

/// The file as read, repaired when it needs it.
class RecoveredFile : public llvm::vfs::File {
public:
  RecoveredFile(std::unique_ptr<llvm::vfs::File> Real, std::string Path,
                RecoveringFileSystem &FS)
      : Real(std::move(Real)), Path(std::move(Path)), FS(FS) {}
  llvm::ErrorOr<llvm::vfs::Status> status() override { return Real->status(); }
  llvm::ErrorOr<std::string> getName() override { return Real->getName(); }
  std::error_code close() override { return Real->close(); }
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>>
  getBuffer(const llvm::Twine &Name, int64_t FileSize,
            bool RequiresNullTerminator, bool IsVolatile) override;

private:
  std::unique_ptr<llvm::vfs::File> Real;
  std::string Path;
  RecoveringFileSystem &FS;
};

llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>>
RecoveredFile::getBuffer(const llvm::Twine &Name, int64_t FileSize,
                         bool RequiresNullTerminator, bool IsVolatile) {
  auto Buf = Real->getBuffer(Name, FileSize, RequiresNullTerminator, IsVolatile);
  if (!Buf)
    return Buf;
  StringRef Text = (*Buf)->getBuffer();
  std::vector<unsigned> Extra, Typenames;
  {
    std::lock_guard<std::mutex> G(FS.Lock);
    auto It = FS.Extra.find(Path);
    if (It != FS.Extra.end())
      Extra = It->second;
    auto TN = FS.TypenameAt.find(Path);
    if (TN != FS.TypenameAt.end())
      Typenames = TN->second;
  }
  // Cheap test first: most files have no asm at all.
  if (Extra.empty() && Typenames.empty() &&
      Text.find("asm") == StringRef::npos)
    return Buf;
  Recovery R = recoverSource(Text, Extra, Typenames);
  if (R.Text == Text) {
    if (R.Unrepairable || R.TypenamesLeft) {
      std::lock_guard<std::mutex> G(FS.Lock);
      FS.Unrepaired += R.Unrepairable;
      FS.TypenamesLeft += R.TypenamesLeft;
    }
    return Buf;
  }
  std::string Original = Text.str();
  auto Repaired = llvm::MemoryBuffer::getMemBufferCopy(R.Text, Name);
  FS.noteRepaired(Path, std::move(Original), R);
  return std::unique_ptr<llvm::MemoryBuffer>(std::move(Repaired));
}

void RecoveringFileSystem::addEscapes(const std::string &Path,
                                      llvm::ArrayRef<unsigned> Offsets) {
  std::lock_guard<std::mutex> G(Lock);
  auto &V = Extra[Path];
  V.insert(V.end(), Offsets.begin(), Offsets.end());
}

void RecoveringFileSystem::addTypenames(const std::string &Path,
                                        llvm::ArrayRef<unsigned> Offsets) {
  std::lock_guard<std::mutex> G(Lock);
  auto &V = TypenameAt[Path];
  V.insert(V.end(), Offsets.begin(), Offsets.end());
}

llvm::ErrorOr<std::unique_ptr<llvm::vfs::File>>
RecoveringFileSystem::openFileForRead(const llvm::Twine &Path) {
  auto F = ProxyFileSystem::openFileForRead(Path);
  if (!F)
    return F;
  return std::unique_ptr<llvm::vfs::File>(
      new RecoveredFile(std::move(*F), Path.str(), *this));
}

void RecoveringFileSystem::noteRepaired(const std::string &Path,
                                        std::string Original,
                                        const Recovery &R) {
  std::lock_guard<std::mutex> G(Lock);
  Originals.emplace(Path, std::move(Original));
  Repairs += R.Escapes + R.Commas;
  Unrepaired += R.Unrepairable;
  Typenames += R.Typenames;
  TypenamesLeft += R.TypenamesLeft;
}

std::map<std::string, std::string> RecoveringFileSystem::originals() const {
  std::lock_guard<std::mutex> G(Lock);
  return Originals;
}

unsigned RecoveringFileSystem::repairs() const {
  std::lock_guard<std::mutex> G(Lock);
  return Repairs;
}

unsigned RecoveringFileSystem::unrepaired() const {
  std::lock_guard<std::mutex> G(Lock);
  return Unrepaired;
}

unsigned RecoveringFileSystem::typenames() const {
  std::lock_guard<std::mutex> G(Lock);
  return Typenames;
}

unsigned RecoveringFileSystem::typenamesLeft() const {
  std::lock_guard<std::mutex> G(Lock);
  return TypenamesLeft;
}

} // namespace proxyfence
