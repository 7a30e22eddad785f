//===- AnalysisTest.cpp - memory model, dataflow and compile commands ------===//
#include "CudaSnippet.h"
#include "analysis/ProxyDataflow.h"
#include "frontend/CompileArgs.h"
#include "proxyfence/Rules.h"
#include "clang/AST/ASTContext.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Tooling/Tooling.h"
#include <gtest/gtest.h>
#include <set>

using namespace clang;
using namespace proxyfence;
using proxyfence::test::function;
using proxyfence::test::parseCuda;

namespace {

const std::string Prelude = std::string(proxyfence::test::TmaStoreHelper) +
                            R"(__device__ inline void fence() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}
)";

struct Analysed {
  std::unique_ptr<ASTUnit> AST;
  std::unique_ptr<Analyzer> A;
  const ProxySummary *S = nullptr;
};

Analysed analyse(const std::string &Body, llvm::StringRef Fn = "k") {
  Analysed R;
  test::Snippet S = test::parseFunction(std::string(Prelude) + Body, Fn);
  R.AST = std::move(S.AST);
  if (!S.Fn)
    return R;
  R.A = std::make_unique<Analyzer>(R.AST->getASTContext(), proxyRules());
  R.S = &R.A->analyze(S.Fn);
  return R;
}

TEST(Dataflow, WriteBarrierStoreIsAFindingWithItsHandoff) {
  Analysed R = analyse(test::WriteBarrierStore);
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

TEST(ProxySummary, HelperThatFencesKillsIncomingAndWriterExposesItsWrite) {
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

TEST(ProxySummary, ParametersAreSubstitutedAtTheCall) {
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
  auto AST = parseCuda(R"(
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

// Descriptor objects: a union whose bitfields are written and whose 64-bit
// word a conversion operator returns (CuTe's GmmaDescriptor), an object
// whose constructor stores the address (ThunderKittens), const& parameters
// bound to temporaries. None of the temporaries is shared memory itself.
TEST(Memory, FollowsDescriptorObjectsAndConstRefs) {
  Analysed R = analyse(R"(
union Desc {
  __device__ Desc() : word(0) {}
  unsigned long long word;
  struct { unsigned short start : 14, : 2; } bits;
  __device__ operator unsigned long long() const { return word; }
};
__device__ Desc make(const void *p) {
  Desc d;
  d.bits.start = (unsigned short)((unsigned)__cvta_generic_to_shared(p) >> 4);
  return d;
}
struct Tk {
  unsigned long long base;
  __device__ Tk(const float &first) {
    base = ((unsigned long long)&first & 0x3FFFF) >> 4;
  }
  __device__ unsigned long long chunk(int k) const { return base + k; }
};
__device__ void mma(const unsigned long long &da, const unsigned long long &db) {
  asm volatile("wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 "
               "{%0, %1, %2, %3}, %4, %5, 1, 1, 1, 0, 0;"
               : "+f"(*(float *)0), "+f"(*(float *)0), "+f"(*(float *)0),
                 "+f"(*(float *)0)
               : "l"(da), "l"(db));
}
__device__ void ldsm(const unsigned &addr) {
  unsigned r;
  asm volatile("ldmatrix.sync.aligned.x1.m8n8.shared.b16 {%0}, [%1];"
               : "=r"(r) : "r"(addr));
}
__global__ void k() {
  __shared__ float a[256];
  __shared__ float b[256];
  __shared__ float c[256];
  a[threadIdx.x] = 1.0f;
  b[threadIdx.x] = 1.0f;
  c[threadIdx.x] = 1.0f;
  __syncthreads();
  ldsm((unsigned)__cvta_generic_to_shared(c));
  Desc da = make(a);
  Tk tb(b[0]);
  mma(da, tb.chunk(2));
})");
  std::set<std::string> Written;
  for (const Finding &F : R.A->findings()) {
    EXPECT_STREQ(F.R->Name, "proxyfence-mma-operand");
    EXPECT_EQ(F.Access.Kind, EffectKind::GenericWrite);
    Written.insert(F.Access.Mem.describe());
  }
  // Both operands are found (the two descriptors of one asm statement), and
  // c, read by ldmatrix through a const& temporary, is not an operand.
  EXPECT_EQ(Written, (std::set<std::string>{"'a'", "'b'"}));
}

// Reading a const& parameter bound to a temporary reads the temporary, not
// the shared memory whose address the temporary holds: no generic read of
// the tile for a refill to overwrite.
TEST(Memory, ConstRefTemporaryIsNotSharedMemory) {
  Analysed R = analyse(R"(
__device__ void use_desc(const unsigned long long &desc) {
  asm volatile("wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 "
               "{%0, %1, %2, %3}, %4, %4, 1, 1, 1, 0, 0;"
               : "+f"(*(float *)0), "+f"(*(float *)0), "+f"(*(float *)0),
                 "+f"(*(float *)0)
               : "l"(desc));
}
__device__ unsigned long long make_desc(const void *p) {
  return ((unsigned)__cvta_generic_to_shared(p) & 0x3FFFF) >> 4;
}
__global__ void k(const float *in) {
  __shared__ float a[256];
  __shared__ unsigned long long bar;
  use_desc(make_desc(a));
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], 1024, [%2];"
               :: "r"((unsigned)__cvta_generic_to_shared(a)), "l"(in),
                  "r"((unsigned)__cvta_generic_to_shared(&bar)) : "memory");
})");
  EXPECT_TRUE(R.A->findings().empty());
}

TEST(CompileArgs, SeveralTargetsAreReadFromTheFirstWithTheAsyncProxy) {
  // CMake's CUDA_ARCHITECTURES "80;90;90a;100a": sm_80 has no async proxy,
  // sm_90a is sm_90 with its arch-specific features, sm_100a comes after.
  std::vector<std::string> Cmd = {
      "nvcc", "--generate-code=arch=compute_80,code=[compute_80,sm_80]",
      "-gencode", "arch=compute_90,code=sm_90", "-gencode=arch=compute_90a,code=sm_90a",
      "-gencode", "arch=compute_100a,code=sm_100a", "-c", "k.cu"};
  EXPECT_EQ(archsOfCommand(Cmd),
            (std::vector<std::string>{"sm_80", "sm_90", "sm_90a", "sm_100a"}));
  EXPECT_EQ(archOfCommand(Cmd), "sm_90a");
  EXPECT_EQ(otherAsyncProxyArchs(Cmd, "sm_90a"),
            (std::vector<std::string>{"sm_100a"}));
  // One target: nothing else to analyse; none with the async proxy: the first.
  std::vector<std::string> Ampere = {"nvcc", "-arch=sm_86", "-c", "k.cu"};
  EXPECT_EQ(archOfCommand(Ampere), "sm_86");
  EXPECT_TRUE(otherAsyncProxyArchs(Ampere, "sm_86").empty());
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
