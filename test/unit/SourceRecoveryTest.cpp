//===- SourceRecoveryTest.cpp - repairs of what nvcc accepts ---------------===//
#include "frontend/SourceRecovery.h"
#include <gtest/gtest.h>

using namespace proxyfence;

namespace {

// Every repair keeps the text's length and its lines.
void expectNeutral(llvm::StringRef Before, const Recovery &R) {
  EXPECT_EQ(R.Text.size(), Before.size());
  EXPECT_EQ(llvm::StringRef(R.Text).count('\n'), Before.count('\n'));
}

TEST(SourceRecovery, SingleEscapeIsDoubledWithABlankSpent) {
  std::string In = "int f() { unsigned r; asm volatile(\"mov.u32 %0, %laneid;\" : \"=r\"(r)); return r; }";
  Recovery R = recoverSource(In);
  expectNeutral(In, R);
  EXPECT_EQ(R.Escapes, 1u);
  EXPECT_NE(R.Text.find("\"mov.u32 %0,%%laneid;\""), std::string::npos) << R.Text;
  // Outside the statement nothing moved.
  EXPECT_EQ(R.Text.substr(0, 22), In.substr(0, 22));
  EXPECT_EQ(R.Text.substr(R.Text.size() - 12), In.substr(In.size() - 12));
}

TEST(SourceRecovery, MissingOperandCommaTakesTheBlank) {
  std::string In = "asm volatile(\"tcgen05.cp.cta_group::1.128x256b [%0], %1;\"\n"
                   "    :\n    : \"r\"(dst)  \"l\"(src));\n";
  Recovery R = recoverSource(In);
  expectNeutral(In, R);
  EXPECT_EQ(R.Commas, 1u);
  EXPECT_NE(R.Text.find("\"r\"(dst), \"l\"(src)"), std::string::npos) << R.Text;
}

TEST(SourceRecovery, MultiLineStatementRepairsOnItsOwnLine) {
  std::string In = "asm volatile(\n    \"{\\n\"\n    \"mov.u32 %0, %clusterid.x;\\n\"\n"
                   "    \"}\\n\"\n    : \"=r\"(x));\n";
  Recovery R = recoverSource(In);
  expectNeutral(In, R);
  EXPECT_EQ(R.Escapes, 1u);
  EXPECT_NE(R.Text.find("%0,%%clusterid.x;"), std::string::npos) << R.Text;
}

TEST(SourceRecovery, WhatClangAcceptsIsLeftAlone) {
  for (std::string In : {
           // Basic asm: no operands, so '%' is no escape.
           std::string("asm volatile(\"mov.u32 %r1, %laneid;\");"),
           // Escapes clang knows: %%, operands, modifiers, names, %=.
           std::string("asm(\"mov.u32 %0, %%laneid; add %h1, %[v]; L%=:\" : \"=r\"(a) : [v] \"r\"(b), \"r\"(c));"),
           // Not asm: strings, comments, identifiers containing asm.
           std::string("printf(\"%lu\\n\", x); // asm(\"%laneid\" : :)\nint plasma(int); x = plasma(1);"),
       }) {
    Recovery R = recoverSource(In);
    EXPECT_EQ(R.Text, In);
    EXPECT_EQ(R.Escapes + R.Commas + R.Unrepairable, 0u) << In;
  }
}

TEST(SourceRecovery, OperandNumberPastTheOperandsIsEscaped) {
  // Eight operands numbered 0-7 (the read-write output counts twice): %8 is
  // past them, %7 and %h1 are not.
  std::string In = "asm volatile(\"op [%0], [%1, {%3, %4, %5}], [%h1], %7, %8;\"\n"
                   "    : \"+r\"(a) : \"l\"(b), \"r\"(c), \"r\"(d),\n"
                   "      \"r\"(e), \"r\"(f), [g] \"l\"(g));\n";
  Recovery R = recoverSource(In);
  expectNeutral(In, R);
  EXPECT_EQ(R.Escapes, 1u);
  EXPECT_NE(R.Text.find("%7,%%8;"), std::string::npos) << R.Text;
  // One operand fewer and %7 is past them too; nine and %8 is fine.
  std::string Fewer = "asm(\"op %7, %8;\" :: \"r\"(a), \"r\"(b), \"r\"(c), \"r\"(d), \"r\"(e), \"r\"(f), \"r\"(g));";
  EXPECT_EQ(recoverSource(Fewer).Escapes, 2u);
  std::string Nine = "asm(\"op %7, %8;\" :: \"r\"(a), \"r\"(b), \"r\"(c), \"r\"(d), \"r\"(e), \"r\"(f), \"r\"(g), \"r\"(h), \"r\"(i));";
  Recovery N = recoverSource(Nine);
  EXPECT_EQ(N.Text, Nine);
  EXPECT_EQ(N.Escapes + N.Unrepairable, 0u);
  // Operands from a macro cannot be counted: nothing is judged.
  std::string Macro = "asm(__Op \" {%0,%1}, [%2];\" : __Reg(a.x), __Reg(a.y) : \"l\"(p) __Clobber);";
  EXPECT_EQ(recoverSource(Macro).Text, Macro);
}

TEST(SourceRecovery, NoBlankToSpendLeavesTheStatement) {
  std::string In = "asm(\"mov.u32 %0,%laneid;\":\"=r\"(r));";
  Recovery R = recoverSource(In);
  EXPECT_EQ(R.Text, In);
  EXPECT_EQ(R.Unrepairable, 1u);
}

TEST(SourceRecovery, ReportedEscapeInAMacroString) {
  std::string In = "#define LANE \"mov.u32 %0, %laneid;\"\n"
                   "void f() { asm(LANE : \"=r\"(r)); }\n";
  unsigned At = In.find("%laneid");
  Recovery Scan = recoverSource(In);
  EXPECT_EQ(Scan.Text, In); // the scan cannot know LANE is an asm template
  Recovery R = recoverSource(In, {At});
  expectNeutral(In, R);
  EXPECT_EQ(R.Escapes, 1u);
  EXPECT_NE(R.Text.find("%0,%%laneid;"), std::string::npos) << R.Text;
}

TEST(SourceRecovery, TypenameIsPaidForAfterItOnItsLine) {
  std::string In = "void g() {\n"
                   "    copy(convert<E::value_type>(x),  y(a, b));  // why not\n"
                   "}\n";
  unsigned At = In.find("E::value_type");
  Recovery R = recoverSource(In, {}, {At});
  expectNeutral(In, R);
  EXPECT_EQ(R.Typenames, 1u);
  EXPECT_EQ(R.TypenamesLeft, 0u);
  EXPECT_NE(R.Text.find("convert<typename E::value_type>"), std::string::npos)
      << R.Text;
  // What precedes the insertion keeps its columns; the other lines are
  // untouched; only blanks and the comment's text were spent.
  EXPECT_EQ(R.Text.substr(0, At), In.substr(0, At));
  EXPECT_EQ(R.Text.substr(R.Text.find("\n}")), In.substr(In.find("\n}")));
  EXPECT_NE(R.Text.find("y(a, b)") , std::string::npos) << R.Text;
}

TEST(SourceRecovery, TypenameSpendsNoBlankThatSeparatesWords) {
  // Blanks to spend: only the indentation (the one between `return` and
  // `f` must stay, as must those inside the string).
  std::string In = "         return f<T::X>(\"a  b  c  d  e\");\n";
  unsigned At = In.find("T::X");
  Recovery R = recoverSource(In, {}, {At});
  expectNeutral(In, R);
  EXPECT_EQ(R.Typenames, 1u);
  EXPECT_EQ(R.Text, "return f<typename T::X>(\"a  b  c  d  e\");\n");
}

TEST(SourceRecovery, TypenameWithoutBlanksIsLeftOut) {
  std::string In = "f<T::X>(a,b);\n";
  Recovery R = recoverSource(In, {}, {0u + 2});
  EXPECT_EQ(R.Text, In);
  EXPECT_EQ(R.Typenames, 0u);
  EXPECT_EQ(R.TypenamesLeft, 1u);
  // Nor where one is already written.
  std::string Written = "    f<typename T::X>(a);\n";
  Recovery W = recoverSource(Written, {}, {unsigned(Written.find("T::X"))});
  EXPECT_EQ(W.Text, Written);
  EXPECT_EQ(W.Typenames + W.TypenamesLeft, 0u);
}

TEST(SourceRecovery, ShortLinesThatBothNeedTypenameShareTheNextBlanks) {
  // Neither line has nine blanks of its own, nor may one spend the other's
  // before it is repaired; together with the next line's indentation they
  // have enough (CUTLASS FMHA's `recast<decltype(convert)::source_type>`).
  std::string In = "      Tensor s = recast<decltype(c)::source_type>(a);\n"
                   "      Tensor d = recast<decltype(c)::result_type>(b);\n"
                   "\n"
                   "      for (int j = 0; j < 4; j++) {}\n";
  unsigned S = In.find("decltype(c)::source"), D = In.find("decltype(c)::result");
  Recovery R = recoverSource(In, {}, {S, D});
  expectNeutral(In, R);
  EXPECT_EQ(R.Typenames, 2u);
  EXPECT_EQ(R.TypenamesLeft, 0u);
  EXPECT_NE(R.Text.find("recast<typename decltype(c)::source_type>(a);"),
            std::string::npos) << R.Text;
  EXPECT_NE(R.Text.find("recast<typename decltype(c)::result_type>(b);"),
            std::string::npos) << R.Text;
  // The same lines with nothing after them: both are left, neither is
  // half-done.
  std::string Alone = In.substr(0, In.find("\n\n") + 1);
  Recovery L = recoverSource(Alone, {}, {S, D});
  EXPECT_EQ(L.Text, Alone);
  EXPECT_EQ(L.Typenames, 0u);
  EXPECT_EQ(L.TypenamesLeft, 2u);
}

} // namespace
