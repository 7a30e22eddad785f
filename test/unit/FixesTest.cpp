//===- FixesTest.cpp - the fix layer: where a fence goes, how it is spelled -===//
#include "CudaSnippet.h"
#include "analysis/ProxyDataflow.h"
#include "fix/Fixes.h"
#include "proxyfence/Rules.h"
#include "clang/AST/ASTContext.h"
#include <gtest/gtest.h>

using namespace clang;
using namespace proxyfence;
using proxyfence::test::function;

namespace {

const char *Prelude = proxyfence::test::TmaStoreHelper;
// Lines of the snippets below count from the line after the prelude's end.
const unsigned PreludeLines = 6;

struct Planned {
  std::unique_ptr<ASTUnit> AST;
  std::unique_ptr<Analyzer> A;
  std::unique_ptr<FixPlanner> Planner;
  std::vector<PlannedFix> Fixes;
  /// The snippet's line of a source location (1: its first line).
  unsigned line(SourceLocation L) const {
    return AST->getSourceManager().getExpansionLineNumber(L) - PreludeLines;
  }
};

Planned plan(const std::string &Kernel, FenceStyle Style = FenceStyle::Auto) {
  Planned R;
  test::Snippet S = test::parseFunction(std::string(Prelude) + Kernel);
  R.AST = std::move(S.AST);
  if (!S.Fn)
    return R;
  ASTContext &Ctx = R.AST->getASTContext();
  R.A = std::make_unique<Analyzer>(Ctx, proxyRules());
  R.A->analyze(S.Fn);
  R.Planner = std::make_unique<FixPlanner>(Ctx, Style,
                                           [](SourceLocation) { return true; });
  R.Fixes = R.Planner->plan(R.A->findings());
  return R;
}

const char *Asm = R"(asm volatile("fence.proxy.async.shared::cta;" ::: "memory");)";

TEST(Fixes, WritersFenceGoesBeforeTheBarrier) {
  Planned R = plan(test::WriteBarrierStore);
  ASSERT_EQ(R.Fixes.size(), 1u);
  const PlannedFix &F = R.Fixes[0];
  ASSERT_TRUE(F.Ok) << F.Reason;
  EXPECT_EQ(F.FenceText, Asm);
  EXPECT_TRUE(F.Includes.empty());
  ASSERT_NE(F.Before, nullptr);
  EXPECT_EQ(R.line(F.Before->getBeginLoc()), 5u); // __syncthreads()
  EXPECT_EQ(R.line(F.At), 5u);
  EXPECT_FALSE(F.Hoisted);
  EXPECT_FALSE(F.NeedsBraces);

  // One replacement in input.cu, inserting the fence on its own line.
  std::map<std::string, tooling::Replacements> Edits;
  R.Planner->addReplacements(R.Fixes, Edits);
  ASSERT_EQ(Edits.size(), 1u);
  const tooling::Replacements &Reps = Edits.begin()->second;
  ASSERT_EQ(Reps.size(), 1u);
  EXPECT_EQ(Reps.begin()->getLength(), 0u);
  EXPECT_NE(Reps.begin()->getReplacementText().find(Asm), llvm::StringRef::npos);
}

TEST(Fixes, AFenceBeforeALoopWithNoWriteInsideIsHoisted) {
  Planned R = plan(R"(
__global__ void k(float *out, int reps) {
  __shared__ float tile[256];
  tile[threadIdx.x] = 1.0f;
  for (int r = 0; r < reps; ++r) {
    __syncthreads();
    if (threadIdx.x == 0) tma_store(out + r, tile, 1024);
  }
})");
  ASSERT_EQ(R.Fixes.size(), 1u);
  ASSERT_TRUE(R.Fixes[0].Ok) << R.Fixes[0].Reason;
  EXPECT_TRUE(R.Fixes[0].Hoisted);
  EXPECT_EQ(R.line(R.Fixes[0].At), 5u); // before the for
}

TEST(Fixes, AFencePointInsideAMacroExpansionIsNoFix) {
  Planned R = plan(R"(
#define EPILOGUE(tile, out)                                                    \
  do {                                                                         \
    tile[threadIdx.x] = 1.0f;                                                  \
    __syncthreads();                                                           \
    if (threadIdx.x == 0) tma_store(out, tile, 1024);                          \
  } while (0)
__global__ void k(float *out) {
  __shared__ float tile[256];
  EPILOGUE(tile, out);
})");
  ASSERT_EQ(R.Fixes.size(), 1u);
  EXPECT_FALSE(R.Fixes[0].Ok);
  EXPECT_EQ(R.Fixes[0].Reason, "the fence point is inside a macro expansion");
  std::map<std::string, tooling::Replacements> Edits;
  R.Planner->addReplacements(R.Fixes, Edits);
  EXPECT_TRUE(Edits.empty() || Edits.begin()->second.empty());
}

TEST(Fixes, AStatementAfterALoneBodyGetsBraces) {
  Planned R = plan(R"(
__global__ void k(float *out) {
  __shared__ float tile[256];
  if (threadIdx.x < 128)
    tile[threadIdx.x] = 1.0f;
})");
  ASSERT_TRUE(R.AST);
  const FunctionDecl *K = function(R.AST->getASTContext(), "k");
  const auto *Body = cast<CompoundStmt>(K->getBody());
  const auto *If = cast<IfStmt>(Body->body_back());
  PlannedFix F = R.Planner->planAfter(StmtRef{If->getThen(), K},
                                      {FixKind::CtaBarrier});
  ASSERT_TRUE(F.Ok) << F.Reason;
  EXPECT_TRUE(F.NeedsBraces);
  EXPECT_EQ(F.After, If->getThen());
  EXPECT_EQ(F.FenceText, "__syncthreads();");
}

TEST(Fixes, EachStyleSpellsTheFencesItsOwnWay) {
  Planned R = plan("__global__ void k() {}");
  ASSERT_TRUE(R.Planner);
  FixPlanner &P = *R.Planner;
  EXPECT_EQ(P.fenceText(FenceStyle::Ptx), Asm);
  EXPECT_EQ(P.fenceText(FenceStyle::CudaPtx),
            "cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);");
  EXPECT_EQ(P.fenceText(FenceStyle::Ptx, FixKind::InitFence),
            R"(asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");)");
  EXPECT_NE(P.fenceText(FenceStyle::Cutlass).find("cutlass"), std::string::npos);
  EXPECT_EQ(parseFenceStyle("cuda-ptx"), FenceStyle::CudaPtx);
  EXPECT_EQ(parseFenceStyle("no-such-style"), std::nullopt);
}

} // namespace
