//===- Roles.h - arrive/wait pairs of roles in different functions --------===//
//
// A warp-specialised kernel's roles are often functions of their own: the
// producer's `load()`, the consumer's `mma()`, the epilogue's `store()`. A
// function's summary therefore exports its role records:
//   - each arrive with a generic access still unfenced there (and the
//     hand-off where that access's writer must fence), and
//   - each wait with an async operation that follows it.
// Each caller lifts its callees' records to its own call sites and pairs
// the arrives and waits of different call sites that no path joins, with
// the same rules as inside one function. Barriers are named-barrier ids or
// mbarriers named by their path (BarrierPath.h).
//
//===----------------------------------------------------------------------===//
#ifndef PROXYFENCE_ROLES_H
#define PROXYFENCE_ROLES_H

#include "model/Events.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include <vector>

namespace proxyfence {

/// An arrive with a generic access pending (unfenced) at it.
struct RoleArrive {
  Event Arrive; // At: the arrive, or the call through which it happens
  Event Access; // where it is written; Mem as the holder of the record sees it
  StmtRef Handoff; // where the writing role fences: before this hand-off
};

/// A wait with an async operation after it (no proxy fence between).
struct RoleWait {
  Event Wait;  // At: the wait, or the call through which it happens
  Event Async; // where it is issued; Mem as the holder of the record sees it
};

/// Whether an arrive and a wait use the same barrier: named-barrier ids, or
/// mbarrier paths, else the mbarriers' alias sets. \p SameRoot decides
/// roots of different functions (sibling member functions); null: roots
/// must be the same object.
BarrierId::Match sameRoleBarrier(
    const Event &Arrive, const Event &Wait,
    llvm::function_ref<bool(const BarrierPath &, const BarrierPath &)>
        SameRoot = nullptr);

/// Two mbarrier events' barriers: by their paths, else by the alias sets of
/// their objects, where \p AliasIsSame says whether objects that may alias
/// count as the same barrier (inside one function, as before paths) or as
/// undecided (across functions, where a struct holds full and empty).
BarrierId::Match sameMbarrier(const Event &Arrive, const Event &Wait,
                              bool AliasIsSame);

/// Whether two events of one statement name the same barrier operand: one
/// helper's asm, reached through one call, arrives at (or waits on)
/// different barriers for different arguments (`barrier_O.wait()` and a
/// pipeline's `producer_acquire()` in one role).
bool sameBarrierOperand(const Event &A, const Event &B);

/// Adds \p R to \p Into unless a record of the same statements and
/// barrier is there.
void addRoleRecord(std::vector<RoleArrive> &Into, const RoleArrive &R);
void addRoleRecord(std::vector<RoleWait> &Into, const RoleWait &R);

} // namespace proxyfence

#endif
