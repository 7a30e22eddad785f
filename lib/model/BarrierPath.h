//===- BarrierPath.h - which mbarrier, spelled as the code reaches it ------===//
//
// Roles of a warp-specialised kernel reach the same mbarrier through
// different expressions in different functions: `&full[s]`, a struct field
// `bars->empty[s]`, a pipeline's `empty_barrier_ptr_[state.index()]`, a
// parameter. A path names the barrier by its root object (a shared variable,
// a local object such as a pipeline, a parameter, `*this`) and the fields,
// dereferences and indices that lead from it. Calls map parameter and `this`
// roots to the caller's expressions, so that at the function holding both
// roles, both ends are spelled from the same root: `pipeline.empty[*]`.
//
//===----------------------------------------------------------------------===//
#ifndef PROXYFENCE_BARRIERPATH_H
#define PROXYFENCE_BARRIERPATH_H

#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include <optional>
#include <string>
#include <vector>

namespace proxyfence {

struct BarrierPath {
  enum RootKind { SharedVar, Local, Param, This } Root = SharedVar;
  /// The variable (SharedVar, Local), the ParmVarDecl (Param), or for a
  /// `this` a lambda captured, the member function it belongs to (This).
  const clang::ValueDecl *Var = nullptr;
  unsigned ParamIndex = 0;

  struct Step {
    enum KindT { Field, Deref, Index } Kind = Field;
    const clang::FieldDecl *Member = nullptr; // Field
    /// Index: a constant, a parameter of the holding function (mapped at
    /// calls), or anything else (a stage counter: any stage).
    enum IndexKindT { Const, IndexParam, Any } IndexKind = Any;
    int64_t Value = 0;     // Const: the index; IndexParam: the parameter
    bool operator==(const Step &O) const {
      return Kind == O.Kind && Member == O.Member && IndexKind == O.IndexKind &&
             Value == O.Value;
    }
  };
  std::vector<Step> Steps;

  enum class Match { Same, Different, Unknown };
  /// Two paths in one function: the same root and the same fields name the
  /// same barrier unless two constant indices differ (a stage counter may be
  /// any stage); different fields of one root, or different shared
  /// variables, are different barriers; anything else cannot be decided.
  /// \p SameRoot decides roots of different functions (sibling roles).
  Match compare(const BarrierPath &O) const;
  bool sameRoot(const BarrierPath &O) const;
  /// Compares the steps only (the roots are known to be the same object).
  Match compareSteps(const BarrierPath &O) const;
  /// "'pipeline'.empty_barrier_ptr_[*]" for --stats.
  std::string describe() const;
  /// The same spelling: root and steps.
  bool operator==(const BarrierPath &O) const {
    return Root == O.Root && Var == O.Var && ParamIndex == O.ParamIndex &&
           Steps == O.Steps;
  }
};

/// The path of the object an address value points to (`&full[s]`,
/// `smem_u32(bar)`, `empty_barrier_ptr_ + s`), or none when it is not spelled
/// from a root we can name.
std::optional<BarrierPath> barrierPathOf(const clang::Expr *E,
                                         const clang::FunctionDecl *Fn,
                                         clang::ASTContext &Ctx);

/// \p Inner, a path of the callee at a call (CallExpr or CXXConstructExpr),
/// as the caller \p Caller spells it; none when a root does not map.
std::optional<BarrierPath> liftBarrierPath(const BarrierPath &Inner,
                                           const clang::Expr *Site,
                                           const clang::FunctionDecl *Callee,
                                           const clang::FunctionDecl *Caller,
                                           clang::ASTContext &Ctx);

} // namespace proxyfence

#endif
