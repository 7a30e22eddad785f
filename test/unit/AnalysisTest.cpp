//===- AnalysisTest.cpp - memory model, dataflow and compile commands ------===//
#include "proxyfence/Analysis.h"
#include "proxyfence/CompileArgs.h"
#include "proxyfence/Rules.h"
#include "clang/AST/ASTContext.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Tooling/Tooling.h"
#include <gtest/gtest.h>

using namespace clang;
using namespace proxyfence;

namespace {

std::unique_ptr<ASTUnit> parse(llvm::StringRef Code) {
  std::vector<std::string> Cmd =
      deviceCommand({"nvcc", "-arch=sm_90a"}, "input.cu",
                    {"", PF_TEST_CUDA_PATH});
  // buildASTFromCodeWithArgs adds the tool name and the file itself.
  std::vector<std::string> Args(Cmd.begin() + 1, Cmd.end() - 1);
  return tooling::buildASTFromCodeWithArgs(Code, Args, "input.cu");
}

const FunctionDecl *function(ASTContext &Ctx, llvm::StringRef Name) {
  for (const Decl *D : Ctx.getTranslationUnitDecl()->decls())
    if (const auto *FD = dyn_cast<FunctionDecl>(D))
      if (FD->getName() == Name && FD->hasBody())
        return FD;
  return nullptr;
}

const char *Prelude = R"(
__device__ inline void tma_store(void *gmem, const void *smem, unsigned n) {
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;"
               :: "l"(gmem), "r"((unsigned)__cvta_generic_to_shared(smem)), "r"(n)
               : "memory");
}
__device__ inline void fence() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}
)";

struct Analysed {
  std::unique_ptr<ASTUnit> AST;
  std::unique_ptr<Analyzer> A;
  const Summary *S = nullptr;
};

Analysed analyse(const std::string &Body, llvm::StringRef Fn = "k") {
  Analysed R;
  R.AST = parse(std::string(Prelude) + Body);
  EXPECT_TRUE(R.AST);
  ASTContext &Ctx = R.AST->getASTContext();
  EXPECT_FALSE(Ctx.getDiagnostics().hasErrorOccurred());
  R.A = std::make_unique<Analyzer>(Ctx, proxyRules());
  const FunctionDecl *FD = function(Ctx, Fn);
  EXPECT_NE(FD, nullptr);
  if (FD)
    R.S = &R.A->analyze(FD);
  return R;
}

TEST(Dataflow, WriteBarrierStoreIsAFindingWithItsHandoff) {
  Analysed R = analyse(R"(
__global__ void k(float *out) {
  __shared__ float tile[256];
  tile[threadIdx.x] = 1.0f;
  __syncthreads();
  if (threadIdx.x == 0) tma_store(out, tile, 1024);
})");
  ASSERT_EQ(R.A->findings().size(), 1u);
  const Finding &F = R.A->findings()[0];
  EXPECT_STREQ(F.R->Name, "proxyfence-tma-store");
  EXPECT_TRUE(F.Handoff);
  EXPECT_EQ(F.Access.Mem.describe(), "'tile'");
  EXPECT_EQ(F.Async.Via->getName(), "tma_store");
}

TEST(Dataflow, FenceClearsButBarrierDoesNot) {
  Analysed Fenced = analyse(R"(
__global__ void k(float *out) {
  __shared__ float tile[256];
  tile[threadIdx.x] = 1.0f;
  fence();
  __syncthreads();
  if (threadIdx.x == 0) tma_store(out, tile, 1024);
})");
  EXPECT_TRUE(Fenced.A->findings().empty());
  Analysed IssuerFences = analyse(R"(
__global__ void k(float *out) {
  __shared__ float tile[256];
  tile[threadIdx.x] = 1.0f;
  __syncthreads();
  if (threadIdx.x == 0) { fence(); tma_store(out, tile, 1024); }
})");
  EXPECT_TRUE(IssuerFences.A->findings().empty());
}

TEST(Dataflow, OnePathUnfencedIsAFinding) {
  Analysed R = analyse(R"(
__global__ void k(float *out, int c) {
  __shared__ float tile[256];
  tile[threadIdx.x] = 1.0f;
  if (c) fence();
  __syncthreads();
  if (threadIdx.x == 0) tma_store(out, tile, 1024);
})");
  EXPECT_EQ(R.A->findings().size(), 1u);
}

TEST(Dataflow, LoopReachesFixedPoint) {
  // Only the write at the bottom of iteration i, carried round the back
  // edge, reaches the store of iteration i+1 unfenced.
  Analysed Carried = analyse(R"(
__global__ void k(float *out, int n) {
  __shared__ float tile[256];
  tile[threadIdx.x] = 0;
  fence();
  for (int i = 0; i < n; ++i) {
    __syncthreads();
    if (threadIdx.x == 0) tma_store(out + i * 256, tile, 1024);
    tile[threadIdx.x] = i;
  }
})");
  ASSERT_EQ(Carried.A->findings().size(), 1u);
  // A fence before the writes of the same iteration does not order them.
  Analysed FenceFirst = analyse(R"(
__global__ void k(float *out, int n) {
  __shared__ float tile[256];
  for (int i = 0; i < n; ++i) {
    fence();
    tile[threadIdx.x] = i;
    __syncthreads();
    if (threadIdx.x == 0) tma_store(out + i * 256, tile, 1024);
  }
})");
  EXPECT_EQ(FenceFirst.A->findings().size(), 1u);
  // Fenced at the top of the next iteration: ordered on every path.
  Analysed FencedNext = analyse(R"(
__global__ void k(float *out, int n) {
  __shared__ float tile[256];
  for (int i = 0; i < n; ++i) {
    fence();
    __syncthreads();
    if (threadIdx.x == 0) tma_store(out + i * 256, tile, 1024);
    tile[threadIdx.x] = i;
  }
})");
  EXPECT_TRUE(FencedNext.A->findings().empty());
}

TEST(Dataflow, DisjointBuffersDoNotAlias) {
  Analysed R = analyse(R"(
__global__ void k(float *out) {
  __shared__ float a[256];
  __shared__ float b[256];
  a[threadIdx.x] = 1.0f;
  __syncthreads();
  if (threadIdx.x == 0) tma_store(out, b, 1024);
})");
  EXPECT_TRUE(R.A->findings().empty());
}

TEST(Summary, HelperThatFencesKillsIncomingAndWriterExposesItsWrite) {
  Analysed F = analyse("", "fence");
  ASSERT_TRUE(F.S);
  EXPECT_FALSE(F.S->IncomingSurvives);
  Analysed W = analyse(R"(
__device__ void stage(float *smem, float v) { smem[threadIdx.x] = v; })",
                       "stage");
  ASSERT_TRUE(W.S);
  EXPECT_TRUE(W.S->IncomingSurvives);
  ASSERT_EQ(W.S->DownwardAccesses.size(), 1u);
  EXPECT_TRUE(W.S->DownwardAccesses[0].E.Mem.hasParamOrThis());
  Analysed S = analyse("", "tma_store");
  ASSERT_TRUE(S.S);
  ASSERT_EQ(S.S->UpwardAsync.size(), 1u);
  EXPECT_EQ(S.S->UpwardAsync[0].E.Op, AsyncOp::BulkStore);
}

TEST(Summary, ParametersAreSubstitutedAtTheCall) {
  Analysed R = analyse(R"(
__device__ void stage(float *smem, float v) { smem[threadIdx.x] = v; }
__global__ void k(float *out) {
  __shared__ float a[256];
  __shared__ float b[256];
  stage(a, 1.0f);
  __syncthreads();
  if (threadIdx.x == 0) tma_store(out, b, 1024);
  if (threadIdx.x == 0) tma_store(out, a, 1024);
})");
  ASSERT_EQ(R.A->findings().size(), 1u);
  EXPECT_EQ(R.A->findings()[0].Access.Mem.describe(), "'a'");
}

TEST(Memory, FollowsLocalsCastsAndCvta) {
  auto AST = parse(R"(
__global__ void k() {
  extern __shared__ char dyn[];
  __shared__ float tile[64];
  float *p = tile + 4;
  unsigned addr = (unsigned)__cvta_generic_to_shared(p);
  unsigned desc = (addr >> 4) & 0x3fff;
  float4 *q = reinterpret_cast<float4 *>(dyn);
  (void)desc; (void)q;
})");
  ASSERT_TRUE(AST);
  ASTContext &Ctx = AST->getASTContext();
  const FunctionDecl *K = function(Ctx, "k");
  ASSERT_TRUE(K);
  MemoryModel M(Ctx);
  std::map<std::string, std::string> Seen;
  for (const Stmt *S : cast<CompoundStmt>(K->getBody())->body())
    if (const auto *DS = dyn_cast<DeclStmt>(S))
      for (const Decl *D : DS->decls())
        if (const auto *V = dyn_cast<VarDecl>(D))
          if (V->getInit())
            Seen[V->getName().str()] = M.valueOf(V->getInit(), K).describe();
  EXPECT_EQ(Seen["p"], "'tile'");
  EXPECT_EQ(Seen["addr"], "'tile'");
  EXPECT_EQ(Seen["desc"], "'tile'");
  EXPECT_EQ(Seen["q"], "dynamic shared memory");
}

TEST(CompileArgs, NvccFlagsAreTranslatedForTheDeviceSide) {
  std::vector<std::string> Cmd = {
      "/usr/local/cuda/bin/nvcc", "-gencode", "arch=compute_100a,code=sm_100a",
      "--expt-relaxed-constexpr", "-Xcompiler", "-fPIC,-DHOSTDEF=1", "-rdc=true",
      "-Iinclude", "-DTILE=64", "-O3", "-c", "k.cu", "-o", "k.o"};
  EXPECT_EQ(archOfCommand(Cmd), "sm_100a");
  std::vector<std::string> Out = deviceCommand(Cmd, "k.cu", {"", "/usr/local/cuda"});
  auto has = [&](llvm::StringRef A) {
    return std::find(Out.begin(), Out.end(), A) != Out.end();
  };
  EXPECT_TRUE(has("--cuda-gpu-arch=sm_100a"));
  EXPECT_TRUE(has("--cuda-device-only"));
  EXPECT_TRUE(has("-Iinclude"));
  EXPECT_TRUE(has("-DTILE=64"));
  EXPECT_TRUE(has("-DHOSTDEF=1"));
  EXPECT_FALSE(has("-fPIC"));
  EXPECT_FALSE(has("--expt-relaxed-constexpr"));
  EXPECT_FALSE(has("-rdc=true"));
  EXPECT_FALSE(has("-gencode"));
  EXPECT_FALSE(has("k.o"));
  EXPECT_EQ(Out.back(), "k.cu");
  // --arch on the command line wins over the command's own.
  Out = deviceCommand(Cmd, "k.cu", {"sm_90a", "/usr/local/cuda"});
  EXPECT_TRUE(has("--cuda-gpu-arch=sm_90a"));
  EXPECT_TRUE(isKnownArch("sm_90a"));
  EXPECT_FALSE(isKnownArch("sm_1234"));
}

} // namespace
