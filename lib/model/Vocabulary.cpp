//===- Vocabulary.cpp - effects of functions with no body ------------------===//
//
// Only for callees whose body is not in the translation unit: builtins, and
// wrappers of libraries that are not installed. Anything with a body is
// summarised from that body instead, so this table stays short.
//
//===----------------------------------------------------------------------===//
#include "model/Vocabulary.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSwitch.h"

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
static Effect mbarrier(EffectKind K, int Arg = 0) {
  Effect E{K};
  E.MemOperand = Arg;
  E.MbarrierOperand = Arg;
  return E;
}
static Effect asyncOp(EffectKind K, ptx::AsyncOp Op, int Arg) {
  Effect E{K};
  E.Op = Op;
  E.MemOperand = Arg;
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
    // `barrier.sync id` with no thread count is a barrier of every thread
    // of the CTA, as in inline PTX (ptx::classify); with one, of those.
    Effect WholeCta = barrier(BarrierScope::Cta);
    WholeCta.BarrierIdOperand = 0; // the first argument
    M["__nvvm_barrier_sync"] = {WholeCta};
    Effect Named = barrier(BarrierScope::Named);
    Named.BarrierIdOperand = 0;
    M["__nvvm_barrier_sync_cnt"] = {Named};
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

static const std::vector<Effect> *find(const VocabularyTable *User,
                                       llvm::StringRef Name) {
  if (!User || Name.empty())
    return nullptr;
  auto It = User->find(Name.str());
  return It == User->end() ? nullptr : &It->second;
}

llvm::ArrayRef<Effect> bodilessEffects(llvm::StringRef QualifiedName,
                                       llvm::StringRef Name,
                                       const VocabularyTable *User) {
  if (const std::vector<Effect> *E = find(User, QualifiedName))
    return *E;
  if (const std::vector<Effect> *E = find(User, Name))
    return *E;
  for (llvm::StringRef N : {QualifiedName, Name}) {
    auto It = table().find(N);
    if (!N.empty() && It != table().end())
      return It->second;
  }
  return {};
}

//===----------------------------------------------------------------------===//
// The effect grammar of configuration files
//===----------------------------------------------------------------------===//

using ptx::AsyncOp;

/// Names of the async operations, as the `op=` of async-read/async-write.
static const std::pair<const char *, AsyncOp> AsyncOpNames[] = {
    {"tensor-store", AsyncOp::TensorStore}, {"bulk-store", AsyncOp::BulkStore},
    {"reduce-store", AsyncOp::ReduceStore}, {"wgmma", AsyncOp::Wgmma},
    {"tcgen05-mma", AsyncOp::Tcgen05Mma},   {"tcgen05-cp", AsyncOp::Tcgen05Cp},
    {"tensor-load", AsyncOp::TensorLoad},   {"bulk-load", AsyncOp::BulkLoad},
};
static bool isAsyncReadOp(AsyncOp Op) {
  return Op != AsyncOp::TensorLoad && Op != AsyncOp::BulkLoad &&
         Op != AsyncOp::TryCancel && Op != AsyncOp::None;
}

const char *effectNames() {
  return "generic-write(argN), generic-read(argN), async-read(argN[, op=...]), "
         "async-write(argN[, mbarrier=argM][, op=...]), proxy-fence, "
         "init-fence, barrier, named-barrier, warp-barrier, cluster-arrive, "
         "cluster-arrive-relaxed, cluster-wait, mbarrier-init(argN), "
         "mbarrier-arrive(argN), mbarrier-wait(argN)";
}

/// Splits \p Text at the commas outside parentheses.
static std::vector<llvm::StringRef> splitTopLevel(llvm::StringRef Text) {
  std::vector<llvm::StringRef> Items;
  int Depth = 0;
  size_t Start = 0;
  for (size_t I = 0; I < Text.size(); ++I) {
    Depth += Text[I] == '(' ? 1 : Text[I] == ')' ? -1 : 0;
    if (Text[I] == ',' && Depth == 0) {
      Items.push_back(Text.slice(Start, I).trim());
      Start = I + 1;
    }
  }
  Items.push_back(Text.substr(Start).trim());
  return Items;
}

/// `argN` as N; -1 when \p S is not of that form.
static int argIndex(llvm::StringRef S) {
  unsigned N;
  if (!S.consume_front("arg") || S.empty() || S.getAsInteger(10, N) ||
      N > 255)
    return -1;
  return int(N);
}

/// One effect, e.g. `async-write(arg0, mbarrier=arg2)`.
static std::optional<Effect> parseEffect(llvm::StringRef Item,
                                         std::string &Why) {
  llvm::StringRef Name = Item, ArgText;
  bool HasArgs = false;
  if (size_t Open = Item.find('('); Open != llvm::StringRef::npos) {
    if (!Item.ends_with(")")) {
      Why = "missing ')' in effect '" + Item.str() + "'";
      return std::nullopt;
    }
    Name = Item.take_front(Open).trim();
    ArgText = Item.slice(Open + 1, Item.size() - 1);
    HasArgs = true;
  }
  // The address argument, and the keyword arguments.
  int Arg = -1, Mbarrier = -1;
  std::optional<AsyncOp> Op;
  if (HasArgs)
    for (llvm::StringRef A : splitTopLevel(ArgText)) {
      auto [Key, Value] = A.split('=');
      Key = Key.trim();
      Value = Value.trim();
      if (!A.contains('=')) {
        if (Arg >= 0 || argIndex(Key) < 0) {
          Why = "bad argument '" + A.str() + "' in effect '" + Item.str() +
                "' (expected one argN, then key=value)";
          return std::nullopt;
        }
        Arg = argIndex(Key);
      } else if (Key == "mbarrier" && argIndex(Value) >= 0) {
        Mbarrier = argIndex(Value);
      } else if (Key == "op") {
        auto It = llvm::find_if(AsyncOpNames, [&](const auto &P) {
          return Value == P.first;
        });
        if (It == std::end(AsyncOpNames)) {
          Why = "unknown op '" + Value.str() + "' in effect '" + Item.str() +
                "' (expected tensor-store, bulk-store, reduce-store, wgmma, "
                "tcgen05-mma, tcgen05-cp, tensor-load or bulk-load)";
          return std::nullopt;
        }
        Op = It->second;
      } else {
        Why = "bad argument '" + A.str() + "' in effect '" + Item.str() + "'";
        return std::nullopt;
      }
    }

  enum Shape { None, Address, AsyncRead, AsyncWrite };
  auto [Kind, Want] =
      llvm::StringSwitch<std::pair<std::optional<Effect>, Shape>>(Name)
          .Case("generic-write",
                {access(EffectKind::GenericWrite, Arg), Address})
          .Case("generic-read", {access(EffectKind::GenericRead, Arg), Address})
          .Case("async-read", {asyncOp(EffectKind::AsyncRead,
                                       Op.value_or(AsyncOp::TensorStore), Arg),
                               AsyncRead})
          .Case("async-write", {asyncOp(EffectKind::AsyncWrite,
                                        Op.value_or(AsyncOp::TensorLoad), Arg),
                                AsyncWrite})
          .Case("proxy-fence", {fence(EffectKind::ProxyFence), None})
          .Case("init-fence", {fence(EffectKind::InitFence), None})
          .Case("barrier", {barrier(BarrierScope::Cta), None})
          .Case("named-barrier", {barrier(BarrierScope::Named), None})
          .Case("warp-barrier", {barrier(BarrierScope::Warp), None})
          .Case("cluster-arrive", {clusterArrive(false), None})
          .Case("cluster-arrive-relaxed", {clusterArrive(true), None})
          .Case("cluster-wait", {Effect{EffectKind::ClusterWait}, None})
          .Case("mbarrier-init", {mbarrier(EffectKind::MbarrierInit, Arg), Address})
          .Case("mbarrier-arrive",
                {mbarrier(EffectKind::MbarrierArrive, Arg), Address})
          .Case("mbarrier-wait", {mbarrier(EffectKind::MbarrierWait, Arg), Address})
          .Default({std::nullopt, None});
  if (!Kind) {
    Why = "unknown effect '" + Name.str() + "' (expected " + effectNames() +
          ")";
    return std::nullopt;
  }
  if (Want == None ? HasArgs : Arg < 0) {
    Why = "effect '" + Name.str() + "' " +
          (Want == None ? "takes no arguments" : "needs an argument argN");
    return std::nullopt;
  }
  if ((Op && Want != AsyncRead && Want != AsyncWrite) ||
      (Op && isAsyncReadOp(*Op) != (Want == AsyncRead))) {
    Why = "op '" + std::string(llvm::find_if(AsyncOpNames, [&](const auto &P) {
                                 return P.second == *Op;
                               })->first) +
          "' does not go with effect '" + Name.str() + "'";
    return std::nullopt;
  }
  if (Mbarrier >= 0 && Want != AsyncWrite) {
    Why = "only async-write takes mbarrier= (in '" + Item.str() + "')";
    return std::nullopt;
  }
  Kind->MbarrierOperand = Want == AsyncWrite ? Mbarrier : Kind->MbarrierOperand;
  return Kind;
}

std::optional<std::vector<Effect>> parseEffects(llvm::StringRef Text,
                                                std::string &Why) {
  std::vector<Effect> Effects;
  if (Text.trim().empty())
    return Effects;
  if (Text.count('(') != Text.count(')')) {
    Why = "unbalanced parentheses in '" + Text.str() + "'";
    return std::nullopt;
  }
  for (llvm::StringRef Item : splitTopLevel(Text)) {
    if (Item.empty()) {
      Why = "empty effect in '" + Text.str() + "'";
      return std::nullopt;
    }
    std::optional<Effect> E = parseEffect(Item, Why);
    if (!E)
      return std::nullopt;
    Effects.push_back(*E);
  }
  return Effects;
}

static std::string formatEffect(const Effect &E) {
  auto arg = [](int N) { return "arg" + std::to_string(N); };
  auto opName = [&] {
    for (const auto &[Name, Op] : AsyncOpNames)
      if (Op == E.Op)
        return std::string(Name);
    return std::string();
  };
  switch (E.Kind) {
  case EffectKind::GenericWrite:
    return "generic-write(" + arg(E.MemOperand) + ")";
  case EffectKind::GenericRead:
    return "generic-read(" + arg(E.MemOperand) + ")";
  case EffectKind::AsyncRead:
    return "async-read(" + arg(E.MemOperand) +
           (E.Op == AsyncOp::TensorStore ? "" : ", op=" + opName()) + ")";
  case EffectKind::AsyncWrite:
    return "async-write(" + arg(E.MemOperand) +
           (E.MbarrierOperand >= 0 ? ", mbarrier=" + arg(E.MbarrierOperand)
                                   : "") +
           (E.Op == AsyncOp::TensorLoad ? "" : ", op=" + opName()) + ")";
  case EffectKind::ProxyFence:
    return "proxy-fence";
  case EffectKind::InitFence:
    return "init-fence";
  case EffectKind::Barrier:
    return E.Scope == BarrierScope::Warp    ? "warp-barrier"
           : E.Scope == BarrierScope::Named ? "named-barrier"
                                            : "barrier";
  case EffectKind::ClusterArrive:
    return E.Relaxed ? "cluster-arrive-relaxed" : "cluster-arrive";
  case EffectKind::ClusterWait:
    return "cluster-wait";
  case EffectKind::MbarrierInit:
    return "mbarrier-init(" + arg(E.MemOperand) + ")";
  case EffectKind::MbarrierArrive:
    return "mbarrier-arrive(" + arg(E.MemOperand) + ")";
  case EffectKind::MbarrierWait:
    return "mbarrier-wait(" + arg(E.MemOperand) + ")";
  case EffectKind::RegisterFence:
  case EffectKind::MbarrierComplete:
  case EffectKind::TmemAccess:
  case EffectKind::TmemWaitLd:
  case EffectKind::TmemWaitSt:
  case EffectKind::TmemFenceBefore:
  case EffectKind::TmemFenceAfter:
  case EffectKind::TmemCommit:
  case EffectKind::TmemDealloc:
  case EffectKind::TensormapWrite:
  case EffectKind::TensormapRelease:
  case EffectKind::TensormapAcquire:
    break; // not in the grammar: parseEffects never makes them
  }
  return "";
}

std::string formatEffects(llvm::ArrayRef<Effect> Effects) {
  std::string Out;
  for (const Effect &E : Effects)
    Out += (Out.empty() ? "" : ", ") + formatEffect(E);
  return Out;
}

} // namespace proxyfence
