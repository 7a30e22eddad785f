//===- VocabularyTest.cpp - the effect grammar of configuration files -----===//
#include "model/Vocabulary.h"

#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

using namespace proxyfence;
using ptx::Effect;

namespace {

auto fields(const Effect &E) {
  return std::make_tuple(E.Kind, E.Op, E.MemOperand, E.Scope, E.ArriveOnly,
                         E.Relaxed, E.GenericAddress, E.CrossCta,
                         E.MbarrierOperand, E.Space);
}

std::vector<Effect> parse(const std::string &Text) {
  std::string Why;
  auto E = parseEffects(Text, Why);
  EXPECT_TRUE(E.has_value()) << Text << ": " << Why;
  return E ? *E : std::vector<Effect>{};
}

std::string error(const std::string &Text) {
  std::string Why;
  EXPECT_FALSE(parseEffects(Text, Why).has_value()) << Text;
  return Why;
}

void expectSame(llvm::ArrayRef<Effect> A, llvm::ArrayRef<Effect> B,
                const std::string &What) {
  ASSERT_EQ(A.size(), B.size()) << What;
  for (size_t I = 0; I < A.size(); ++I)
    EXPECT_EQ(fields(A[I]), fields(B[I])) << What << " effect " << I;
}

// Every built-in entry can be written in the grammar: formatting it and
// parsing the text gives the same effects, so a configuration can say
// anything the built-in table says.
TEST(Vocabulary, BuiltInEntriesRoundTrip) {
  for (const char *Name :
       {"__syncthreads", "__syncwarp", "__nvvm_barrier_sync",
        "__nvvm_barrier_cluster_arrive", "__nvvm_barrier_cluster_arrive_relaxed",
        "__nvvm_barrier_cluster_wait", "__nvvm_mbarrier_init", "memcpy",
        "memset", "cute::tma_store_fence", "cutlass::arch::fence_barrier_init",
        "cute::cluster_sync"}) {
    llvm::ArrayRef<Effect> BuiltIn = bodilessEffects(Name);
    ASSERT_FALSE(BuiltIn.empty()) << Name;
    std::string Text = formatEffects(BuiltIn);
    expectSame(parse(Text), BuiltIn, std::string(Name) + ": " + Text);
  }
}

TEST(Vocabulary, FormatIsCanonical) {
  for (const char *Text :
       {"generic-write(arg0)", "generic-read(arg3)", "async-read(arg1)",
        "async-read(arg2, op=wgmma)", "async-read(arg0, op=bulk-store)",
        "async-write(arg0)", "async-write(arg0, mbarrier=arg2)",
        "async-write(arg1, mbarrier=arg0, op=bulk-load)", "proxy-fence",
        "init-fence", "barrier", "named-barrier", "warp-barrier",
        "cluster-arrive", "cluster-arrive-relaxed", "cluster-wait",
        "mbarrier-init(arg0)", "mbarrier-arrive(arg1)", "mbarrier-wait(arg2)",
        "generic-read(arg1), generic-write(arg0)"})
    EXPECT_EQ(formatEffects(parse(Text)), Text);
  // Spacing and argument order are free; the output is not.
  EXPECT_EQ(formatEffects(parse(" async-write( op=bulk-load ,arg1,mbarrier=arg0 ) ,barrier")),
            "async-write(arg1, mbarrier=arg0, op=bulk-load), barrier");
  EXPECT_TRUE(parse("").empty());
}

TEST(Vocabulary, Meaning) {
  std::vector<Effect> E = parse("async-read(arg1)");
  ASSERT_EQ(E.size(), 1u);
  EXPECT_EQ(E[0].Kind, ptx::EffectKind::AsyncRead);
  EXPECT_EQ(E[0].Op, ptx::AsyncOp::TensorStore);
  EXPECT_EQ(E[0].MemOperand, 1);
  E = parse("async-write(arg0, mbarrier=arg2)");
  EXPECT_EQ(E[0].Op, ptx::AsyncOp::TensorLoad);
  EXPECT_EQ(E[0].MbarrierOperand, 2);
  E = parse("mbarrier-wait(arg1)");
  EXPECT_EQ(E[0].MemOperand, 1);
  EXPECT_EQ(E[0].MbarrierOperand, 1);
}

TEST(Vocabulary, Errors) {
  EXPECT_EQ(error("tma-store(arg1)").substr(0, 30),
            "unknown effect 'tma-store' (ex");
  EXPECT_EQ(error("barrier(arg0)"), "effect 'barrier' takes no arguments");
  EXPECT_EQ(error("generic-write"), "effect 'generic-write' needs an argument argN");
  EXPECT_EQ(error("generic-write(x)"),
            "bad argument 'x' in effect 'generic-write(x)' (expected one argN, "
            "then key=value)");
  EXPECT_EQ(error("generic-write(arg0, arg1)"),
            "bad argument 'arg1' in effect 'generic-write(arg0, arg1)' "
            "(expected one argN, then key=value)");
  EXPECT_EQ(error("async-write(arg0, op=wgmma)"),
            "op 'wgmma' does not go with effect 'async-write'");
  EXPECT_EQ(error("generic-read(arg0, op=wgmma)"),
            "op 'wgmma' does not go with effect 'generic-read'");
  EXPECT_EQ(error("async-read(arg0, mbarrier=arg1)"),
            "only async-write takes mbarrier= (in 'async-read(arg0, mbarrier=arg1)')");
  EXPECT_EQ(error("async-read(arg0, op=tma)").substr(0, 25),
            "unknown op 'tma' in effec");
  EXPECT_EQ(error("barrier,,proxy-fence"),
            "empty effect in 'barrier,,proxy-fence'");
  EXPECT_EQ(error("generic-read(arg1"),
            "unbalanced parentheses in 'generic-read(arg1'");
  EXPECT_EQ(error("generic-read(arg1) x"),
            "missing ')' in effect 'generic-read(arg1) x'");
}

// A user entry replaces the built-in one of the same name; the qualified
// name is looked up before the plain one.
TEST(Vocabulary, UserTableFirst) {
  VocabularyTable User;
  User["__syncthreads"] = parse("proxy-fence, barrier");
  User["ns::f"] = parse("barrier");
  User["f"] = parse("proxy-fence");
  User["__syncwarp"] = {};
  expectSame(bodilessEffects("__syncthreads", "__syncthreads", &User),
             User["__syncthreads"], "__syncthreads");
  expectSame(bodilessEffects("ns::f", "f", &User), User["ns::f"], "ns::f");
  expectSame(bodilessEffects("other::f", "f", &User), User["f"], "other::f");
  EXPECT_TRUE(bodilessEffects("__syncwarp", "__syncwarp", &User).empty());
  expectSame(bodilessEffects("__syncthreads", "__syncthreads", nullptr),
             parse("barrier"), "built-in");
}

} // namespace
