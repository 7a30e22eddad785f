//===- PathFlow.h - a few bits per path, through callees -------------------===//
//
// The small engine of the rules that ask, at chosen events of one thread's
// path, "since X, has Y happened?" (proxyfence-tcgen05-order,
// proxyfence-tensormap). A may-dataflow over clang's CFG carries, per path, a
// bit set and a mark (the last event the rule marks, such as the last thread
// synchronisation). Callees are summarised once per incoming bit set, so
// wrappers (cuda::ptx, CUTLASS, a kernel's own helpers) are seen through,
// per constant/function argument (Bindings.h), and the paths of one thread
// agree on elect.sync.
//
//===----------------------------------------------------------------------===//
#ifndef PROXYFENCE_PATHFLOW_H
#define PROXYFENCE_PATHFLOW_H

#include "analysis/SummaryCache.h"
#include "model/Bindings.h"
#include "model/Events.h"
#include "clang/AST/ASTContext.h"
#include "llvm/ADT/DenseMap.h"
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <vector>

namespace proxyfence {

struct PathFlowSpec {
  /// The bits after \p E.
  std::function<unsigned(unsigned Bits, const Event &E)> Step;
  /// Whether \p E becomes the path's mark.
  std::function<bool(const Event &E)> Marks;
  /// Whether the rule looks at \p E (with the bits and mark before it).
  std::function<bool(const Event &E)> Checkpoint;
};

/// Whether a path is the thread elect.sync elects, as far as it has met an
/// election.
enum class Election : unsigned char { Unknown, Elected, NotElected };

/// A checkpoint met on some path, in the terms of the root function.
struct PathHit {
  Event E;
  unsigned Bits;
  std::optional<Event> Mark;
};

class PathFlow {
public:
  PathFlow(clang::ASTContext &Ctx, EventExtractor &Events, PathFlowSpec Spec);
  ~PathFlow();
  /// Every checkpoint reachable from \p Root's entry (no bits, no mark),
  /// once per distinct bits and mark.
  std::vector<PathHit> run(const clang::FunctionDecl *Root);

private:
  struct PathSummary;
  class PathFunctionRun;
  const PathSummary &summary(const clang::FunctionDecl *Def,
                             const Bindings &Binds, unsigned In,
                             Election Elected);

  clang::ASTContext &Ctx;
  EventExtractor &Events;
  PathFlowSpec Spec;
  ArgumentBinder Binder;
  SummaryCache<
      std::tuple<const clang::FunctionDecl *, Bindings, unsigned, Election>,
      PathSummary>
      Summaries;
};

} // namespace proxyfence

#endif
