// pipeline_roles: a warp-specialised epilogue whose roles are member
// functions, handing tiles over through a two-stage mbarrier pipeline. In
// every CTA a producer warp group (4 warps) runs TileEpilogue::produce(): it
// acquires a stage (waits on its "empty" mbarrier), writes an 8 KB tile into
// it with plain C++ stores and commits (arrives on the stage's "full"
// mbarrier). A store warp runs TileEpilogue::store(): it waits on "full",
// its lane 0 stores the stage to global memory with a bulk async copy
// (cp.async.bulk.global.shared::cta), waits until the copy has read it, and
// the warp releases the stage (arrives on "empty") for the producer to refill.
// The pipeline class keeps pointers to the stage barriers and a state object
// holds the stage index and phase, as CUTLASS's pipelines do.
//
// 528 CTAs x 160 threads, 64 tiles per launch. Each producer thread writes 4
// consecutive 16-byte pieces (uint4 C++ stores), values unique per (run, tile,
// CTA, piece). The host checks every piece.
//
// BUGGY ON PURPOSE: the tile is written through the generic proxy and read by
// the bulk copy through the async proxy. The roles are different functions
// called from the two branches of the kernel's role `if`; they meet only at
// the stage's "full" mbarrier, which orders threads, not proxies:
// fence.proxy.async.shared::cta is missing in produce() before its commit (the
// BUG line). proxyfence pairs the commit's arrive with store()'s wait through
// the pipeline object and the stage array both reach.
//
// Build: nvcc -std=c++17 -gencode arch=compute_90a,code=sm_90a -O3 -lineinfo \
//          -o pipeline_roles pipeline_roles.cu
// Run:   ./pipeline_roles [--runs N]   exit 0 PASS, 1 FAIL, 2 CUDA error, 77 no GPU

#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define CHECK(call)                                                                   \
  do {                                                                                \
    cudaError_t e_ = (call);                                                          \
    if (e_ != cudaSuccess) {                                                          \
      fprintf(stderr, "CUDA error %s at %s:%d: %s\n", cudaGetErrorName(e_), __FILE__, \
              __LINE__, cudaGetErrorString(e_));                                      \
      exit(2);                                                                        \
    }                                                                                 \
  } while (0)

constexpr int CTAS = 528, PRODUCERS = 128, THREADS = PRODUCERS + 32, ITERS = 64;
constexpr int STAGES = 2;
constexpr int TILE_BYTES = 8192, VECS = TILE_BYTES / 16;  // 512 16-byte pieces per tile
constexpr int PER_THREAD = VECS / PRODUCERS;              // 4 pieces per producer thread
constexpr size_t SLOTS = size_t(ITERS) * CTAS;            // one global slot per tile copy
constexpr size_t PIECES = SLOTS * VECS;                   // 17.3 M 16-byte pieces per run

__host__ __device__ inline uint4 expected(uint32_t run, uint32_t slot, uint32_t vec) {
  const uint32_t id = slot * VECS + vec;
  return make_uint4(id, id ^ (run * 0x9E3779B9u + 0x7F4A7C15u), id + (run * 0x85EBCA6Bu + 1u), ~id);
}

__device__ __forceinline__ uint32_t smem_addr(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// One mbarrier word with the operations the pipeline needs.
struct StageBarrier {
  uint64_t word;
  __device__ void init(uint32_t count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(smem_addr(&word)), "r"(count) : "memory");
  }
  __device__ void arrive() {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(smem_addr(&word)) : "memory");
  }
  __device__ void wait(uint32_t parity) {
    asm volatile("{\n"
                 ".reg .pred done;\n"
                 "WAIT_%=:\n"
                 "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
                 "@!done bra WAIT_%=;\n"
                 "}\n" :: "r"(smem_addr(&word)), "r"(parity) : "memory");
  }
};

// Stage index and phase, advanced together.
struct PipelineState {
  uint32_t index_ = 0, phase_ = 0;
  __device__ uint32_t index() const { return index_; }
  __device__ uint32_t phase() const { return phase_; }
  __device__ void advance() {
    if (++index_ == STAGES) { index_ = 0; phase_ ^= 1; }
  }
};

// Producers fill a stage with the threads; consumers empty it.
class StagePipeline {
 public:
  struct SharedStorage {
    StageBarrier full[STAGES];
    StageBarrier empty[STAGES];
  };
  __device__ StagePipeline(SharedStorage& storage) : full_(storage.full), empty_(storage.empty) {
    if (threadIdx.x == 0)
      for (int s = 0; s < STAGES; ++s) {
        full_[s].init(PRODUCERS);
        empty_[s].init(32);
      }
    __syncthreads();
  }
  __device__ void producer_acquire(PipelineState st) { empty_[st.index()].wait(st.phase() ^ 1); }
  __device__ void producer_commit(PipelineState st) { full_[st.index()].arrive(); }
  __device__ void consumer_wait(PipelineState st) { full_[st.index()].wait(st.phase()); }
  __device__ void consumer_release(PipelineState st) { empty_[st.index()].arrive(); }

 private:
  StageBarrier* full_;
  StageBarrier* empty_;
};

struct SharedStorage {
  __align__(128) uint4 tile[STAGES][VECS];
  StagePipeline::SharedStorage pipeline;
};

struct TileEpilogue {
  uint4* out;
  uint32_t run;

  // Producer warp group: fill each tile's stage with C++ stores.
  __device__ void produce(StagePipeline& pipeline, SharedStorage& smem) {
    PipelineState st;
    for (uint32_t it = 0; it < ITERS; ++it) {
      const uint32_t slot = it * gridDim.x + blockIdx.x;
      pipeline.producer_acquire(st);
#pragma unroll
      for (uint32_t j = 0; j < PER_THREAD; ++j) {
        const uint32_t vec = PER_THREAD * threadIdx.x + j;
        smem.tile[st.index()][vec] = expected(run, slot, vec);
      }
      // BUG: generic-proxy writes reach store()'s bulk copy with no fence.proxy.async
      pipeline.producer_commit(st);
      st.advance();
    }
  }

  // Store warp: copy each full stage to its global slot, then release it.
  __device__ void store(StagePipeline& pipeline, SharedStorage& smem) {
    const uint32_t lane = threadIdx.x % 32;
    PipelineState st;
    for (uint32_t it = 0; it < ITERS; ++it) {
      const uint32_t slot = it * gridDim.x + blockIdx.x;
      pipeline.consumer_wait(st);
      if (lane == 0) {
        const uint64_t dst = static_cast<uint64_t>(__cvta_generic_to_global(out + size_t(slot) * VECS));
        asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;"
                     :: "l"(dst), "r"(smem_addr(smem.tile[st.index()])), "r"(TILE_BYTES) : "memory");
        asm volatile("cp.async.bulk.commit_group;" ::: "memory");
        asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
      }
      __syncwarp();
      pipeline.consumer_release(st);
      st.advance();
    }
  }
};

__global__ void __launch_bounds__(THREADS) pipeline_roles(uint4* __restrict__ out, uint32_t run) {
  __shared__ SharedStorage smem;
  StagePipeline pipeline(smem.pipeline);
  TileEpilogue epilogue{out, run};
  if (threadIdx.x / PRODUCERS == 0)
    epilogue.produce(pipeline, smem);
  else
    epilogue.store(pipeline, smem);
}

static int parse_runs(int argc, char** argv, int def) {
  int runs = def;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--runs") && i + 1 < argc) runs = atoi(argv[++i]);
    else if (!strncmp(argv[i], "--runs=", 7)) runs = atoi(argv[i] + 7);
    else { fprintf(stderr, "usage: %s [--runs N]\n", argv[0]); exit(2); }
  }
  if (runs < 1) { fprintf(stderr, "--runs must be >= 1\n"); exit(2); }
  return runs;
}

int main(int argc, char** argv) {
  const int runs = parse_runs(argc, argv, 10);

  int ndev = 0;
  cudaError_t e = cudaGetDeviceCount(&ndev);
  if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver || (e == cudaSuccess && ndev == 0)) {
    printf("SKIP pipeline_roles: no usable CUDA device (%s: %s)\n", cudaGetErrorName(e), cudaGetErrorString(e));
    return 77;
  }
  CHECK(e);
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  if (prop.major != 9) {
    printf("SKIP pipeline_roles: needs an sm_90 (Hopper) GPU, found %s (sm_%d%d)\n", prop.name,
           prop.major, prop.minor);
    return 77;
  }

  const size_t bytes = PIECES * sizeof(uint4);  // 277 MB of output per run
  uint4 *dOut, *hOut;
  CHECK(cudaMalloc(&dOut, bytes));
  CHECK(cudaMallocHost(&hOut, bytes));

  pipeline_roles<<<CTAS, THREADS>>>(dOut, 0xFFFFFFFFu);  // warm-up, not checked
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());

  cudaEvent_t t0, t1;
  CHECK(cudaEventCreate(&t0));
  CHECK(cudaEventCreate(&t1));
  long long stale = 0, prev_iter = 0;
  double total_ms = 0.0;
  for (int run = 0; run < runs; ++run) {
    CHECK(cudaMemset(dOut, 0xFF, bytes));  // unwritten pieces never match
    CHECK(cudaEventRecord(t0));
    pipeline_roles<<<CTAS, THREADS>>>(dOut, uint32_t(run));
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(t1));
    CHECK(cudaEventSynchronize(t1));
    float ms = 0.f;
    CHECK(cudaEventElapsedTime(&ms, t0, t1));
    total_ms += ms;
    CHECK(cudaMemcpy(hOut, dOut, bytes, cudaMemcpyDeviceToHost));
    long long run_stale = 0;
    for (size_t slot = 0; slot < SLOTS; ++slot)
      for (uint32_t vec = 0; vec < VECS; ++vec) {
        const uint4 got = hOut[slot * VECS + vec], want = expected(run, uint32_t(slot), vec);
        if (got.x == want.x && got.y == want.y && got.z == want.z && got.w == want.w) continue;
        ++run_stale;
        // Same CTA, same stage, its previous tile: the copy engine read the stage before the new stores.
        if (slot >= size_t(STAGES) * CTAS) {
          const uint4 p = expected(run, uint32_t(slot - size_t(STAGES) * CTAS), vec);
          if (got.x == p.x && got.y == p.y && got.z == p.z && got.w == p.w) ++prev_iter;
        }
      }
    if (run_stale) fprintf(stderr, "run %d: %lld stale 16-byte pieces\n", run, run_stale);
    stale += run_stale;
  }

  const bool pass = stale == 0;
  printf("%s pipeline_roles: %lld mismatches (stale 16-byte pieces, %lld from the stage's previous tile) "
         "of %zu over %d runs, %.1f us/run\n",
         pass ? "PASS" : "FAIL", stale, prev_iter, PIECES * runs, runs, 1000.0 * total_ms / runs);
  CHECK(cudaFree(dOut));
  CHECK(cudaFreeHost(hOut));
  return pass ? 0 : 1;
}
