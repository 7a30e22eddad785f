//===- PtxCheck.h - the proxy rules over compiled PTX ---------------------===//
//
// The same may-dataflow as the source analysis (ProxyDataflow.h), run over the
// CFG of every function of a PTX module, with the same rules (Rules.h):
// pending generic-proxy accesses of shared memory, cleared by a proxy fence,
// checked at each async-proxy operation; accesses pending at an mbarrier
// arrive meet the async operations issued after a wait (warp roles). At PTX
// level the addresses are registers, so every shared-memory access may alias
// every other, and every mbarrier every other. Calls to functions with a
// body use the callee's summary.
//
//===----------------------------------------------------------------------===//
#ifndef PROXYFENCE_PTXCHECK_H
#define PROXYFENCE_PTXCHECK_H

#include "ptx/PtxModule.h"
#include "proxyfence/Rules.h"
#include "llvm/Support/raw_ostream.h"
#include <functional>
#include <string>
#include <tuple>
#include <vector>

namespace proxyfence {

struct DriverOptions;

/// One effect (an index into ptx::classify's result) of one instruction.
struct PtxRef {
  unsigned Fn = 0, Index = 0, Effect = 0;
  bool operator<(const PtxRef &O) const {
    return std::tie(Fn, Index, Effect) < std::tie(O.Fn, O.Index, O.Effect);
  }
  bool operator==(const PtxRef &O) const {
    return Fn == O.Fn && Index == O.Index && Effect == O.Effect;
  }
};

/// An async-proxy operation that generic-proxy accesses reach with no proxy
/// fence on the path (or through an mbarrier hand-off between warp roles).
struct PtxHazard {
  const Rule *R = nullptr;
  PtxRef Async;
  std::vector<PtxRef> Accesses; // one per instruction, in module order
};

struct PtxCheckOptions {
  /// The rules to check; empty: all of proxyRules().
  std::vector<const Rule *> Rules;
  /// Which instructions count as the access and as the async operation
  /// (function and instruction index); unset: all.
  std::function<bool(unsigned, unsigned)> Access, Async;
  /// Report every path, fenced or not: which async operations need a fence.
  bool IgnoreFences = false;
};

/// Runs the rules over every function of \p M: one hazard per async
/// instruction and rule, in module order.
std::vector<PtxHazard> checkModule(const ptx::Module &M,
                                   const PtxCheckOptions &Opts = {});

/// proxyfence-mbarrier-init over PTX: paths from an mbarrier.init to a use
/// of the barrier on which the init is not yet published.
struct InitCheckOptions {
  /// Cluster: published by fence.mbarrier_init then a cluster arrive and
  /// wait, or by a (release) cluster arrive and wait. Else (CTA): also by a
  /// CTA-wide barrier.
  bool Cluster = true;
  /// Which instructions count as inits (function, instruction index) and as
  /// uses; unset: every mbarrier.init, and for Cluster every remote use
  /// (isRemoteBarrierUse).
  std::function<bool(unsigned, unsigned)> Init, Use;
  /// Report every path, published or not.
  bool IgnorePublication = false;
};

/// A use of an mbarrier by another CTA: a remote arrive, a multicast copy,
/// a cta_group::2 operation (not a plain store to another CTA's smem).
inline bool isRemoteBarrierUse(const Event &E) {
  return E.CrossCta &&
         (E.Kind == EffectKind::MbarrierArrive ||
          E.Kind == EffectKind::AsyncWrite || E.Kind == EffectKind::AsyncRead);
}

struct PtxInitHazard {
  PtxRef Init, Use;
};

/// Runs the publication check over every function (calls are not followed:
/// nvcc inlines the usual wrappers). Sorted by use, then init.
std::vector<PtxInitHazard> checkInitPublication(const ptx::Module &M,
                                                const InitCheckOptions &Opts);

/// Prints init hazards as warnings at the use, one per use.
unsigned printInitHazards(const ptx::Module &M, llvm::StringRef PtxName,
                          const std::vector<PtxInitHazard> &Hazards,
                          bool Cluster, llvm::raw_ostream &OS);

/// The event the rules see for an instruction effect (memory: any shared).
Event ptxEvent(const ptx::Instruction &I, const ptx::Effect &E);

/// The source positions of a `.loc` line info, "kernel.cu:35:7" (no column
/// when it is 0): the position, then each call site it was inlined at,
/// innermost first. Empty when there is no line info.
std::vector<std::string> linePositions(const ptx::Module &M, int LineInfo);

/// Prints hazards as clang-style warnings at the async operation in the PTX
/// file \p PtxName, one per operation and rule, with notes at the accesses
/// and, through `.loc`, at their source. Returns the number of warnings.
unsigned printHazards(const ptx::Module &M, llvm::StringRef PtxName,
                      const std::vector<PtxHazard> &Hazards,
                      llvm::raw_ostream &OS);

} // namespace proxyfence

#endif
