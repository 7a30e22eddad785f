//===- SymbolicPlace.cpp - dynamic shared memory carved by template values -===//
#include "model/SymbolicPlace.h"
#include "model/DependentCalls.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/FoldingSet.h"
#include <set>
#include <tuple>

using namespace clang;

namespace proxyfence {

// Symbols: a declaration or canonical type (aligned pointers, tag 0), an
// expression's profile (tag 1), a parameter index (tag 2), a runtime value's
// profile (tag 3).
static Symbol tagged(uint64_t V, unsigned Tag) { return Symbol(V << 2 | Tag); }
bool isRuntimeSymbol(Symbol S) { return (S & 3) == 3; }
bool isParamSymbol(Symbol S) { return (S & 3) == 2; }
unsigned paramOfSymbol(Symbol S) { return unsigned(S >> 2); }

Poly Poly::constant(int64_t C) {
  Poly P;
  P.add({}, C);
  return P;
}

Poly Poly::symbol(Symbol S) {
  Poly P;
  P.add({S}, 1);
  return P;
}

void Poly::add(const Monomial &M, int64_t C) {
  if (!C)
    return;
  int64_t &Slot = Terms[M];
  Slot += C;
  if (!Slot)
    Terms.erase(M);
}

Poly Poly::operator+(const Poly &O) const {
  Poly R = *this;
  for (const auto &[M, C] : O.Terms)
    R.add(M, C);
  return R;
}

Poly Poly::operator-(const Poly &O) const {
  Poly R = *this;
  for (const auto &[M, C] : O.Terms)
    R.add(M, -C);
  return R;
}

Poly Poly::operator*(const Poly &O) const {
  Poly R;
  for (const auto &[A, CA] : Terms)
    for (const auto &[B, CB] : O.Terms) {
      Monomial M(A.begin(), A.end());
      M.append(B.begin(), B.end());
      llvm::sort(M);
      R.add(M, CA * CB);
    }
  return R;
}

std::optional<int64_t> Poly::asConstant() const {
  if (Terms.empty())
    return 0;
  if (Terms.size() == 1 && Terms.begin()->first.empty())
    return Terms.begin()->second;
  return std::nullopt;
}

bool Poly::isPositive() const {
  if (Terms.empty() || mentions([](Symbol S) {
        return isRuntimeSymbol(S) || isParamSymbol(S);
      }))
    return false;
  for (const auto &[M, C] : Terms)
    if (C < 0)
      return false;
  return true;
}

bool Poly::mentions(llvm::function_ref<bool(Symbol)> Pred) const {
  for (const auto &[M, C] : Terms)
    for (Symbol S : M)
      if (Pred(S))
        return true;
  return false;
}

Poly Poly::substitute(
    llvm::function_ref<bool(Symbol)> Pred,
    llvm::function_ref<std::optional<Poly>(Symbol)> Value) const {
  Poly R;
  for (const auto &[M, C] : Terms) {
    Poly Term = constant(C);
    for (Symbol S : M) {
      std::optional<Poly> V = Pred(S) ? Value(S) : std::nullopt;
      Term = Term * (V ? *V : symbol(S));
    }
    R = R + Term;
  }
  return R;
}

std::pair<Poly, Poly> Poly::split(llvm::function_ref<bool(Symbol)> Pred) const {
  Poly With, Without;
  for (const auto &[M, C] : Terms)
    (llvm::any_of(M, Pred) ? With : Without).add(M, C);
  return {With, Without};
}

std::optional<int64_t> Poly::multipleOf(const Poly &Stride) const {
  if (Stride.Terms.empty() || Terms.size() != Stride.Terms.size())
    return std::nullopt;
  const auto &[M, C] = *Terms.begin();
  auto It = Stride.Terms.find(M);
  if (It == Stride.Terms.end() || C % It->second)
    return std::nullopt;
  int64_t K = C / It->second;
  if (K < 1)
    return std::nullopt;
  for (const auto &[SM, SC] : Stride.Terms) {
    auto Mine = Terms.find(SM);
    if (Mine == Terms.end() || Mine->second != SC * K)
      return std::nullopt;
  }
  return K;
}

std::optional<Poly> sizeOfType(QualType T, const ASTContext &Ctx) {
  if (T.isNull() || T->isVoidType() || T->isFunctionType())
    return std::nullopt;
  if (T->isDependentType())
    return Poly::symbol(tagged(
        reinterpret_cast<uintptr_t>(T.getCanonicalType().getTypePtr()) >> 2, 0));
  if (T->isIncompleteType())
    return std::nullopt;
  return Poly::constant(Ctx.getTypeSizeInChars(T).getQuantity());
}

static Symbol profiled(const Expr *E, const ASTContext &Ctx, unsigned Tag) {
  llvm::FoldingSetNodeID ID;
  E->Profile(ID, Ctx, /*Canonical=*/true);
  return tagged(ID.ComputeHash(), Tag);
}

static std::optional<Poly> polyOf(const Expr *E, const FunctionDecl *Fn,
                                  const ASTContext &Ctx, unsigned Depth) {
  if (!E || Depth > 8)
    return std::nullopt;
  E = E->IgnoreParens();
  if (!E->getType().isNull() && !E->isTypeDependent() &&
      !E->getType()->isIntegralOrEnumerationType())
    return std::nullopt;
  if (!E->isValueDependent() && !E->isTypeDependent()) {
    Expr::EvalResult R;
    if (E->EvaluateAsInt(R, Ctx))
      return Poly::constant(R.Val.getInt().getExtValue());
  }
  if (const auto *Subst = dyn_cast<SubstNonTypeTemplateParmExpr>(E))
    return polyOf(Subst->getReplacement(), Fn, Ctx, Depth);
  if (const auto *CE = dyn_cast<CastExpr>(E))
    return polyOf(CE->getSubExpr(), Fn, Ctx, Depth);
  if (const auto *BO = dyn_cast<BinaryOperator>(E)) {
    auto Op = BO->getOpcode();
    if (Op == BO_Add || Op == BO_Sub || Op == BO_Mul) {
      auto L = polyOf(BO->getLHS(), Fn, Ctx, Depth);
      auto R = polyOf(BO->getRHS(), Fn, Ctx, Depth);
      if (!L || !R)
        return std::nullopt;
      return Op == BO_Add ? *L + *R : Op == BO_Sub ? *L - *R : *L * *R;
    }
  }
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    const ValueDecl *D = Ref->getDecl();
    if (isa<NonTypeTemplateParmDecl>(D))
      return Poly::symbol(
          tagged(reinterpret_cast<uintptr_t>(D->getCanonicalDecl()) >> 2, 0));
    if (const auto *P = dyn_cast<ParmVarDecl>(D)) {
      const auto *Owner = dyn_cast<FunctionDecl>(P->getDeclContext());
      if (Owner && Fn && Owner->getCanonicalDecl() == Fn->getCanonicalDecl() &&
          !Owner->hasAttr<CUDAGlobalAttr>())
        return Poly::symbol(tagged(P->getFunctionScopeIndex(), 2));
      return Poly::symbol(profiled(E, Ctx, 3));
    }
    if (const auto *V = dyn_cast<VarDecl>(D)) {
      if (V->isConstexpr() && V->getInit())
        return polyOf(V->getInit(), Fn, Ctx, Depth + 1);
      return Poly::symbol(profiled(E, Ctx, 3));
    }
  }
  if (const auto *UE = dyn_cast<UnaryExprOrTypeTraitExpr>(E);
      UE && UE->getKind() == UETT_SizeOf)
    return sizeOfType(UE->getTypeOfArgument(), Ctx);
  // Whatever else a template value decides is a symbol of its own; a value
  // only the run knows, a runtime symbol.
  return Poly::symbol(profiled(E, Ctx, isTemplateConstant(E) ? 1 : 3));
}

std::optional<Poly> polyOf(const Expr *E, const FunctionDecl *Fn,
                           const ASTContext &Ctx) {
  return polyOf(E, Fn, Ctx, 0);
}

bool SymbolicPlace::operator<(const SymbolicPlace &O) const {
  return std::tie(Owner, Base, Stride) < std::tie(O.Owner, O.Base, O.Stride);
}

namespace {
struct PlaceTable {
  std::set<SymbolicPlace> Interned; // never erased: roots point into it
  std::map<const DeclContext *, std::vector<const SymbolicPlace *>> ByOwner;
};
PlaceTable &places() {
  thread_local PlaceTable T;
  return T;
}
} // namespace

const SymbolicPlace *internPlace(SymbolicPlace P) {
  auto [It, New] = places().Interned.insert(std::move(P));
  const SymbolicPlace *Out = &*It;
  if (New && !Out->Base.mentions(isParamSymbol))
    places().ByOwner[Out->Owner].push_back(Out);
  return Out;
}

void resetPlaces() { places().ByOwner.clear(); }

/// Whether the region at \p From (null: a constant offset) ends at or
/// before \p To: some place of the same memory lies in (From, To] and is
/// not one of From's own stages. \p Owned names the memory's owner.
static bool endsBefore(const SymbolicPlace *From, const Poly &FromBase,
                       const Poly &To, const SymbolicPlace *Owned) {
  auto ends = [&](const Poly &C) {
    Poly Past = C - FromBase;
    if (!Past.isPositive() || !(To == C || (To - C).isPositive()))
      return false;
    return !(From && From->Stride && Past.multipleOf(*From->Stride));
  };
  if (ends(To))
    return true;
  for (const SymbolicPlace *C : places().ByOwner[Owned->Owner])
    if (ends(C->Base))
      return true;
  return false;
}

bool placesOverlap(const SymbolicPlace *A, uint64_t ConstantA,
                   const SymbolicPlace *B, uint64_t ConstantB) {
  if (!A && !B)
    return ConstantA == ConstantB;
  if (A && B && A->Owner != B->Owner)
    return true;
  Poly BaseA = A ? A->Base : Poly::constant(int64_t(ConstantA));
  Poly BaseB = B ? B->Base : Poly::constant(int64_t(ConstantB));
  if (BaseA == BaseB)
    return true;
  const SymbolicPlace *Owned = A ? A : B;
  if ((BaseB - BaseA).isPositive())
    return !endsBefore(A, BaseA, BaseB, Owned);
  if ((BaseA - BaseB).isPositive())
    return !endsBefore(B, BaseB, BaseA, Owned);
  return true; // their order depends on the template values
}

std::optional<SymbolicPlace> movedPlace(SymbolicPlace P, const Poly &Offset,
                                        bool FromBase) {
  auto [Runtime, Fixed] = Offset.split(isRuntimeSymbol);
  // From a carved place, as from a constant one, a constant offset stays
  // inside its region (`tile[4]`); template values carve a new place.
  if (!FromBase)
    Fixed = Fixed.split([](Symbol) { return true; }).first;
  P.Base = P.Base + Fixed;
  if (Runtime.isZero() || P.Stride)
    return P;
  // index * stride, with one runtime value.
  std::optional<Symbol> Index;
  bool Single = true;
  Poly Stride = Runtime.substitute(isRuntimeSymbol, [&](Symbol S) {
    Single &= !Index || *Index == S;
    Index = S;
    return std::optional<Poly>(Poly::constant(1));
  });
  if (!Single)
    return std::nullopt;
  // A constant stride walks inside the region; one a template value decides
  // is a stage array.
  if (!Stride.asConstant())
    P.Stride = Stride;
  return P;
}

} // namespace proxyfence
