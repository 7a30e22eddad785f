//===- AsyncOverwrite.cpp - proxyfence-async-overwrite --------------------===//
//
// A generic-proxy read or write of shared memory followed by an async-proxy
// write of the same memory (a TMA/bulk load refilling a stage) with no
// fence.proxy.async between: the write-after-read hazard DeepEP fixed.
// Async-proxy reads (wgmma/tcgen05 operands) need no fence and never match.
//
//===----------------------------------------------------------------------===//
#include "proxyfence/Rules.h"

namespace proxyfence {

static bool isGenericAccess(EffectKind K) {
  return K == EffectKind::GenericWrite || K == EffectKind::GenericRead;
}

static bool isAsyncWrite(const Event &E) {
  return E.Kind == EffectKind::AsyncWrite;
}

static std::string message(const Event &Access, const Event &Async) {
  return std::string(asyncOpName(Async.Op)) + " overwrites " +
         Access.Mem.describeMemory() + " " +
         (Access.Kind == EffectKind::GenericRead ? "read" : "written") +
         " through the generic proxy with no fence.proxy.async on the path";
}

const Rule AsyncOverwriteRule = {
    "proxyfence-async-overwrite",
    "generic-proxy reads or writes of shared memory overwritten by a TMA/bulk "
    "load without fence.proxy.async",
    isGenericAccess, isAsyncWrite, message};

} // namespace proxyfence
