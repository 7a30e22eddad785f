//===- Suppressions.cpp - NOLINT and proxyfence: ignore comments -----------===//
#include "report/Suppressions.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include <optional>
#include <string>
#include <vector>

using llvm::StringRef;

namespace proxyfence {

namespace {

enum class Scope { Line, NextLine, Begin, End };

struct Directive {
  Scope Kind;
  /// The text between the parentheses; none: every check.
  std::optional<std::string> Checks;
  bool ProxyfenceComment = false; // `proxyfence: ignore...`
};

/// `*` matches any run of characters, the rest literally.
bool globMatches(StringRef Glob, StringRef Name) {
  if (Glob.empty())
    return Name.empty();
  if (Glob.front() == '*') {
    for (size_t I = 0; I <= Name.size(); ++I)
      if (globMatches(Glob.drop_front(), Name.drop_front(I)))
        return true;
    return false;
  }
  return !Name.empty() && Glob.front() == Name.front() &&
         globMatches(Glob.drop_front(), Name.drop_front());
}

bool appliesTo(const Directive &D, StringRef Check) {
  if (!D.Checks)
    return true;
  llvm::SmallVector<StringRef, 4> Parts;
  StringRef(*D.Checks).split(Parts, ',');
  for (StringRef P : Parts) {
    P = P.trim();
    std::string Glob = P.str();
    if (D.ProxyfenceComment && !P.starts_with("proxyfence-") && !P.empty())
      Glob = "proxyfence-" + Glob;
    if (!P.empty() && globMatches(Glob, Check))
      return true;
  }
  return false;
}

/// An optional `(...)` right after a directive keyword. False when the
/// parenthesis is not closed on the line (then there is no directive).
bool takeCheckList(StringRef &Rest, Directive &D) {
  if (!Rest.consume_front("("))
    return true;
  size_t Close = Rest.find(')');
  if (Close == StringRef::npos)
    return false;
  D.Checks = Rest.take_front(Close).str();
  Rest = Rest.drop_front(Close + 1);
  return true;
}

bool isIdentifierChar(char C) { return llvm::isAlnum(C) || C == '_'; }

std::vector<Directive> directivesOn(StringRef Line) {
  std::vector<Directive> Out;
  for (size_t At = Line.find("NOLINT"); At != StringRef::npos;
       At = Line.find("NOLINT", At + 1)) {
    StringRef Rest = Line.drop_front(At + 6);
    Directive D{Scope::Line, std::nullopt};
    if (Rest.consume_front("NEXTLINE"))
      D.Kind = Scope::NextLine;
    else if (Rest.consume_front("BEGIN"))
      D.Kind = Scope::Begin;
    else if (Rest.consume_front("END"))
      D.Kind = Scope::End;
    if (!Rest.empty() && isIdentifierChar(Rest.front()))
      continue; // NOLINTFOO is not a directive
    if (takeCheckList(Rest, D))
      Out.push_back(D);
  }
  for (size_t At = Line.find("proxyfence:"); At != StringRef::npos;
       At = Line.find("proxyfence:", At + 1)) {
    StringRef Rest = Line.drop_front(At + 11).ltrim();
    Directive D{Scope::Line, std::nullopt, true};
    if (Rest.consume_front("ignore-next-line"))
      D.Kind = Scope::NextLine;
    else if (!Rest.consume_front("ignore"))
      continue;
    if (!Rest.empty() && (isIdentifierChar(Rest.front()) || Rest.front() == '-'))
      continue;
    if (takeCheckList(Rest, D))
      Out.push_back(D);
  }
  return Out;
}

} // namespace

SuppressionIndex::SuppressionIndex(StringRef Text) {
  // NOLINTBEGIN regions: as in clang-tidy, only one closed by a matching
  // NOLINTEND (the same check list) counts.
  std::vector<std::pair<unsigned, std::optional<std::string>>> Open;
  unsigned N = 1;
  for (StringRef Rest = Text; !Rest.empty(); ++N) {
    auto [L, Tail] = Rest.split('\n');
    Rest = Tail;
    for (Directive &D : directivesOn(L)) {
      if (D.Kind == Scope::Line || D.Kind == Scope::NextLine) {
        unsigned Target = D.Kind == Scope::Line ? N : N + 1;
        Lines.push_back({Target, std::move(D.Checks), D.ProxyfenceComment});
      } else if (D.Kind == Scope::Begin) {
        Open.emplace_back(N, D.Checks);
      } else {
        for (size_t I = Open.size(); I-- > 0;) {
          if (Open[I].second != D.Checks)
            continue;
          Regions.push_back({Open[I].first, N, D.Checks});
          Open.erase(Open.begin() + I);
          break;
        }
      }
    }
  }
  llvm::sort(Lines, [](const LineEntry &X, const LineEntry &Y) {
    return X.Line < Y.Line;
  });
}

bool SuppressionIndex::suppressed(unsigned Line, StringRef Check) const {
  if (Line == 0)
    return false;
  auto It = llvm::partition_point(
      Lines, [Line](const LineEntry &E) { return E.Line < Line; });
  for (; It != Lines.end() && It->Line == Line; ++It)
    if (appliesTo(Directive{Scope::Line, It->Checks, It->ProxyfenceComment},
                  Check))
      return true;
  for (const RegionEntry &R : Regions)
    if (R.Begin <= Line && Line <= R.End &&
        appliesTo(Directive{Scope::Begin, R.Checks}, Check))
      return true;
  return false;
}

bool isSuppressed(StringRef Text, unsigned Line, StringRef Check) {
  return SuppressionIndex(Text).suppressed(Line, Check);
}

} // namespace proxyfence
