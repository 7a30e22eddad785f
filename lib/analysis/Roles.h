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
#include "llvm/ADT/SmallVector.h"
#include <unordered_map>
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

/// A role that waits on one barrier, then fences the proxies on every path,
/// then arrives on another: what other roles handed to it through the first
/// reaches whoever waits on the second fenced, since a proxy fence anywhere
/// on the causality path orders the two proxies (PTX ISA 8.9.5,
/// proxy-preserved base causality order). FlashAttention-3's producer waits
/// for the epilogue's `barrier_O`, transposes V and fences before it commits
/// V to the consumer.
struct RoleRelay {
  Event Wait;
  Event Arrive;
};

/// Whether two named-barrier events use the same barrier: by their ids,
/// and never when both counts are known and differ.
BarrierId::Match sameNamedBarrier(const Event &A, const Event &B);

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

/// Role records in the order added, each once: a record of the same
/// statements and barrier as one already held is dropped. Indexed by the
/// statements, because a kernel of thousands of barriers (an unrolled one)
/// holds tens of thousands of records, and a search of all of them for each
/// addition made building them quadratic.
template <typename Record> class RoleRecordSet {
public:
  void add(const Record &R);
  const std::vector<Record> &records() const { return Records; }
  size_t size() const { return Records.size(); }
  std::vector<Record> take() {
    ByStatements.clear();
    return std::move(Records);
  }

private:
  std::vector<Record> Records;
  std::unordered_map<size_t, llvm::SmallVector<unsigned, 1>> ByStatements;
};
extern template class RoleRecordSet<RoleArrive>;
extern template class RoleRecordSet<RoleWait>;

} // namespace proxyfence

#endif
