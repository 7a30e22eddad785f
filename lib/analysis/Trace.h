//===- Trace.h - why an operation at one line has a finding, or has not ---===//
//
// --trace=[FILE:]LINE. For each async-proxy operation at that line (where it
// is written, or the call that issues it), the analyses say which generic
// accesses reached it and what became of each: reported, another rule's,
// memory that does not overlap, ended by a fence or by a call that fences on
// every path, or met across roles whose barriers could not be paired. For an
// mbarrier init at that line, each use checked against it. A clean result a
// user cannot trust without this is a result they cannot check.
//
//===----------------------------------------------------------------------===//
#ifndef PROXYFENCE_ANALYSIS_TRACE_H
#define PROXYFENCE_ANALYSIS_TRACE_H

#include "model/Events.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include <set>
#include <string>
#include <vector>

namespace proxyfence {

/// FILE:LINE or LINE (then the main file, or the header in focus).
struct TraceTarget {
  std::string File; // empty: the main file or \p Focus
  unsigned Line = 0;
  std::string Focus;
  /// Parses "--trace" values; false and \p Why on a malformed one.
  static bool parse(llvm::StringRef Text, TraceTarget &Out, std::string &Why);
  explicit operator bool() const { return Line != 0; }
};

class Trace {
public:
  Trace(const clang::SourceManager &SM, TraceTarget T);

  /// Whether \p E is written at the traced line, or issued by a call there,
  /// or is a traced event as a caller sees it (mark()).
  bool targets(const Event &E) const;
  /// \p E, a traced event lifted to a caller: its callers trace it too.
  void mark(const Event &E) {
    Marked.insert({E.At.S, E.Loc.getRawEncoding()});
  }
  /// Whether location \p L (any kind) lies on the traced line.
  bool atLine(clang::SourceLocation L) const;
  /// "TMA load at k.cu:21:9 (in 'load')".
  std::string describe(const Event &E) const;
  std::string where(clang::SourceLocation L) const;
  /// "bar.sync (id 3)", "mbarrier.try_wait.shared::cta".
  static std::string describeSync(const Event &E);
  /// One line of the trace, said once.
  void say(std::string Line);
  /// A line said once per \p Key; later calls with the key count as "N more
  /// accesses" on it (a role pair that hundreds of accesses cross).
  void tally(const std::string &Key, std::string Line);
  std::vector<std::string> lines() const;
  bool empty() const { return Lines.empty(); }
  const TraceTarget &target() const { return Target; }

private:
  const clang::SourceManager &SM;
  TraceTarget Target;
  /// The header in focus as the file manager knows it: the unit may reach
  /// it by another spelling of its path (`include/x.h`, `../include/x.h`).
  clang::OptionalFileEntryRef FocusFile;
  /// The file --trace named, however the translation unit spells its path
  /// (`instantiations/../kernel.cuh`).
  clang::OptionalFileEntryRef TargetFile;
  std::vector<std::string> Lines;
  std::vector<unsigned> More; // per line: further accesses tallied on it
  llvm::StringSet<> Said;
  llvm::StringMap<unsigned> Tallies; // key -> line
  std::set<std::pair<const clang::Stmt *, unsigned>> Marked;
};

} // namespace proxyfence

#endif
