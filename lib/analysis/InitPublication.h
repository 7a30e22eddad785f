//===- InitPublication.h - how far each mbarrier init is published --------===//
//
// proxyfence-mbarrier-init. mbarrier.init is a generic-proxy write by one
// thread. The other threads of the CTA see it after a CTA-wide barrier; the
// other CTAs of a cluster (remote arrives through `mapa`, multicast TMA
// loads, cta_group::2 commits) only after the initialising thread executes
// fence.mbarrier_init.release.cluster and the cluster then synchronises
// (a relaxed arrive + wait is enough after that fence; a release arrive +
// wait is enough on its own). PTX ISA 9.7.12.15, proxy-fences.md section 3.
//
// A may-dataflow over clang's CFG carries, for each init, how far it is
// published on some path (a few flags); a use of the barrier beyond that
// reach is a finding. Events come from the shared EventExtractor. Callees
// are summarised per incoming publication state, so wrappers around the
// init, the fences and the cluster barriers are seen through.
//
//===----------------------------------------------------------------------===//
#ifndef PROXYFENCE_ANALYSIS_INITPUBLICATION_H
#define PROXYFENCE_ANALYSIS_INITPUBLICATION_H

#include "model/Events.h"
#include "model/Bindings.h"
#include "analysis/SummaryCache.h"
#include "analysis/Trace.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ParentMap.h"
#include "llvm/ADT/DenseMap.h"
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace proxyfence {
class ClusterLaunches;

enum class InitHazard {
  Cluster,    // another CTA uses the barrier before the init is published
  Cta,        // other threads use it before a CTA-wide barrier
  ProxyFence, // strict mode: async proxy use without fence.proxy.async
};

struct InitFinding {
  InitHazard Kind;
  Event Init;
  /// The uses that are too early, in the order found.
  std::vector<Event> Uses;
  /// A relaxed cluster arrive passed with no init fence before it.
  std::optional<Event> Relaxed;
  /// With Relaxed: the init as the function holding that arrive sees it
  /// (the init itself, or the call that performs it), where the fence goes.
  std::optional<Event> FenceAt;
  /// On every reported path: the init fence ran after the init...
  bool Fenced = true;
  /// ... and a cluster arrive + wait followed the init.
  bool ClusterSynced = true;
  /// Who executes the init and who the first use, for the message:
  /// "the thread(s) where 'threadIdx.x == 0'", "every thread of the CTA".
  std::string Initialiser, User;
};


class MbarrierAnalyzer {
public:
  /// \p RequireProxyFence: --mbarrier-init-proxy-fence=require.
  MbarrierAnalyzer(clang::ASTContext &Ctx, EventExtractor &Events,
                   bool RequireProxyFence);
  ~MbarrierAnalyzer();

  /// Analyses \p Fn (a definition) as a root: with nothing incoming.
  void analyze(const clang::FunctionDecl *Fn);
  /// Findings of every function analysed so far, one per hazard and init.
  /// A CTA finding of an init that also has a cluster finding for a relaxed
  /// barrier is left out: the one init fence fixes both.
  std::vector<InitFinding> findings() const;
  /// Whether \p Fn or anything it calls executes a cluster barrier.
  bool hasClusterBarrier(const clang::FunctionDecl *Fn);
  /// --trace: each use checked against an init at the traced line.
  void setTrace(Trace *T) { Tracer = T; }

private:
  struct InitSummary;
  class InitFunctionRun;
  friend class InitFunctionRun;
  /// \p CtaThreads: the block size of the kernel the function runs in,
  /// where its __launch_bounds__ fixes it (0: unknown).
  const InitSummary &summary(const clang::FunctionDecl *Def, unsigned Incoming,
                             const Bindings &B = Bindings(),
                             unsigned CtaThreads = 0);
  void addFinding(InitHazard K, const Event &Init, const Event &Use,
                  const std::optional<Event> &Relaxed,
                  const std::optional<Event> &FenceAt, unsigned Flags);
  /// Which threads execute \p At, from the `if` or `for` around it;
  /// \p Otherwise when neither says.
  std::string threadsOf(StmtRef At, llvm::StringRef Otherwise);
  /// Index of \p E in Pool: events kept in their own function's terms.
  unsigned pool(const Event &E);
  /// Whether \p Use is executed only by the thread that executed \p Init:
  /// both in one function, \p Use under (a copy of) the guard of \p Init.
  bool sameThread(StmtRef Init, StmtRef Use);
  /// Whether every group of threads that reaches the use \p Use runs the
  /// init \p Init of its own barrier: no `if` around the init and not
  /// around the use tells groups apart (`lane == 0` does not,
  /// `threadIdx.x == 0` does: the other warps' barriers are never set up).
  bool initByEachGroup(const Event &Init, const Event &Use);
  /// Whether kernel \p Fn runs as a cluster of one CTA (ClusterLaunch.h).
  bool singleCta(const clang::FunctionDecl *Fn);
  /// Whether the CTA barrier \p At of a pattern is in the arm of a branch
  /// on template parameters alone whose other arm runs a cluster barrier
  /// (`kMulticast > 1 ? cluster_sync() : __syncthreads()`): the
  /// instantiations that take it run without a cluster, so a use the
  /// pattern spells as another CTA's reaches this CTA's own barrier.
  bool clusterlessArm(StmtRef At);
  /// The same in an instantiation: `if constexpr (size(ClusterShape{}) > 1)`
  /// chose the arm holding \p At, and the discarded one, as its pattern
  /// writes it, runs a cluster barrier.
  bool instantiatedClusterlessArm(StmtRef At);
  /// Walks up from \p At: \p OtherArm gives, for the arm S of branch P,
  /// the other arm to search for a cluster barrier (null: none here; sets
  /// its flag to stop the walk).
  bool armBesideClusterBarrier(
      StmtRef At, llvm::function_ref<const clang::Stmt *(
                      const clang::Stmt *, const clang::Stmt *, bool &)>
                      OtherArm);
  const clang::ParentMap &parents(const clang::FunctionDecl *Fn);

  clang::ASTContext &Ctx;
  EventExtractor &Events;
  bool RequireProxyFence;
  SummaryCache<
      std::tuple<const clang::FunctionDecl *, unsigned, Bindings, unsigned>,
      InitSummary>
      Summaries;
  ArgumentBinder Binder;
  llvm::DenseMap<const clang::FunctionDecl *, std::unique_ptr<clang::ParentMap>>
      ParentMaps;
  std::vector<InitFinding> Findings;
  std::vector<Event> Pool;
  std::map<std::tuple<const clang::Stmt *, unsigned, unsigned>, unsigned>
      PoolIndex;
  std::map<std::tuple<unsigned, const clang::Stmt *, unsigned>, size_t>
      FindingIndex;
  std::set<std::tuple<size_t, const clang::Stmt *, unsigned>> UseKeys;
  std::unique_ptr<ClusterLaunches> Clusters;
  Trace *Tracer = nullptr;
};

/// A CTA finding whose only fault is a relaxed cluster barrier with no init
/// fence before it: the fence alone fixes it.
bool relaxedOnly(const InitFinding &F);

} // namespace proxyfence

#endif
