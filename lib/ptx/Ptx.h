//===- Ptx.h - PTX text model for inline asm ------------------------------===//
//
// Parses the template string of a CUDA inline asm statement into PTX
// instructions and classifies each instruction into proxy effects. The
// parser never fails: text it does not understand becomes instructions with
// unknown opcodes, which classify to nothing.
//
//===----------------------------------------------------------------------===//
#ifndef PROXYFENCE_PTX_H
#define PROXYFENCE_PTX_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <string>
#include <vector>

namespace proxyfence::ptx {

/// One operand of an instruction, as written (whitespace trimmed).
struct Operand {
  std::string Text;
  /// `[addr]` or `[addr + off]` or `[tmap, {c0, c1}]`.
  bool IsAddress = false;
  /// `{a, b, c}` vector operand (also true for the vector inside an address).
  bool IsVector = false;
  /// Index of the asm operand (%N or %[name]) that forms the base of this
  /// operand: the first asm operand reference in the text; -1 when none
  /// (a PTX register, an immediate or a label).
  int AsmOperand = -1;
};

struct Instruction {
  /// Guard predicate without `@`, e.g. "p" or "!p"; empty when unguarded.
  std::string Predicate;
  /// The full dotted opcode, e.g. "cp.async.bulk.global.shared::cta.bulk_group".
  std::string Opcode;
  /// Opcode split at '.', e.g. {"cp","async","bulk","global","shared::cta",...}.
  std::vector<std::string> Parts;
  std::vector<Operand> Operands;
  /// Byte offset of the instruction's first character in the asm text.
  unsigned Offset = 0;
  /// The innermost `{ }` scope holding the instruction (Program::ScopeParents);
  /// 0 is the whole text.
  unsigned Scope = 0;

  /// True when Parts contains P exactly (e.g. hasPart("shared::cta")).
  bool hasPart(llvm::StringRef P) const;
};

/// A directive written among the instructions, without its `;`:
/// `.loc 1 35 7`, `.reg .b32 r<4>`.
struct Directive {
  std::string Text;
  unsigned Offset = 0;
};

struct Program {
  std::vector<Instruction> Instructions;
  /// Labels defined in the text (without the trailing ':').
  std::vector<std::string> Labels;
  /// Where each of Labels is defined: byte offset, and scope (a label is
  /// visible in its scope and the scopes nested in it).
  std::vector<unsigned> LabelOffsets;
  std::vector<unsigned> LabelScopes;
  std::vector<Directive> Directives;
  /// The enclosing scope of each `{ }` scope, by number; scope 0 (the whole
  /// text) is its own parent.
  std::vector<unsigned> ScopeParents = {0};
};

/// Parses an inline-asm template. \p OperandNames gives the symbolic names of
/// the asm operands in order (empty string where unnamed), so that %[name]
/// maps to its index. Handles `;`/newline separated instructions, `{ }`
/// scopes, `.reg`/`.pred` and other directives (recorded apart from the
/// instructions), labels, `@p` and
/// `@!p` guards, `//` and `/* */` comments, and `%%` escapes (a literal `%`).
Program parse(llvm::StringRef AsmText,
              llvm::ArrayRef<std::string> OperandNames = {});

/// What an instruction does to the proxies.
enum class EffectKind {
  GenericWrite,   // st.shared, stmatrix, atom/red.shared, st (generic addr)
  GenericRead,    // ld.shared, ldmatrix, ld (generic addr)
  AsyncRead,      // async proxy reads smem: TMA/bulk store, wgmma, tcgen05
  AsyncWrite,     // async proxy writes smem: TMA/bulk load into shared
  ProxyFence,     // fence.proxy.async[.space]
  InitFence,      // fence.mbarrier_init.release.cluster
  Barrier,        // bar.sync/barrier.sync/bar.warp.sync/bar.arrive/bar.red
  ClusterArrive,  // barrier.cluster.arrive[.release|.relaxed]
  ClusterWait,    // barrier.cluster.wait
  MbarrierInit,   // mbarrier.init
  MbarrierArrive, // mbarrier.arrive*, cp.async.mbarrier.arrive
  MbarrierWait,   // mbarrier.try_wait*, mbarrier.test_wait*
  RegisterFence,  // wgmma.fence (orders registers, not proxies)
  MbarrierComplete, // st.async/red.async: a store into another CTA's smem
                    // that completes on that CTA's mbarrier
  // Tensor memory (proxyfence-tcgen05-order).
  TmemAccess,      // tcgen05.ld/st/mma/cp/shift: asynchronous, Op says which
  TmemWaitLd,      // tcgen05.wait::ld: this thread's tcgen05.ld completed
  TmemWaitSt,      // tcgen05.wait::st
  TmemFenceBefore, // tcgen05.fence::before_thread_sync
  TmemFenceAfter,  // tcgen05.fence::after_thread_sync
  TmemCommit,      // tcgen05.commit: tracks prior async tcgen05 ops on an
                   // mbarrier (also an MbarrierArrive effect)
  TmemDealloc,     // tcgen05.dealloc (CrossCta with cta_group::2)
  // Tensor maps (proxyfence-tensormap).
  TensormapWrite,   // tensormap.replace, tensormap.cp_fenceproxy's copy
  TensormapRelease, // fence.proxy.tensormap::generic.release, cp_fenceproxy
  TensormapAcquire, // fence.proxy.tensormap::generic.acquire
};

/// Which asynchronous operation an AsyncRead/AsyncWrite is.
enum class AsyncOp {
  None,
  BulkStore,   // cp.async.bulk.global.shared::cta
  TensorStore, // cp.async.bulk.tensor.Nd.global.shared::cta
  ReduceStore, // cp.reduce.async.bulk[.tensor] with a shared::cta source
  BulkLoad,    // cp.async.bulk.shared::*.global / .shared::cluster.shared::cta
  TensorLoad,  // cp.async.bulk.tensor.Nd.shared::*.global
  Wgmma,       // wgmma.mma_async (smem operand descriptors)
  Tcgen05Mma,  // tcgen05.mma* (smem operand descriptors)
  Tcgen05Cp,   // tcgen05.cp (smem -> tensor memory)
  TryCancel,   // clusterlaunchcontrol.try_cancel (writes its response to smem)
  Tcgen05Ld,    // tcgen05.ld (tensor memory -> registers)
  Tcgen05St,    // tcgen05.st (registers -> tensor memory)
  Tcgen05Shift, // tcgen05.shift
};

enum class BarrierScope { Warp, Cta, Named, Cluster };

/// Scope of a fence.proxy.async: which state space it orders.
enum class FenceSpace { All, SharedCta, SharedCluster, Global };

struct Effect {
  EffectKind Kind;
  AsyncOp Op = AsyncOp::None;
  /// Index into Instruction::Operands of the shared-memory address (or the
  /// matrix descriptor that carries it) this effect touches; -1 when the
  /// effect has no memory operand (fences, barriers).
  int MemOperand = -1;
  /// For Barrier: Cta without a thread count (every thread of the CTA
  /// takes part, whatever the id), Named with one and for bar.arrive, Warp
  /// for bar.warp.sync.
  BarrierScope Scope = BarrierScope::Cta;
  /// bar.arrive (does not wait) / barrier.cluster.arrive.relaxed.
  bool ArriveOnly = false;
  bool Relaxed = false;
  /// For Barrier (bar/barrier, not .warp): operand index of the barrier id;
  /// -1 for __syncthreads-style barriers, whose id is 0.
  int BarrierIdOperand = -1;
  /// The address operand is in the generic state space (plain st/ld): the
  /// analysis must decide from the address whether it is shared memory.
  bool GenericAddress = false;
  /// .multicast::cluster, or a .shared::cluster address that may be another
  /// CTA's (remote mbarrier arrive, cta_group::2 commit/mma).
  bool CrossCta = false;
  /// Operand index of the mbarrier this op completes on / arrives at; -1 if
  /// none.
  int MbarrierOperand = -1;
  FenceSpace Space = FenceSpace::All;
};

/// Classifies one instruction; unknown instructions give no effects.
/// Examples:
///  st.shared.v4.f32 [%0], {...}            -> GenericWrite mem 0
///  cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2
///                                          -> AsyncRead BulkStore mem 1
///  cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes
///     [%0], [%1, {%2, %3}], [%4]           -> AsyncWrite TensorLoad mem 0,
///                                             MbarrierOperand 2
///  wgmma.mma_async... {d..}, %a, %b, ...   -> AsyncRead Wgmma mem 1 and mem 2
///  wgmma.mma_async... {d..}, {a0..a3}, %b  -> AsyncRead Wgmma mem 2 only (RS)
std::vector<Effect> classify(const Instruction &I);

} // namespace proxyfence::ptx

#endif
