//===- Vocabulary.cpp - effects of functions with no body ------------------===//
//
// Only for callees whose body is not in the translation unit: builtins, and
// wrappers of libraries that are not installed. Anything with a body is
// summarised from that body instead, so this table stays short.
//
//===----------------------------------------------------------------------===//
#include "proxyfence/Vocabulary.h"
#include "llvm/ADT/StringMap.h"

namespace proxyfence {

using ptx::BarrierScope;
using ptx::Effect;
using ptx::EffectKind;
using ptx::FenceSpace;

static Effect barrier(BarrierScope S) {
  Effect E{EffectKind::Barrier};
  E.Scope = S;
  return E;
}
static Effect fence(EffectKind K, FenceSpace S = FenceSpace::SharedCta) {
  Effect E{K};
  E.Space = S;
  return E;
}
static Effect access(EffectKind K, int Arg) {
  Effect E{K};
  E.MemOperand = Arg;
  E.GenericAddress = true; // a pointer argument: may not be shared at all
  return E;
}
static Effect clusterArrive(bool Relaxed) {
  Effect E{EffectKind::ClusterArrive};
  E.Scope = BarrierScope::Cluster;
  E.ArriveOnly = true;
  E.Relaxed = Relaxed;
  return E;
}
static Effect mbarrier(EffectKind K) {
  Effect E{K};
  E.MemOperand = 0;
  E.MbarrierOperand = 0;
  return E;
}

static const llvm::StringMap<std::vector<Effect>> &table() {
  static const llvm::StringMap<std::vector<Effect>> T = [] {
    llvm::StringMap<std::vector<Effect>> M;
    Effect Cta = barrier(BarrierScope::Cta);
    for (const char *N : {"__syncthreads", "__syncthreads_and",
                          "__syncthreads_or", "__syncthreads_count",
                          "__nvvm_bar_sync", "__nvvm_bar0_and",
                          "__nvvm_bar0_or", "__nvvm_bar0_popc"})
      M[N] = {Cta};
    for (const char *N : {"__nvvm_barrier_sync", "__nvvm_barrier_sync_cnt"}) {
      Effect Named = barrier(BarrierScope::Named);
      Named.BarrierIdOperand = 0; // the first argument
      M[N] = {Named};
    }
    for (const char *N : {"__syncwarp", "__nvvm_bar_warp_sync"})
      M[N] = {barrier(BarrierScope::Warp)};
    M["__nvvm_barrier_cluster_arrive"] = {clusterArrive(false)};
    M["__nvvm_barrier_cluster_arrive_relaxed"] = {clusterArrive(true)};
    M["__nvvm_barrier_cluster_wait"] = {Effect{EffectKind::ClusterWait}};
    for (const char *N : {"__nvvm_mbarrier_init", "__nvvm_mbarrier_init_shared",
                          "__mbarrier_init"})
      M[N] = {mbarrier(EffectKind::MbarrierInit)};
    for (const char *N : {"memcpy", "__builtin_memcpy", "memmove",
                          "__builtin_memmove"})
      M[N] = {access(EffectKind::GenericRead, 1),
              access(EffectKind::GenericWrite, 0)};
    for (const char *N : {"memset", "__builtin_memset"})
      M[N] = {access(EffectKind::GenericWrite, 0)};
    // Well-known fence wrappers (proxy-fences.md, section 4), used when their
    // library is not in the translation unit.
    Effect Proxy = fence(EffectKind::ProxyFence);
    for (const char *N :
         {"cutlass::arch::fence_view_async_shared", "cute::tma_store_fence",
          "fence_proxy_async_shared_cta", "tma_store_fence",
          "tl::fence_proxy_async"})
      M[N] = {Proxy};
    M["cutlass::arch::fence_barrier_init"] = {fence(EffectKind::InitFence)};
    M["cute::cluster_arrive_relaxed"] = {clusterArrive(true)};
    M["cute::cluster_arrive"] = {clusterArrive(false)};
    M["cute::cluster_wait"] = {Effect{EffectKind::ClusterWait}};
    M["cute::cluster_sync"] = {clusterArrive(false),
                               Effect{EffectKind::ClusterWait}};
    return M;
  }();
  return T;
}

llvm::ArrayRef<Effect> bodilessEffects(llvm::StringRef QualifiedName) {
  auto It = table().find(QualifiedName);
  if (It == table().end())
    return {};
  return It->second;
}

} // namespace proxyfence
