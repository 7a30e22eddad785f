//===- SymbolicPlace.h - dynamic shared memory carved by template values ---===//
//
// A kernel template carves its dynamic shared memory with offsets that
// template values decide (`smem + SMEM_CD_SIZE + i * SMEM_A_SIZE_PER_STAGE`):
// no constant places the regions, yet the layout is plain. A place is a
// polynomial over those values, in bytes from the `extern __shared__` base:
// fixed, or an array of stages whose runtime index moves it by a stride that
// template values decide. As with constant offsets, a region runs from its
// place to the next place carved from the same memory; a stage array's own
// stages do not end it. Places are interned: equal places are one pointer.
//
//===----------------------------------------------------------------------===//
#ifndef PROXYFENCE_SYMBOLICPLACE_H
#define PROXYFENCE_SYMBOLICPLACE_H

#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include <cstdint>
#include <map>
#include <optional>

namespace proxyfence {

/// A symbol of a polynomial: a template value (its declaration), the size of
/// a dependent type, an expression a template fixes but the polynomial does
/// not model (`kN / 16`), a runtime value, or a parameter of the function
/// the polynomial was read in (bound at its calls).
using Symbol = uintptr_t;

class Poly {
public:
  using Monomial = llvm::SmallVector<Symbol, 2>; // sorted
  static Poly constant(int64_t C);
  static Poly symbol(Symbol S);
  Poly operator+(const Poly &O) const;
  Poly operator-(const Poly &O) const;
  Poly operator*(const Poly &O) const;
  bool isZero() const { return Terms.empty(); }
  std::optional<int64_t> asConstant() const;
  /// Every coefficient non-negative and some term: greater than zero for
  /// all template values of one or more.
  bool isPositive() const;
  /// Whether some symbol satisfies \p Pred.
  bool mentions(llvm::function_ref<bool(Symbol)> Pred) const;
  /// \p Pred's symbols replaced by polynomials (\p Value: nullopt keeps it).
  Poly substitute(llvm::function_ref<bool(Symbol)> Pred,
                  llvm::function_ref<std::optional<Poly>(Symbol)> Value) const;
  /// The terms with a symbol satisfying \p Pred, and the rest.
  std::pair<Poly, Poly> split(llvm::function_ref<bool(Symbol)> Pred) const;
  /// C when this is C * \p Stride for a constant C >= 1.
  std::optional<int64_t> multipleOf(const Poly &Stride) const;
  bool operator==(const Poly &O) const { return Terms == O.Terms; }
  bool operator<(const Poly &O) const { return Terms < O.Terms; }

private:
  void add(const Monomial &M, int64_t C);
  std::map<Monomial, int64_t> Terms;
};

bool isRuntimeSymbol(Symbol S);
bool isParamSymbol(Symbol S);
unsigned paramOfSymbol(Symbol S);

/// Where a region of dynamic shared memory starts.
struct SymbolicPlace {
  /// The function whose dynamic shared memory is carved: places of one
  /// kernel end each other's regions, not another kernel's.
  const clang::DeclContext *Owner = nullptr;
  Poly Base;
  /// A stage array: Base + index * Stride, the index known only at run
  /// time (Stride not a constant).
  std::optional<Poly> Stride;
  bool operator<(const SymbolicPlace &O) const;
};

/// The one copy of \p P; recorded as a place of its owner.
const SymbolicPlace *internPlace(SymbolicPlace P);
/// Forgets every place (a new translation unit).
void resetPlaces();
/// Whether regions starting at \p A and \p B may overlap; a null place is
/// a constant offset \p ConstantA / \p ConstantB from the base.
bool placesOverlap(const SymbolicPlace *A, uint64_t ConstantA,
                   const SymbolicPlace *B, uint64_t ConstantB);

/// The polynomial an integer expression of \p Fn computes, in bytes times
/// \p Scale; parameters of \p Fn (other than a kernel's) become parameter
/// symbols. Nullopt when it is not an integer expression.
std::optional<Poly> polyOf(const clang::Expr *E, const clang::FunctionDecl *Fn,
                           const clang::ASTContext &Ctx);
/// sizeof(T) as a polynomial (a symbol when T is dependent).
std::optional<Poly> sizeOfType(clang::QualType T, const clang::ASTContext &Ctx);

/// \p Base moved by \p Offset bytes: a runtime part with a stride that is
/// not a constant makes a fixed place a stage array; other runtime parts
/// stay inside the region, and so does a constant part unless \p FromBase
/// (the offset is from the `extern __shared__` array itself). Nullopt when
/// runtime values the polynomial cannot tell apart move it (the place is
/// then unknown).
std::optional<SymbolicPlace> movedPlace(SymbolicPlace Base, const Poly &Offset,
                                        bool FromBase);

} // namespace proxyfence

#endif
