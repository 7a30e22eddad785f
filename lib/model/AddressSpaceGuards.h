//===- AddressSpaceGuards.h - code that runs only off shared memory -------===//
//
// Library code often tests a pointer's state space and takes a fallback
// path when it is not shared memory: libcu++'s `cuda::barrier` arrives with
// `mbarrier.arrive` when `__isShared(&__barrier)` and with a C++ atomic
// otherwise, and its atomics touch local memory with plain loads and stores
// only after `if (!__isLocal(p)) return false;`. The accesses of such an arm
// go through the tested pointer, which that arm knows is not shared memory:
// they are no generic-proxy accesses of shared memory.
//
// The tests read are the state-space predicates (`__isShared`, `__isLocal`,
// `__isGlobal`, `__isConstant`, `__isClusterShared`, clang's
// `__nvvm_isspacep_*`, and functions that return one of them of a
// parameter), in an `if` whose arm holds the access, or in an `if` that
// leaves the enclosing block before it, of a parameter or of the address
// of a member of `*this`.
//
//===----------------------------------------------------------------------===//
#ifndef PROXYFENCE_ADDRESSSPACEGUARDS_H
#define PROXYFENCE_ADDRESSSPACEGUARDS_H

#include "model/Memory.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Stmt.h"
#include "llvm/ADT/DenseMap.h"
#include <optional>

namespace proxyfence {

class AddressSpaceGuards {
public:
  explicit AddressSpaceGuards(MemoryModel &Memory) : Memory(Memory) {}

  /// Whether \p S, a statement of \p Fn, runs only where a pointer to all
  /// of \p Mem is known not to point to shared memory.
  bool excludesShared(const clang::Stmt *S, const clang::FunctionDecl *Fn,
                      const AliasSet &Mem);

private:
  /// What a state-space test says of its pointer.
  struct Test {
    const clang::Expr *Pointer;
    bool NotSharedIfTrue;  // __isLocal(p), __isGlobal(p), ...
    bool NotSharedIfFalse; // __isShared(p), __isClusterShared(p)
  };
  /// The statements of each function that run only where a pointer is not
  /// shared memory, with what that pointer points to.
  using Regions = llvm::DenseMap<const clang::Stmt *,
                                 llvm::SmallVector<AliasSet, 1>>;

  const Regions &regionsOf(const clang::FunctionDecl *Fn);
  void addRegion(const clang::Stmt *Region, const AliasSet &NotShared,
                 Regions &Out);
  /// The test \p Cond makes (`!`, `&&`, `||`, `== 0`, `!= 0` looked
  /// through): the pointers known not shared when it is true (\p WhenTrue)
  /// or false.
  void notSharedWhen(const clang::Expr *Cond, bool WhenTrue,
                     const clang::FunctionDecl *Fn,
                     llvm::SmallVectorImpl<const clang::Expr *> &Out);
  std::optional<Test> testOf(const clang::Expr *E, unsigned Depth = 0);
  /// For a function that returns a state-space test of one of its
  /// parameters: that test, with the parameter's index as Pointer's place.
  std::optional<std::pair<Test, unsigned>>
  wrappedTest(const clang::FunctionDecl *F, unsigned Depth);

  MemoryModel &Memory;
  llvm::DenseMap<const clang::FunctionDecl *, Regions> Cache;
};

} // namespace proxyfence

#endif
