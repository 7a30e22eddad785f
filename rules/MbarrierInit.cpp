//===- MbarrierInit.cpp - proxyfence-mbarrier-init ------------------------===//
//
// An mbarrier used by other CTAs of the cluster, or by other threads of the
// CTA, before its initialisation is visible to them; optionally (strict
// mode) used by the async proxy with no fence.proxy.async after the init.
// The analysis is in lib/MbarrierInit.cpp.
//
//===----------------------------------------------------------------------===//
#include "proxyfence/MbarrierInit.h"
#include "proxyfence/Rules.h"

namespace proxyfence {

const StandaloneRule MbarrierInitRule = {
    "proxyfence-mbarrier-init",
    "mbarrier used by other CTAs of the cluster or other threads before "
    "fence.mbarrier_init + a cluster barrier (or __syncthreads) publishes "
    "its initialisation"};

static std::string barrierName(const InitFinding &F) {
  const AliasSet &M = F.Init.Mbarrier;
  if (M.isUnknown() || M.empty())
    return "an mbarrier";
  return "mbarrier " + M.describe();
}

std::string initFindingMessage(const InitFinding &F) {
  std::string B = barrierName(F);
  switch (F.Kind) {
  case InitHazard::Cluster: {
    std::string Msg = B + " is used by another CTA of the cluster before its "
                          "initialisation is visible there: ";
    if (!F.Fenced && F.Relaxed)
      return Msg + "no fence.mbarrier_init.release.cluster before the relaxed "
                   "cluster barrier";
    if (!F.Fenced && !F.ClusterSynced)
      return Msg + "no fence.mbarrier_init.release.cluster and no cluster "
                   "barrier between them";
    if (!F.ClusterSynced)
      return Msg + "no cluster barrier after the init fence";
    return Msg + "fence.mbarrier_init.release.cluster must come before the "
                 "cluster barrier's arrive";
  }
  case InitHazard::Cta:
    if (relaxedOnly(F))
      return B + " is initialised by " + F.Initialiser + " and used by " +
             F.User +
             " after only a relaxed cluster barrier: "
             "barrier.cluster.arrive.relaxed orders no memory, so the "
             "initialising thread must execute "
             "fence.mbarrier_init.release.cluster before it arrives";
    return B + " is used by other threads before a CTA-wide barrier "
               "(__syncthreads) makes its initialisation visible to them";
  case InitHazard::ProxyFence:
    return B + " is used by the async proxy with no "
               "fence.proxy.async.shared::cta after its initialisation "
               "(required by --mbarrier-init-proxy-fence=require)";
  }
  return B;
}

std::string initUseNote(const InitFinding &F, const Event &Use) {
  std::string What = " here (" + Use.What + ")";
  switch (F.Kind) {
  case InitHazard::Cluster:
    return "used by another CTA of the cluster" + What;
  case InitHazard::Cta:
    return "used by other threads" + What;
  case InitHazard::ProxyFence:
    return "used by the async proxy" + What;
  }
  return "used" + What;
}

} // namespace proxyfence
