//===- TensorMapWrites.cpp - C++ code that modifies a tensor map -----------===//
#include "model/TensorMapWrites.h"
#include "clang/AST/ExprCXX.h"

using namespace clang;

namespace proxyfence {

bool isTensorMapType(QualType T) {
  if (T.isNull())
    return false;
  // The map itself (or an array of maps): a pointer to one is a value of
  // its own, and assigning it writes no map.
  QualType C = T.getCanonicalType();
  while (const auto *A = dyn_cast<ArrayType>(C.getTypePtr()))
    C = A->getElementType().getCanonicalType();
  if (C->isPointerType() || C->isReferenceType())
    return false;
  std::string S = C.getUnqualifiedType().getAsString();
  return llvm::StringRef(S).contains("CUtensorMap");
}

static bool pointsToMap(const Expr *E) {
  QualType T = E->getType();
  return T->isPointerType() && isTensorMapType(T->getPointeeType());
}

bool pointsIntoTensorMap(const Expr *Dest) {
  // Down through casts and pointer arithmetic to a map's address.
  const Expr *E = Dest;
  while (E) {
    E = E->IgnoreParens();
    if (pointsToMap(E))
      return true;
    if (const auto *UO = dyn_cast<UnaryOperator>(E);
        UO && UO->getOpcode() == UO_AddrOf)
      return writesTensorMap(UO->getSubExpr());
    if (const auto *Cast = dyn_cast<CastExpr>(E)) {
      E = Cast->getSubExpr();
      continue;
    }
    if (E->getType()->isArrayType()) // `map.opaque`, decayed
      return writesTensorMap(E);
    if (const auto *BO = dyn_cast<BinaryOperator>(E);
        BO && BO->isAdditiveOp()) {
      E = BO->getLHS()->getType()->isPointerType() ? BO->getLHS()
                                                    : BO->getRHS();
      continue;
    }
    return false;
  }
  return false;
}

bool writesTensorMap(const Expr *Target) {
  const Expr *E = Target->IgnoreParenImpCasts();
  if (isTensorMapType(E->getType()))
    return true;
  if (const auto *ME = dyn_cast<MemberExpr>(E))
    return ME->isArrow() ? pointsIntoTensorMap(ME->getBase())
                         : writesTensorMap(ME->getBase());
  if (const auto *AS = dyn_cast<ArraySubscriptExpr>(E))
    return AS->getBase()->getType()->isPointerType()
               ? pointsIntoTensorMap(AS->getBase())
               : writesTensorMap(AS->getBase());
  if (const auto *UO = dyn_cast<UnaryOperator>(E);
      UO && UO->getOpcode() == UO_Deref)
    return pointsIntoTensorMap(UO->getSubExpr());
  return false;
}

} // namespace proxyfence
