//===- ThreadInvarianceTest.cpp - the model: values fixed for a thread -----===//
#include "CudaSnippet.h"
#include "model/ThreadInvariance.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include <gtest/gtest.h>

using namespace clang;
using namespace proxyfence;

namespace {

/// Whether each `if` condition of kernel `k` (in source order) is
/// thread-invariant.
std::vector<bool> ifConditions(const std::string &Code) {
  test::Snippet S = test::parseFunction(Code);
  if (!S.Fn)
    return {};
  ThreadInvariance In(S.AST->getASTContext(), S.Fn);
  struct Ifs : RecursiveASTVisitor<Ifs> {
    std::vector<const Expr *> Conds;
    bool VisitIfStmt(IfStmt *I) {
      Conds.push_back(I->getCond());
      return true;
    }
  } V;
  V.TraverseStmt(const_cast<Stmt *>(S.Fn->getBody()));
  std::vector<bool> Out;
  for (const Expr *C : V.Conds)
    Out.push_back(In.invariant(C));
  return Out;
}

TEST(ThreadInvariance, ThreadIndicesAndWhatIsBuiltOnThem) {
  EXPECT_EQ(ifConditions(R"(
    __device__ int group() { return __shfl_sync(0xffffffff, threadIdx.x / 128, 0); }
    enum Role { Producer, Consumer };
    __global__ void k(int tiles) {
      const int warp = threadIdx.x / 32;
      auto role = Role(group());
      int lane = threadIdx.x % 32;
      for (int t = 0; t < tiles; ++t) {
        if (warp == 0 && lane == 0) {}
        if (role == Producer) {}
        if (blockIdx.x + tiles > 3) {}
      }
    })"),
            (std::vector<bool>{true, true, true}));
}

TEST(ThreadInvariance, ElectedThreadThroughIdentityAsm) {
  EXPECT_EQ(ifConditions(R"(
    __device__ unsigned elect_one() {
      unsigned pred = 0;
      asm volatile("{\n.reg .pred P;\nelect.sync _|P, %1;\n@P mov.s32 %0, 1;\n}"
                   : "+r"(pred) : "r"(0xffffffffu));
      return pred;
    }
    __device__ unsigned loaded(const unsigned *p) {
      unsigned v;
      asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "l"(p));
      return v;
    }
    __global__ void k(const unsigned *flags) {
      for (;;) {
        if (elect_one()) {}
        if (loaded(flags)) {}
      }
    })"),
            (std::vector<bool>{true, false}));
}

TEST(ThreadInvariance, ValuesTheLoopChanges) {
  EXPECT_EQ(ifConditions(R"(
    __shared__ int next_tile;
    __device__ void bump(int &x) { ++x; }
    __global__ void k(int tiles, const int *work) {
      int stage = threadIdx.x / 128;
      int phase = threadIdx.x / 128;
      const int &flag = next_tile;
      for (int t = 0; t < tiles; ++t) {
        if (t % 2 == 0) {}
        if (next_tile < 0) {}
        if (stage == 0) {}
        if (phase == 0) {}
        if (work[threadIdx.x] > 0) {}
        if (flag > 0) {}
        stage ^= 1;
        bump(phase);
      }
    })"),
            (std::vector<bool>{false, false, false, false, false, false}));
}

/// Which of \p Names function `k` may write, in that order.
std::vector<bool> writtenIn(const std::string &Code,
                            std::vector<std::string> Names) {
  test::Snippet S = test::parseFunction(Code);
  if (!S.Fn)
    return {};
  ThreadInvariance In(S.AST->getASTContext(), S.Fn);
  std::vector<bool> Out;
  for (const std::string &N : Names)
    for (const ParmVarDecl *P : S.Fn->parameters())
      if (P->getName() == N)
        Out.push_back(In.written(P));
  return Out;
}

TEST(ThreadInvariance, WhatAPatternsCallsMayWrite) {
  // `stride * i` on dependent types names no callee, with an operator
  // template in scope; it computes a value. A const object is never written
  // through its name, whatever the call takes it as. A shift on a dependent
  // type may be a stream's `>>`, which takes both sides by reference.
  EXPECT_EQ(writtenIn(R"(
    template <typename T> struct Vec { T x; };
    template <typename T> __device__ Vec<T> operator*(Vec<T> v, T k);
    template <typename T> __device__ void update(T &);
    template <typename T>
    __device__ T k(T stride, int i, int const &rank, int slot, int count,
                   int streamed) {
      update(rank);
      update(slot);
      count += 1;
      stride >> streamed; // `in >> x` may read into x
      return stride * i + stride * rank;
    })",
                      {"stride", "i", "rank", "slot", "count", "streamed"}),
            (std::vector<bool>{true, false, false, true, true, true}));
}

} // namespace
