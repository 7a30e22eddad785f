//===- ConstantArms.h - branches a pattern takes the same way on a path ---===//
//
// A template pattern keeps both arms of `if constexpr (C)` (and of a plain
// `if` on a template constant), but each instantiation takes one of them
// wherever it meets C: a path that took the else-arm at the store does not
// take the then-arm at the TMA store. The analyses record the arm a path
// (or a pending access) took and close the other one later.
//
//===----------------------------------------------------------------------===//
#ifndef PROXYFENCE_CONSTANTARMS_H
#define PROXYFENCE_CONSTANTARMS_H

#include "clang/AST/ASTContext.h"
#include "clang/Analysis/CFG.h"
#include <cstdint>
#include <map>
#include <optional>
#include <utility>

namespace proxyfence {

/// Arms of template-constant branches: bit 2K for condition K true, 2K+1
/// for false.
using ArmSet = uint64_t;
/// How many conditions of one function are told apart (a FlashAttention-3
/// backward step tests more than 16 template constants).
constexpr unsigned MaxConstantConditions = 32;

/// The arm one successor of a template-constant branch takes.
struct ArmBits {
  ArmSet Took;  // the arm this successor takes
  ArmSet Other; // the arm it excludes
};

/// The arm bit of condition \p K taken \p True or false.
inline ArmSet armBit(unsigned K, bool True) {
  return ArmSet(1) << (2 * K + (True ? 0 : 1));
}

/// The branch conditions of one function that take the same arm wherever
/// they appear on a path: template constants of a pattern, as each
/// instantiation fixes them (a loop that takes `if constexpr (kSwapAB)`'s
/// then-arm takes it on every iteration). Numbered by their spelling, up to
/// MaxConstantConditions; `!C` is C with the arms swapped.
class ConstantConditions {
public:
  /// The number of \p Cond's condition and whether the then-arm is its
  /// false side; nullopt when Cond is not such a condition.
  std::optional<std::pair<unsigned, bool>> of(const clang::Expr *Cond,
                                              const clang::ASTContext &Ctx);
  /// The arm successor \p Succ of \p B takes, when B branches on such a
  /// condition.
  std::optional<ArmBits> armOf(const clang::CFGBlock &B, unsigned Succ,
                               const clang::ASTContext &Ctx);

private:
  std::map<unsigned, unsigned> Numbers;
};

/// The condition a two-way block branches on: `if`'s (also `if constexpr`,
/// which a pattern keeps both arms of), a loop's, `&&`/`||`'s, `?:`'s.
const clang::Expr *branchCondition(const clang::CFGBlock &B);

} // namespace proxyfence

#endif
