//===- Events.h - proxy events of device code -----------------------------===//
//
// Every statement of a device function becomes zero or more events: what it
// does to shared memory and through which proxy, which fences and barriers it
// executes. Inline asm is classified from its PTX text (Ptx.h), calls from
// the callee's summary (Analysis.h), bodiless callees from the vocabulary.
//
//===----------------------------------------------------------------------===//
#ifndef PROXYFENCE_EVENTS_H
#define PROXYFENCE_EVENTS_H

#include "proxyfence/Memory.h"
#include "proxyfence/Ptx.h"
#include "clang/AST/Stmt.h"
#include "clang/Basic/SourceLocation.h"
#include <string>

namespace proxyfence {

using ptx::AsyncOp;
using ptx::BarrierScope;
using ptx::EffectKind;
using ptx::FenceSpace;

/// A statement together with the function whose body holds it.
struct StmtRef {
  const clang::Stmt *S = nullptr;
  const clang::FunctionDecl *Fn = nullptr;
  explicit operator bool() const { return S != nullptr; }
  bool operator==(const StmtRef &O) const { return S == O.S; }
  bool operator<(const StmtRef &O) const { return S < O.S; }
};

struct Event {
  EffectKind Kind;
  AsyncOp Op = AsyncOp::None;
  BarrierScope Scope = BarrierScope::Cta;
  FenceSpace Space = FenceSpace::All;
  bool ArriveOnly = false;
  bool Relaxed = false;
  bool CrossCta = false;
  /// Shared memory touched (for accesses and async ops).
  AliasSet Mem;
  /// Statement of the analysed function that performs the event: the access
  /// itself, or the call through which a callee performs it.
  StmtRef At;
  /// Where the operation is written (inside the callee for summarised events).
  clang::SourceLocation Loc;
  /// The callee through which the event happens, when it is not direct.
  const clang::FunctionDecl *Via = nullptr;
  /// Short description for messages: "C++ store", "st.shared", "TMA store".
  std::string What;
};

/// "TMA store", "bulk store", "wgmma", ... for messages.
const char *asyncOpName(AsyncOp Op);
/// Whether a proxy fence of this space orders shared-memory accesses.
inline bool fenceCoversShared(FenceSpace S) { return S != FenceSpace::Global; }
/// Events that hand data from one thread to another (where writers fence).
inline bool isHandoff(const Event &E) {
  return E.Kind == EffectKind::Barrier || E.Kind == EffectKind::ClusterArrive ||
         E.Kind == EffectKind::MbarrierArrive;
}

} // namespace proxyfence

#endif
