// Places of dynamic shared memory that template values decide: the
// polynomial arithmetic and when two regions may overlap.
#include "model/SymbolicPlace.h"
#include <gtest/gtest.h>

using namespace proxyfence;

namespace {
// Symbols as SymbolicPlace.cpp tags them: declarations are aligned
// pointers (tag 0), runtime values tag 3.
Poly sym(uintptr_t N) { return Poly::symbol(N << 4); }
Poly runtime(uintptr_t N) { return Poly::symbol(N << 2 | 3); }

const clang::DeclContext *owner(uintptr_t N) {
  return reinterpret_cast<const clang::DeclContext *>(N << 4);
}

const SymbolicPlace *place(const clang::DeclContext *Owner, const Poly &Offset) {
  SymbolicPlace Base;
  Base.Owner = Owner;
  Base.Base = Poly::constant(0);
  auto P = movedPlace(Base, Offset, /*FromBase=*/true);
  EXPECT_TRUE(P.has_value());
  return internPlace(*P);
}
} // namespace

TEST(Poly, Arithmetic) {
  Poly A = sym(1), B = sym(2);
  EXPECT_EQ((A + B) - A, B);
  EXPECT_EQ((A * B) - (B * A), Poly::constant(0));
  EXPECT_EQ(*Poly::constant(3).asConstant(), 3);
  EXPECT_FALSE(A.asConstant());
  EXPECT_TRUE((A * B + Poly::constant(4)).isPositive());
  EXPECT_FALSE((A - B).isPositive());
  EXPECT_FALSE(Poly::constant(0).isPositive());
  EXPECT_EQ(*(A * Poly::constant(3)).multipleOf(A), 3);
  EXPECT_FALSE((A * B).multipleOf(A));
  EXPECT_FALSE((A + B).multipleOf(A));
}

TEST(SymbolicPlace, RuntimeIndexWithTemplateStrideIsAStageArray) {
  SymbolicPlace Base;
  Base.Owner = owner(7);
  Base.Base = sym(1);
  auto Stages = movedPlace(Base, runtime(9) * sym(2), true);
  ASSERT_TRUE(Stages);
  ASSERT_TRUE(Stages->Stride);
  EXPECT_EQ(*Stages->Stride, sym(2));
  EXPECT_EQ(Stages->Base, sym(1));
  // A constant stride walks inside the region.
  auto Inside = movedPlace(Base, runtime(9) * Poly::constant(4), true);
  ASSERT_TRUE(Inside);
  EXPECT_FALSE(Inside->Stride);
  // Two runtime values: no place.
  EXPECT_FALSE(movedPlace(Base, runtime(9) * sym(2) + runtime(8), true));
  // From a carved place, a constant offset stays in its region.
  auto Moved = movedPlace(Base, Poly::constant(16) + sym(3), false);
  EXPECT_EQ(Moved->Base, sym(1) + sym(3));
}

TEST(SymbolicPlace, RegionsEndAtTheNextPlace) {
  resetPlaces();
  const clang::DeclContext *K = owner(11);
  Poly Stages = sym(1), SizeA = sym(2), SizeB = sym(3);
  // A: i * SizeA; B: Stages * SizeA + i * SizeB; a slot past both.
  const SymbolicPlace *A = place(K, runtime(5) * SizeA);
  const SymbolicPlace *B = place(K, Stages * SizeA + runtime(5) * SizeB);
  const SymbolicPlace *Slot = place(K, Stages * SizeA + Stages * SizeB);
  const SymbolicPlace *Stage1 = place(K, SizeA);
  EXPECT_FALSE(placesOverlap(A, 0, B, 0));
  EXPECT_FALSE(placesOverlap(B, 0, Slot, 0));
  EXPECT_FALSE(placesOverlap(A, 0, Slot, 0));
  // One of A's own stages is inside A.
  EXPECT_TRUE(placesOverlap(A, 0, Stage1, 0));
  EXPECT_TRUE(placesOverlap(A, 0, A, 0));
  // Order unknown: may overlap.
  const SymbolicPlace *X = place(K, sym(4));
  EXPECT_TRUE(placesOverlap(X, 0, A, 0) || placesOverlap(X, 0, B, 0));
  // Another kernel's places are not compared.
  const SymbolicPlace *Other = place(owner(12), Stages * SizeA);
  EXPECT_TRUE(placesOverlap(A, 0, Other, 0));
  // A constant offset before a stage array's base does not reach it.
  EXPECT_FALSE(placesOverlap(nullptr, 0, B, 0));
}
