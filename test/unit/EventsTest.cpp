//===- EventsTest.cpp - the model: statements of device code as events -----===//
#include "CudaSnippet.h"
#include "model/Events.h"
#include "clang/Analysis/CFG.h"
#include <gtest/gtest.h>

using namespace clang;
using namespace proxyfence;

namespace {

/// Every event and call site of kernel `k`'s CFG statements, in CFG order.
struct Extracted {
  std::unique_ptr<ASTUnit> AST;
  std::vector<Event> Events;
  std::vector<CallSite> Calls;
  std::vector<Event> Lifted; // the callees' own events, lifted to the call
};

/// The events of \p Fn's CFG statements, and its call sites.
void extractAll(ASTContext &Ctx, EventExtractor &X, const FunctionDecl *Fn,
                std::vector<Event> &Events, std::vector<CallSite> &Calls) {
  std::unique_ptr<CFG> G = CFG::buildCFG(Fn, Fn->getBody(), &Ctx,
                                         CFG::BuildOptions());
  ASSERT_TRUE(G);
  for (const CFGBlock *B : *G)
    for (const CFGElement &El : *B)
      if (auto CS = El.getAs<CFGStmt>())
        if (auto C = X.extract(CS->getStmt(), Fn,
                               [&](const Event &E, unsigned) {
                                 Events.push_back(E);
                               }))
          Calls.push_back(*C);
}

Extracted extract(const std::string &Code) {
  Extracted R;
  test::Snippet S = test::parseFunction(Code);
  R.AST = std::move(S.AST);
  const FunctionDecl *K = S.Fn;
  if (!K)
    return R;
  ASTContext &Ctx = R.AST->getASTContext();
  MemoryModel Memory(Ctx);
  unsigned Stmts = 0, Instrs = 0;
  EventExtractor X(Memory, Stmts, Instrs);
  extractAll(Ctx, X, K, R.Events, R.Calls);
  for (const CallSite &C : R.Calls) {
    std::vector<Event> Inner;
    std::vector<CallSite> Nested;
    extractAll(Ctx, X, C.Def, Inner, Nested);
    for (const Event &E : Inner)
      R.Lifted.push_back(X.lift(E, C, K));
  }
  return R;
}

const Event *find(const std::vector<Event> &Events, EffectKind K) {
  for (const Event &E : Events)
    if (E.Kind == K)
      return &E;
  return nullptr;
}

TEST(Events, CxxStoreToSharedIsAGenericWriteOfThatBuffer) {
  Extracted R = extract(R"(
__global__ void k(float *out) {
  __shared__ float tile[256];
  float local[4];
  local[threadIdx.x % 4] = 2.0f;
  tile[threadIdx.x] = local[0];
  out[threadIdx.x] = 1.0f;
})");
  // Only the shared buffer counts: locals and global memory are no events.
  ASSERT_EQ(R.Events.size(), 1u);
  EXPECT_EQ(R.Events[0].Kind, EffectKind::GenericWrite);
  EXPECT_EQ(R.Events[0].Mem.describe(), "'tile'");
  EXPECT_EQ(R.Events[0].What, "store");
  EXPECT_EQ(R.Events[0].Via, nullptr);
}

TEST(Events, InlineAsmIsClassifiedFromItsPtx) {
  Extracted R = extract(R"(
__global__ void k(float *out) {
  __shared__ float tile[256];
  __shared__ unsigned long long bar;
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;"
               :: "r"((unsigned)__cvta_generic_to_shared(&bar)));
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], 1024;"
               :: "l"(out), "r"((unsigned)__cvta_generic_to_shared(tile))
               : "memory");
})");
  const Event *Init = find(R.Events, EffectKind::MbarrierInit);
  ASSERT_NE(Init, nullptr);
  EXPECT_EQ(Init->Mbarrier.describe(), "'bar'");
  const Event *Fence = find(R.Events, EffectKind::ProxyFence);
  ASSERT_NE(Fence, nullptr);
  EXPECT_TRUE(fenceCoversShared(Fence->Space));
  const Event *Store = find(R.Events, EffectKind::AsyncRead);
  ASSERT_NE(Store, nullptr);
  EXPECT_EQ(Store->Op, AsyncOp::BulkStore);
  EXPECT_EQ(Store->Mem.describe(), "'tile'");
  EXPECT_EQ(find(R.Events, EffectKind::GenericWrite), nullptr);
}

TEST(Events, BarriersCarryTheirScopeAndId) {
  Extracted R = extract(R"(
__global__ void k() {
  __syncthreads();
  __nvvm_barrier_sync_cnt(3, 64);
  __nvvm_barrier_sync(5);
})");
  ASSERT_EQ(R.Events.size(), 3u);
  const Event *Cta = nullptr, *Named = nullptr, *AllById = nullptr;
  for (const Event &E : R.Events) { // CFG order is not source order
    ASSERT_EQ(E.Kind, EffectKind::Barrier);
    if (E.Scope == BarrierScope::Named)
      Named = &E;
    else
      (E.Id.Offset == 0 ? Cta : AllById) = &E;
  }
  ASSERT_NE(Cta, nullptr);
  ASSERT_NE(Named, nullptr);
  // With no thread count, `barrier.sync 5` makes every thread of the CTA
  // meet, as __syncthreads does, on barrier 5.
  ASSERT_NE(AllById, nullptr);
  EXPECT_EQ(AllById->Scope, BarrierScope::Cta);
  EXPECT_EQ(AllById->Id.Kind, BarrierId::Const);
  EXPECT_EQ(AllById->Id.Offset, 5);
  // __syncthreads is barrier 0; the named one's id is its argument.
  EXPECT_EQ(Cta->Id.Kind, BarrierId::Const);
  EXPECT_EQ(Cta->Id.Offset, 0);
  EXPECT_EQ(Named->Id.Kind, BarrierId::Const);
  EXPECT_EQ(Named->Id.Offset, 3);
  EXPECT_EQ(Cta->Id.compare(Named->Id), BarrierId::Match::Different);
}

TEST(Events, ACalleeWithABodyIsACallSiteAndLiftsWithItsArguments) {
  Extracted R = extract(R"(
__device__ void fill(float *p) { p[threadIdx.x] = 0.0f; }
__global__ void k() {
  __shared__ float a[64], b[64];
  fill(b);
})");
  // The call itself performs nothing: its callee's summary is the analyses'.
  EXPECT_TRUE(R.Events.empty());
  ASSERT_EQ(R.Calls.size(), 1u);
  EXPECT_EQ(R.Calls[0].Def->getName(), "fill");
  // Inside, the write is to the parameter; at the call, to 'b' through fill.
  ASSERT_EQ(R.Lifted.size(), 1u);
  const Event &W = R.Lifted[0];
  EXPECT_EQ(W.Kind, EffectKind::GenericWrite);
  EXPECT_EQ(W.Mem.describe(), "'b'");
  ASSERT_NE(W.Via, nullptr);
  EXPECT_EQ(W.Via->getName(), "fill");
  EXPECT_EQ(W.At.S, R.Calls[0].Site);
}

} // namespace
