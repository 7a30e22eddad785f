//===- ProxyDataflow.h - proxy dataflow over clang's CFG -------------------===//
//
// A may-analysis per device function: the state is the set of generic-proxy
// shared-memory accesses not yet ordered by a proxy fence, each with the
// first thread barrier met after it (where a writers-fence fix goes). A proxy
// fence clears the state; a barrier never does. When an async-proxy
// operation meets a pending access of the same memory, a rule fires.
//
// Each function is analysed once. Its summary (async ops reachable from its
// entry unfenced, accesses reaching its exit unfenced, whether it fences on
// every path) is what callers see of it, with parameters substituted.
//
//===----------------------------------------------------------------------===//
#ifndef PROXYFENCE_ANALYSIS_PROXYDATAFLOW_H
#define PROXYFENCE_ANALYSIS_PROXYDATAFLOW_H

#include "model/Events.h"
#include "analysis/Roles.h"
#include "analysis/ProxyRule.h"
#include "analysis/SummaryCache.h"
#include "analysis/Trace.h"
#include "clang/AST/ASTContext.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/raw_ostream.h"
#include <map>
#include <memory>
#include <string>
#include <set>
#include <tuple>
#include <vector>

namespace proxyfence {

struct Finding {
  const Rule *R;
  Event Access;  // the generic-proxy access (first statement of the hazard)
  Event Async;   // the async-proxy operation that completes it
  StmtRef Handoff; // barrier between them, where writers fence; or none
  /// Reported at the access, where the fix goes (the async operation is in
  /// code this unit does not report: a library's, or another file's).
  bool ShownAtAccess = false;
};

/// Where a finding's warning is shown: its async operation's statement, or
/// the access's where it is reported at the access.
StmtRef primaryStmt(const clang::SourceManager &SM, const Finding &F);

struct ProxySummary {
  struct ExposedAsync {
    Event E;
    bool AfterBarrier = false; // a barrier precedes it inside the callee
  };
  struct ExposedAccess {
    Event E;
    StmtRef Handoff;
    /// Arrives it crosses on every path to the exit: a caller that knows a
    /// role relaying those barriers (RoleRelay) ends it at the relay's wait.
    std::vector<Event> ArrivedAfter;
  };
  std::vector<ExposedAsync> UpwardAsync;
  std::vector<ExposedAccess> DownwardAccesses;
  /// mbarriers arrived on while the caller's accesses are still unfenced:
  /// the hand-off points of a role that another role waits for.
  std::vector<Event> Arrives;
  /// mbarrier waits still in force at the exit (no proxy fence after them):
  /// what the caller does next happens after another role's arrive.
  std::vector<Event> ExitWaits;
  /// Hazards inside the function whose two ends share memory only through
  /// its parameters or `*this`: not findings here, decided at each call
  /// site, where the parameters map to arguments.
  std::vector<Finding> Deferred;
  /// Role records of this function and its callees, for callers to pair
  /// with other roles (Roles.h).
  std::vector<RoleArrive> RoleArrives;
  std::vector<RoleWait> RoleWaits;
  /// Relays of this function and its callees (Roles.h).
  std::vector<RoleRelay> Relays;
  /// Arrives that a proxy fence precedes on every path from the entry: a
  /// caller's wait before the call and such an arrive make a relay.
  std::vector<Event> FencedArrives;
  /// Some path from entry to exit has no shared-memory proxy fence.
  bool IncomingSurvives = true;
  /// ... and crosses a barrier on the way.
  bool IncomingCrossesBarrier = false;
};

struct AnalysisStats {
  unsigned Functions = 0;
  unsigned AsmStatements = 0;
  unsigned AsmInstructions = 0;
  /// Arrive/wait pairs of different roles (no path from one to the other)
  /// found to use the same barrier: named or CTA barriers, mbarriers.
  unsigned NamedBarrierPairs = 0;
  unsigned MbarrierPairs = 0;
  /// Such pairs, with an access pending at the arrive and an async op after
  /// the wait, that could not be matched because a barrier's id or address
  /// is unknown: blind spots, not findings. One line per pair, located.
  unsigned UnmatchedSyncs = 0;
  std::vector<std::string> UnmatchedSites;
  /// Calls in template patterns whose callee lookup leaves unknown (`op(x)`
  /// with `Op op`): neither fences nor async ops are assumed there.
  unsigned UnresolvedCalls = 0;
  std::vector<std::string> UnresolvedSites;
  /// Calls in patterns on an object of template-parameter type, resolved
  /// through the classes that declare the member they name.
  unsigned ResolvedByMemberName = 0;
  /// How each header named through a compilation database was analysed.
  std::vector<std::string> HeaderContexts;
  void add(const AnalysisStats &O);
};

/// The --stats block: what was analysed and the role synchronisations
/// matched and not matched.
void printStats(const AnalysisStats &S, llvm::raw_ostream &OS);

class Analyzer {
public:
  Analyzer(clang::ASTContext &Ctx, llvm::ArrayRef<const Rule *> Rules);
  ~Analyzer();

  /// Analyses \p Fn (a definition) if not done yet, specialised on the
  /// constant arguments \p B (Bindings.h); returns its summary.
  const ProxySummary &analyze(const clang::FunctionDecl *Fn,
                              const Bindings &B = Bindings());
  /// Findings of every function analysed so far, deduplicated.
  const std::vector<Finding> &findings() const { return Findings; }
  /// Also collects the extractor's unresolved template calls.
  const AnalysisStats &stats();
  MemoryModel &memory() { return Memory; }
  /// Member functions of one class that nothing analysed calls are the
  /// roles of a kernel not in this translation unit (a collective's load()
  /// and store()): pairs their role records, taking parameters of the same
  /// class type for the same object (Roles.cpp).
  void pairSiblingRoles(llvm::ArrayRef<const clang::FunctionDecl *> Roots);
  /// Roots that nothing in the translation unit calls and no kernel is (a
  /// collective's members read from its header): their hazards between
  /// parts of one parameter's object (or `*this`) are findings, since a
  /// caller elsewhere binds one object there whatever it is.
  void reportUncalledRoots(llvm::ArrayRef<const clang::FunctionDecl *> Roots);
  /// The statement-to-event extraction, for other analyses of the same AST.
  EventExtractor &events() { return Events; }
  /// --trace: what reaches the operations at one line, and what ended it.
  void setTrace(Trace *T) { Tracer = T; }

private:
  class ProxyFunctionRun;
  class ProxyFunctionRoles;
  friend class ProxyFunctionRun;
  friend class ProxyFunctionRoles;
  void addFinding(Finding F);
  void noteRolePair(const Event &Arrive, const Event &Wait, bool Matched);
  /// For --trace: a role pair of an access and a traced async operation.
  void traceRolePair(const Event &Arrive, const Event &Access,
                     const Event &Wait, const Event &Async,
                     BarrierId::Match M);
  /// A role pair whose barriers compare as \p M: findings (to \p Report,
  /// by default addFinding) or stats.
  /// \p Alias decides whether the two ends' memory overlaps (by default
  /// AliasSet::mayAlias).
  void pairRoleRecords(
      const RoleArrive &Arr, const RoleWait &Wait, BarrierId::Match M,
      llvm::function_ref<void(Finding)> Report = nullptr,
      llvm::function_ref<bool(const AliasSet &, const AliasSet &)> Alias =
          nullptr);

  clang::ASTContext &Ctx;
  std::vector<const Rule *> Rules;
  MemoryModel Memory;
  SummaryCache<std::pair<const clang::FunctionDecl *, Bindings>, ProxySummary>
      Summaries;
  llvm::DenseSet<const clang::FunctionDecl *> Counted; // in Stats.Functions
  ArgumentBinder Binder;
  std::vector<Finding> Findings;
  std::set<std::tuple<const Rule *, const clang::Stmt *, unsigned,
                      const clang::Stmt *, unsigned, const clang::Stmt *>>
      FindingKeys;
  AnalysisStats Stats;
  std::set<std::pair<std::string, bool>> RolePairs; // where, and matched
  std::set<const clang::FunctionDecl *> Called; // definitions summarised at calls
  EventExtractor Events; // after Memory and Stats, which it refers to
  Trace *Tracer = nullptr;
};

} // namespace proxyfence

#endif
