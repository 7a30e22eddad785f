//===- MbarrierInitTest.cpp - mbarrier-init: publication verdicts, fixes ---===//
#include "CudaSnippet.h"
#include "analysis/InitPublication.h"
#include "analysis/ProxyDataflow.h"
#include "fix/Fixes.h"
#include "proxyfence/Rules.h"
#include "rules/MbarrierInit.h"
#include "clang/AST/ASTContext.h"
#include <gtest/gtest.h>

using namespace clang;
using namespace proxyfence;

namespace {

const char *MbarrierPrelude = R"(
__device__ inline unsigned smem(const void *p) {
  return (unsigned)__cvta_generic_to_shared(p);
}
__device__ inline void init(unsigned long long *b) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem(b)));
}
__device__ inline void init_fence() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
__device__ inline void arrive_relaxed() {
  asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
}
__device__ inline void wait() {
  asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
}
__device__ inline void remote_arrive(unsigned long long *b) {
  asm volatile("{\n.reg .b32 r;\nmapa.shared::cluster.u32 r, %0, 1;\n"
               "mbarrier.arrive.shared::cluster.b64 _, [r];\n}" :: "r"(smem(b)));
}
__device__ inline void local_arrive(unsigned long long *b) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(smem(b)));
}
__device__ inline void tma_load(void *dst, const void *src, unsigned long long *b) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], 1024, [%2];"
               :: "r"(smem(dst)), "l"(src), "r"(smem(b)) : "memory");
}
)";

/// Kernel `k` of \p Body after the prelude, analysed for init publication.
struct Analysed {
  std::unique_ptr<ASTUnit> AST;
  std::unique_ptr<Analyzer> A;
  std::unique_ptr<MbarrierAnalyzer> M;
  const FunctionDecl *K = nullptr;
  std::vector<InitFinding> Findings;
};

Analysed analyse(const std::string &Body, bool Strict = false) {
  Analysed R;
  test::Snippet S = test::parseFunction(std::string(MbarrierPrelude) + Body);
  R.AST = std::move(S.AST);
  R.K = S.Fn;
  if (!R.K)
    return R;
  ASTContext &Ctx = R.AST->getASTContext();
  R.A = std::make_unique<Analyzer>(Ctx, proxyRules());
  R.M = std::make_unique<MbarrierAnalyzer>(Ctx, R.A->events(), Strict);
  R.M->analyze(R.K);
  R.Findings = R.M->findings();
  return R;
}

std::vector<InitFinding> initFindings(const std::string &Body) {
  return analyse(Body).Findings;
}

TEST(MbarrierInit, OrderOfFenceAndRelaxedArriveThroughWrappers) {
  // Each step is a separate callee: the summaries carry the init's state.
  EXPECT_TRUE(initFindings(R"(
__global__ void k() {
  __shared__ unsigned long long bar;
  if (threadIdx.x == 0) { init(&bar); init_fence(); }
  arrive_relaxed();
  wait();
  remote_arrive(&bar);
})").empty());
  // Fenced after the relaxed arrive: that arrive published nothing.
  std::vector<InitFinding> Late = initFindings(R"(
__global__ void k() {
  __shared__ unsigned long long bar;
  if (threadIdx.x == 0) init(&bar);
  arrive_relaxed();
  if (threadIdx.x == 0) init_fence();
  wait();
  remote_arrive(&bar);
})");
  ASSERT_EQ(Late.size(), 1u);
  EXPECT_EQ(Late[0].Kind, InitHazard::Cluster);
  EXPECT_TRUE(Late[0].Relaxed);
  EXPECT_EQ(Late[0].Init.Mbarrier.describe(), "'bar'");
  EXPECT_EQ(Late[0].Init.Via->getName(), "init");
}

TEST(MbarrierInit, TheInitialisingThreadNeedsNoBarrier) {
  // Same guard written twice: the same thread, which sees its own init.
  EXPECT_TRUE(initFindings(R"(
__global__ void k() {
  __shared__ unsigned long long bar;
  if (threadIdx.x == 0) init(&bar);
  if (threadIdx.x == 0) local_arrive(&bar);
})").empty());
  std::vector<InitFinding> Other = initFindings(R"(
__global__ void k() {
  __shared__ unsigned long long bar;
  if (threadIdx.x == 0) init(&bar);
  if (threadIdx.x == 32) local_arrive(&bar);
})");
  ASSERT_EQ(Other.size(), 1u);
  EXPECT_EQ(Other[0].Kind, InitHazard::Cta);
  ASSERT_EQ(Other[0].Uses.size(), 1u);
  // A barrier of another object does not matter; one after the init does.
  EXPECT_TRUE(initFindings(R"(
__global__ void k() {
  __shared__ unsigned long long bar, other;
  if (threadIdx.x == 0) init(&bar);
  local_arrive(&other);
  __syncthreads();
  local_arrive(&bar);
})").empty());
}

/// Fenced, but only a CTA barrier follows: another CTA's use is too early.
const char *OnlyACtaBarrier = R"(
__global__ void k() {
  __shared__ unsigned long long bar;
  if (threadIdx.x == 0) { init(&bar); init_fence(); }
  __syncthreads();
  remote_arrive(&bar);
})";

TEST(MbarrierInit, ACtaBarrierPublishesNothingToAnotherCta) {
  Analysed R = analyse(OnlyACtaBarrier);
  ASSERT_EQ(R.Findings.size(), 1u);
  const InitFinding &F = R.Findings[0];
  EXPECT_EQ(F.Kind, InitHazard::Cluster);
  EXPECT_TRUE(F.Fenced);
  EXPECT_FALSE(F.ClusterSynced);
  EXPECT_FALSE(F.Relaxed);
  EXPECT_FALSE(R.M->hasClusterBarrier(R.K));
  std::string Message = initFindingMessage(F);
  EXPECT_NE(Message.find("'bar'"), std::string::npos) << Message;
  EXPECT_NE(Message.find("no cluster barrier after the init fence"),
            std::string::npos)
      << Message;
}

TEST(MbarrierInit, TheFixIsAClusterBarrierAfterTheInitBlock) {
  Analysed R = analyse(OnlyACtaBarrier);
  ASSERT_EQ(R.Findings.size(), 1u);
  FixPlanner Planner(R.AST->getASTContext(), FenceStyle::Auto,
                     [](SourceLocation) { return true; });
  std::vector<InitFix> Fixes = planInitFixes(Planner, *R.M, R.Findings);
  ASSERT_EQ(Fixes.size(), 1u);
  ASSERT_TRUE(Fixes[0].Ok) << Fixes[0].Reason;
  // The fence is already there: only the cluster barrier is added, once.
  ASSERT_EQ(Fixes[0].Edits.size(), 1u);
  const PlannedFix &E = Fixes[0].Edits[0];
  EXPECT_EQ(E.FenceText,
            "asm volatile(\"barrier.cluster.arrive.relaxed.aligned;\" ::: "
            "\"memory\");\nasm volatile(\"barrier.cluster.wait.aligned;\" ::: "
            "\"memory\");");
  const auto *Body = cast<CompoundStmt>(R.K->getBody());
  EXPECT_EQ(E.After, *std::next(Body->body_begin(), 1)); // the init's if
}

TEST(MbarrierInit, StrictModeWantsAProxyFenceBeforeAnAsyncUse) {
  const char *Kernel = R"(
__global__ void k(const float *in) {
  __shared__ float tile[256];
  __shared__ unsigned long long bar;
  if (threadIdx.x == 0) init(&bar);
  __syncthreads();
  if (threadIdx.x == 0) tma_load(tile, in, &bar);
})";
  EXPECT_TRUE(analyse(Kernel).Findings.empty());
  std::vector<InitFinding> Strict = analyse(Kernel, /*Strict=*/true).Findings;
  ASSERT_EQ(Strict.size(), 1u);
  EXPECT_EQ(Strict[0].Kind, InitHazard::ProxyFence);
}

} // namespace
