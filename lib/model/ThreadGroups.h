//===- ThreadGroups.h - shared memory that one group of threads owns ------===//
//
// Kernels give each warp (or each group of warps) a part of shared memory
// of its own, placed by the group's index:
//   auto *bars = smem + (threadIdx.x / 32) * kBytesPerWarp;
//   if (lane == 0) mbarrier_init(bars, 1);  __syncwarp();  ... wait(bars)
// Only the warp that owns such an mbarrier ever uses it, so the barrier
// that makes its init visible to the users is that warp's (`__syncwarp`),
// or the named barrier of that group, not a CTA-wide one.
//
//===----------------------------------------------------------------------===//
#ifndef PROXYFENCE_MODEL_THREADGROUPS_H
#define PROXYFENCE_MODEL_THREADGROUPS_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "llvm/ADT/DenseMap.h"
#include <memory>
#include <optional>

namespace proxyfence {

class ThreadInvariance;

/// A partition of the CTA's threads into groups of consecutive threads, as
/// an index names it: `threadIdx.x` (groups of 1), `threadIdx.x / 32` (a
/// warp), `warp / (n + 1)` (n + 1 warps).
struct ThreadGroup {
  /// Threads per group, where it is a constant.
  unsigned Threads = 0;
  /// Otherwise Unit threads times the value of Per.
  unsigned Unit = 0;
  const clang::Expr *Per = nullptr;
  /// The variable holding the index, where the index is read from one
  /// (a named barrier whose id is that variable is the group's barrier).
  const clang::VarDecl *Index = nullptr;
  /// What is added to the index (`warp - 4`; a hash for a value every
  /// thread shares but unknown here): another group's part.
  int64_t Offset = 0;
  /// Not yet known: the offset is a multiple of this integer parameter of a
  /// helper (`advance(p, i * kBytes)`), so the group is the argument's,
  /// which the caller's binding decides (MemoryModel::substitute).
  const clang::ParmVarDecl *ByParam = nullptr;

  /// One warp or a part of one: `__syncwarp` meets the whole group.
  bool withinWarp() const { return Threads && 32 % Threads == 0; }
  bool operator==(const ThreadGroup &O) const {
    return Threads == O.Threads && Unit == O.Unit && Per == O.Per &&
           Index == O.Index && Offset == O.Offset && ByParam == O.ByParam;
  }
};

/// A 64-bit hash of how \p E is written, up to parentheses and implicit
/// casts: the same for two spellings of one value where nothing between
/// them changes it.
uint64_t spellingHash(const clang::Expr *E, const clang::ASTContext &Ctx);

class ThreadGroups {
public:
  explicit ThreadGroups(clang::ASTContext &Ctx);
  ~ThreadGroups();

  /// The group whose index \p E is: a value distinct for each group and the
  /// same for the threads of one.
  std::optional<ThreadGroup> indexOf(const clang::Expr *E) {
    return index(E, 0);
  }
  /// The group whose index \p Offset is a multiple of, plus terms the
  /// same in every thread (`warp * kStride + 64`): an address offset that
  /// gives each group a part of its own.
  std::optional<ThreadGroup> separatedBy(const clang::Expr *Offset) {
    return offset(Offset, 0);
  }
  /// Whether \p P is never assigned in its function after the call binds
  /// it: a value the caller's argument gives.
  bool unwrittenParam(const clang::ParmVarDecl *P);
  /// Whether \p E reads the index of a group of whole warps anywhere in it
  /// (`warp % 2 == 0`, `wants[warp]`).
  bool readsWarpGroupIndex(const clang::Expr *E);
  /// Whether \p E gives the same value wherever it is evaluated in its
  /// function: it reads no memory and calls nothing, and no variable it
  /// reads is written after its declaration.
  bool unchanging(const clang::Expr *E);
  /// Whether condition \p Cond may hold in some groups and not in others:
  /// it reads a group index or `threadIdx.x` other than through `%` or `&`
  /// (`threadIdx.x == 0` does, `lane < 2` and `warp % 4 == 0` do not).
  bool tellsGroupsApart(const clang::Expr *Cond);

private:
  std::optional<ThreadGroup> index(const clang::Expr *E, unsigned Depth);
  std::optional<ThreadGroup> offset(const clang::Expr *E, unsigned Depth);
  std::optional<ThreadGroup> divided(const ThreadGroup &G,
                                     const clang::Expr *By);
  std::optional<ThreadGroup> called(const clang::CallExpr *C, unsigned Depth);
  /// The amount \p E moves an index by, where every thread computes it
  /// alike: its value, or a stand-in for a value unknown here.
  std::optional<int64_t> shift(const clang::Expr *E, unsigned Depth);
  /// The group whose index `x % n` \p B is, where the launch bound of the
  /// kernel it is read in allows at most n groups.
  std::optional<ThreadGroup> rotated(const clang::BinaryOperator *B,
                                     unsigned Depth);
  /// Whether \p P is an integer argument of a kernel, the same in every
  /// thread of the launch, and never assigned.
  bool kernelArgument(const clang::ParmVarDecl *P);
  /// Whether \p E has one value in every thread of the CTA.
  bool uniform(const clang::Expr *E, unsigned Depth);
  /// Whether \p V is assigned, incremented or has its address taken in its
  /// function after its initialisation.
  bool written(const clang::VarDecl *V);
  /// The initialiser of a local never written after it, or null.
  const clang::Expr *fixedValue(const clang::VarDecl *V);

  clang::ASTContext &Ctx;
  /// The function whose local's initialiser index() is reading.
  const clang::FunctionDecl *Within = nullptr;
  llvm::DenseMap<const clang::FunctionDecl *, std::unique_ptr<ThreadInvariance>>
      Writes;
};

} // namespace proxyfence

#endif
