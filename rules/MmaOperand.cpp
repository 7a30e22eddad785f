//===- MmaOperand.cpp - proxyfence-mma-operand ----------------------------===//
//
// Registers staged in shared memory through the generic proxy and then read
// as an MMA operand (wgmma, tcgen05.mma, tcgen05.cp) by the async proxy with
// no fence.proxy.async between. wgmma.fence orders registers, not smem.
//
//===----------------------------------------------------------------------===//
#include "proxyfence/Rules.h"

namespace proxyfence {

static bool isGenericWrite(EffectKind K) { return K == EffectKind::GenericWrite; }

static bool isMmaOperandRead(const Event &E) {
  return E.Kind == EffectKind::AsyncRead &&
         (E.Op == AsyncOp::Wgmma || E.Op == AsyncOp::Tcgen05Mma ||
          E.Op == AsyncOp::Tcgen05Cp);
}

static std::string message(const Event &Access, const Event &Async) {
  std::string Msg = std::string(asyncOpName(Async.Op)) + " reads " +
                    Access.Mem.describeMemory() +
                    " as an operand, written through the generic proxy with "
                    "no fence.proxy.async on the path";
  if (Async.Op == AsyncOp::Wgmma)
    Msg += " (wgmma.fence orders registers, not shared memory)";
  return Msg;
}

const Rule MmaOperandRule = {
    "proxyfence-mma-operand",
    "generic-proxy writes of shared memory read as a wgmma/tcgen05 operand "
    "without fence.proxy.async",
    isGenericWrite, isMmaOperandRead, message};

} // namespace proxyfence
