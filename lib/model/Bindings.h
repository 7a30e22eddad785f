//===- Bindings.h - constant arguments a summary is specialised on --------===//
//
// A wrapper called with `num_multicast = 1` (a constant or a default
// argument) never takes its multicast branch, and one called with a function
// (`explode(Op::fma, ...)`) calls that function. Summaries are computed per
// such bindings: branches whose condition the bound constants decide are
// pruned, and calls through a bound function parameter are followed.
//
//===----------------------------------------------------------------------===//
#ifndef PROXYFENCE_BINDINGS_H
#define PROXYFENCE_BINDINGS_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/Analysis/CFG.h"
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <tuple>

namespace proxyfence {

/// Constant values of a function's parameters, by parameter index.
struct Bindings {
  std::map<unsigned, int64_t> Ints;
  std::map<unsigned, const clang::FunctionDecl *> Functions;

  bool empty() const { return Ints.empty() && Functions.empty(); }
  bool operator<(const Bindings &O) const {
    return std::tie(Ints, Functions) < std::tie(O.Ints, O.Functions);
  }
  /// The value of \p E in \p Fn (whose parameters these bind), if constant.
  std::optional<int64_t> evaluate(const clang::Expr *E,
                                  clang::ASTContext &Ctx) const;
  /// The function a bound function parameter \p E (`f`, `*f`) names.
  const clang::FunctionDecl *function(const clang::Expr *E) const;
  /// The function a call through a bound parameter calls, or null.
  const clang::FunctionDecl *callee(const clang::CallExpr *Call) const;
  /// Whether the edge to successor \p Succ of block \p B can be taken: false
  /// when the bound constants decide its branch condition the other way.
  bool feasible(const clang::CFGBlock &B, unsigned Succ,
                clang::ASTContext &Ctx) const;
};

/// Computes the bindings of a call: arguments (or defaults) that are
/// constants, functions, or bound parameters of the caller; only for the
/// parameters the callee branches on or calls through, so that other
/// constants do not multiply its summaries.
class ArgumentBinder {
public:
  explicit ArgumentBinder(clang::ASTContext &Ctx) : Ctx(Ctx) {}
  /// The bindings of \p Callee's parameters at \p Call (a CallExpr or
  /// CXXConstructExpr) in a caller specialised on \p Outer.
  Bindings bind(const clang::Expr *Call, const clang::FunctionDecl *Callee,
                const Bindings &Outer);

private:
  /// Parameters of \p Def named in a branch condition or called.
  const std::set<unsigned> &decisive(const clang::FunctionDecl *Def);

  clang::ASTContext &Ctx;
  std::map<const clang::FunctionDecl *, std::set<unsigned>> Decisive;
};

} // namespace proxyfence

#endif
