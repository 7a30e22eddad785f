//===- SuppressionsTest.cpp - NOLINT and proxyfence: ignore parsing --------===//
#include "report/Suppressions.h"
#include <gtest/gtest.h>

using proxyfence::isSuppressed;

namespace {
const char *TMA = "proxyfence-tma-store";
const char *MMA = "proxyfence-mma-operand";

TEST(Suppressions, SameLine) {
  EXPECT_TRUE(isSuppressed("a;\nb; // NOLINT\n", 2, TMA));
  EXPECT_TRUE(isSuppressed("b; // NOLINT(proxyfence-tma-store)\n", 1, TMA));
  EXPECT_FALSE(isSuppressed("b; // NOLINT(proxyfence-tma-store)\n", 1, MMA));
  EXPECT_FALSE(isSuppressed("a; // NOLINT\nb;\n", 2, TMA)); // other line
  EXPECT_TRUE(isSuppressed("b; // NOLINT(bugprone-x, proxyfence-*)\n", 1, MMA));
  EXPECT_FALSE(isSuppressed("b; // NOLINT(bugprone-*)\n", 1, TMA));
}

TEST(Suppressions, NextLine) {
  EXPECT_TRUE(isSuppressed("// NOLINTNEXTLINE\nb;\n", 2, TMA));
  EXPECT_FALSE(isSuppressed("// NOLINTNEXTLINE\nb;\n", 1, TMA));
  EXPECT_FALSE(isSuppressed("// NOLINTNEXTLINE\n\nb;\n", 3, TMA));
  EXPECT_TRUE(isSuppressed("// NOLINTNEXTLINE(*tma*)\nb;\n", 2, TMA));
  EXPECT_FALSE(isSuppressed("// NOLINTNEXTLINE(*tma*)\nb;\n", 2, MMA));
}

TEST(Suppressions, NotDirectives) {
  // Another word that starts with NOLINT, an unclosed list.
  EXPECT_FALSE(isSuppressed("b; // NOLINTED\n", 1, TMA));
  EXPECT_FALSE(isSuppressed("b; // NOLINT(proxyfence-tma-store\n", 1, TMA));
  EXPECT_FALSE(isSuppressed("b; // proxyfence: ignored\n", 1, TMA));
  EXPECT_FALSE(isSuppressed("b; // proxyfence: 2 findings\n", 1, TMA));
  EXPECT_FALSE(isSuppressed("b;\n", 0, TMA));
}

TEST(Suppressions, Regions) {
  const char *Text = "// NOLINTBEGIN(proxyfence-tma-store)\n"
                     "a;\n"
                     "// NOLINTEND(proxyfence-tma-store)\n"
                     "b;\n";
  EXPECT_TRUE(isSuppressed(Text, 2, TMA));
  EXPECT_FALSE(isSuppressed(Text, 2, MMA));
  EXPECT_FALSE(isSuppressed(Text, 4, TMA));
  // Unclosed, or closed with another list: nothing.
  EXPECT_FALSE(isSuppressed("// NOLINTBEGIN\na;\n", 2, TMA));
  EXPECT_FALSE(isSuppressed("// NOLINTBEGIN(proxyfence-*)\na;\n"
                            "// NOLINTEND(proxyfence-tma-store)\n",
                            2, TMA));
  // Nested regions close innermost first.
  const char *Nested = "// NOLINTBEGIN\n"
                       "// NOLINTBEGIN(proxyfence-mma-operand)\n"
                       "// NOLINTEND(proxyfence-mma-operand)\n"
                       "a;\n"
                       "// NOLINTEND\n";
  EXPECT_TRUE(isSuppressed(Nested, 4, MMA));
}

TEST(Suppressions, ProxyfenceComments) {
  EXPECT_TRUE(isSuppressed("b; // proxyfence: ignore\n", 1, TMA));
  EXPECT_TRUE(isSuppressed("b; // proxyfence: ignore(tma-store)\n", 1, TMA));
  EXPECT_TRUE(isSuppressed("b; // proxyfence:ignore(proxyfence-tma-store)\n", 1, TMA));
  EXPECT_FALSE(isSuppressed("b; // proxyfence: ignore(mma-operand)\n", 1, TMA));
  EXPECT_TRUE(isSuppressed("// proxyfence: ignore-next-line\nb;\n", 2, MMA));
  EXPECT_TRUE(isSuppressed("// proxyfence: ignore-next-line(mma-*)\nb;\n", 2, MMA));
  EXPECT_FALSE(isSuppressed("// proxyfence: ignore-next-line(mma-*)\nb;\n", 2, TMA));
  // ignore-next-line does not silence its own line.
  EXPECT_FALSE(isSuppressed("b; // proxyfence: ignore-next-line\n", 1, TMA));
}
} // namespace
