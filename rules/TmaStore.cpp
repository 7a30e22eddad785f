//===- TmaStore.cpp - proxyfence-tma-store --------------------------------===//
//
// A generic-proxy write of shared memory that reaches a TMA/bulk store or
// reduction of the same memory with no fence.proxy.async on the path: the
// copy engine may read the old bytes (PTX ISA 9.7.9.25.2).
//
//===----------------------------------------------------------------------===//
#include "proxyfence/Rules.h"

namespace proxyfence {

static bool isGenericWrite(EffectKind K) { return K == EffectKind::GenericWrite; }

static bool isTmaStore(const Event &E) {
  return E.Kind == EffectKind::AsyncRead &&
         (E.Op == AsyncOp::TensorStore || E.Op == AsyncOp::BulkStore ||
          E.Op == AsyncOp::ReduceStore);
}

static std::string message(const Event &Access, const Event &Async) {
  return std::string(asyncOpName(Async.Op)) + " reads " +
         Access.Mem.describeMemory() +
         " written through the generic proxy with no fence.proxy.async on "
         "the path";
}

const Rule TmaStoreRule = {
    "proxyfence-tma-store",
    "generic-proxy writes of shared memory reaching a TMA/bulk store without "
    "fence.proxy.async",
    isGenericWrite, isTmaStore, message};

} // namespace proxyfence
