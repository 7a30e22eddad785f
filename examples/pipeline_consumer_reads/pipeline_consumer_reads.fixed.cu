// pipeline_consumer_reads: two-stage bulk-copy (TMA) load pipeline with
// full/empty mbarriers; consumer warps read each stage with ordinary loads and
// hand it back to the producer, which refills it with the next bulk load
// (Hopper, sm_90a). The hazard is write-after-read across proxies.
//
// Row sums of a 135168 x 256 fp32 matrix, out[row] = scale * sum(X[row][:]).
// 264 CTAs, 5 warps each: warp 0 is the producer (lane 0 issues the loads),
// warps 1..4 are consumers. Each CTA streams 64 tiles of 8 rows (8 KB) through
// 2 shared-memory stages, so every stage is refilled 31 times per launch:
//   producer: wait empty[s] -> mbarrier.arrive.expect_tx full[s] ->
//             cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes
//   consumer: wait full[s] -> read 2 rows with C++ float4 loads ->
//             mbarrier.arrive empty[s] -> shuffle-reduce -> lane 0 stores the sums
// The mbarriers are initialised by thread 0 and published with __syncthreads()
// (single CTA, no cluster: no init fence needed).
//
// BUGGY ON PURPOSE: the consumers read a stage through the generic proxy and the
// producer's next bulk load writes it through the async proxy. The empty-barrier
// arrive/wait orders the threads, not the proxies, so each consumer thread needs
// a fence.proxy.async.shared::cta between its last read of the stage and its
// arrive on the empty barrier (see the BUG line in the kernel). Without it the
// bulk load may overwrite data the consumer has not finished reading.
//
// Build: nvcc -std=c++17 -gencode arch=compute_90a,code=sm_90a -O3 -lineinfo \
//          -o pipeline_consumer_reads pipeline_consumer_reads.cu
// Run:   ./pipeline_consumer_reads [--runs N]   exit 0 PASS, 1 FAIL, 2 CUDA error, 77 no GPU

#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CHECK(call)                                                                   \
  do {                                                                                \
    cudaError_t e_ = (call);                                                          \
    if (e_ != cudaSuccess) {                                                          \
      fprintf(stderr, "CUDA error %s at %s:%d: %s\n", cudaGetErrorName(e_), __FILE__, \
              __LINE__, cudaGetErrorString(e_));                                      \
      exit(2);                                                                        \
    }                                                                                 \
  } while (0)

constexpr int CTAS = 264, TILES_PER_CTA = 64, STAGES = 2;
constexpr int TILE_ROWS = 8, COLS = 256;                              // 8 rows x 1 KB per tile
constexpr uint32_t TILE_BYTES = TILE_ROWS * COLS * sizeof(float);     // 8192, multiple of 16
constexpr int CONSUMER_WARPS = 4, ROWS_PER_WARP = TILE_ROWS / CONSUMER_WARPS;  // 2
constexpr int CONSUMERS = 32 * CONSUMER_WARPS;                        // arrivals per empty phase
constexpr int THREADS = 32 + CONSUMERS;                               // warp 0 = producer
constexpr int ROWS = CTAS * TILES_PER_CTA * TILE_ROWS;                // 135168

// ---- raw PTX helpers (mbarrier and bulk copy) ----
__device__ __forceinline__ void mbar_init(uint32_t bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void mbar_arrive(uint32_t bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(bar) : "memory");
}
__device__ __forceinline__ void mbar_arrive_expect_tx(uint32_t bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(bar), "r"(bytes) : "memory");
}
__device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t parity) {
  uint32_t done;
  do {
    asm volatile(
        "{\n"
        ".reg .pred p;\n"
        "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
        "selp.u32 %0, 1, 0, p;\n"
        "}\n"
        : "=r"(done) : "r"(bar), "r"(parity) : "memory");
  } while (!done);
}
// Global -> shared bulk copy, completion (bytes) signalled on `bar`.
__device__ __forceinline__ void bulk_load(uint32_t dst, const void* src, uint32_t bytes, uint32_t bar) {
  const uint64_t gsrc = static_cast<uint64_t>(__cvta_generic_to_global(src));
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
               :: "r"(dst), "l"(gsrc), "r"(bytes), "r"(bar) : "memory");
}

__global__ void __launch_bounds__(THREADS)
pipelined_row_sums(const float* __restrict__ X, float* __restrict__ out, float scale) {
  __shared__ alignas(128) float stage[STAGES][TILE_ROWS * COLS];  // 2 x 8 KB
  __shared__ alignas(8) uint64_t full_bar[STAGES];   // producer -> consumers: tile landed
  __shared__ alignas(8) uint64_t empty_bar[STAGES];  // consumers -> producer: stage free

  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int tile0 = blockIdx.x * TILES_PER_CTA;

  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; ++s) {
      mbar_init(static_cast<uint32_t>(__cvta_generic_to_shared(&full_bar[s])), 1);
      mbar_init(static_cast<uint32_t>(__cvta_generic_to_shared(&empty_bar[s])), CONSUMERS);
    }
  }
  __syncthreads();

  if (warp > 0) {
    // ---- consumers: warp c (0..3) owns rows 2c and 2c+1 of every tile ----
    const int c = warp - 1;
    for (int t = 0; t < TILES_PER_CTA; ++t) {
      const int s = t % STAGES;
      mbar_wait(static_cast<uint32_t>(__cvta_generic_to_shared(&full_bar[s])), (t / STAGES) & 1);

      // Generic-proxy reads of the stage: each lane reads 8 floats of each row.
      float4 v[ROWS_PER_WARP][2];
#pragma unroll
      for (int rr = 0; rr < ROWS_PER_WARP; ++rr)
#pragma unroll
        for (int h = 0; h < 2; ++h)
          v[rr][h] = *reinterpret_cast<const float4*>(&stage[s][(c * ROWS_PER_WARP + rr) * COLS + 4 * lane + 128 * h]);

      // Hand the stage back as early as possible; the sums are finished in registers.
      // BUG: generic-proxy reads of the stage precede the async-proxy refill with no fence.proxy.async
      asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
      mbar_arrive(static_cast<uint32_t>(__cvta_generic_to_shared(&empty_bar[s])));

#pragma unroll
      for (int rr = 0; rr < ROWS_PER_WARP; ++rr) {
        float sum = ((v[rr][0].x + v[rr][0].y) + (v[rr][0].z + v[rr][0].w)) +
                    ((v[rr][1].x + v[rr][1].y) + (v[rr][1].z + v[rr][1].w));
        for (int off = 16; off > 0; off >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, off);
        if (lane == 0) out[size_t(tile0 + t) * TILE_ROWS + c * ROWS_PER_WARP + rr] = sum * scale;
      }
    }
  } else if (lane == 0) {
    // ---- producer: one thread issues every bulk load of this CTA ----
    for (int t = 0; t < TILES_PER_CTA; ++t) {
      const int s = t % STAGES;
      // Stage s was used by tile t - STAGES: wait until all consumers released it.
      if (t >= STAGES)
        mbar_wait(static_cast<uint32_t>(__cvta_generic_to_shared(&empty_bar[s])), ((t / STAGES) - 1) & 1);
      const uint32_t full = static_cast<uint32_t>(__cvta_generic_to_shared(&full_bar[s]));
      mbar_arrive_expect_tx(full, TILE_BYTES);
      bulk_load(static_cast<uint32_t>(__cvta_generic_to_shared(&stage[s][0])),
                X + size_t(tile0 + t) * TILE_ROWS * COLS, TILE_BYTES, full);
    }
  }
  // No thread leaves before the last tile landed: every consumer waits for it.
}

// Input values: multiples of 1/8 in [-7/8, 7/8] from a hash of (row, col), so
// every row sum is exact in fp32 (any order) and neighbouring tiles differ.
static float x_value(uint32_t row, uint32_t col) {
  const uint32_t h = (row * 2654435761u) ^ (col * 40503u + 0x9E37u);
  return float(int((h >> 13) % 15u) - 7) * 0.125f;
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
  const int runs = parse_runs(argc, argv, 20);

  int ndev = 0;
  cudaError_t e = cudaGetDeviceCount(&ndev);
  if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver || (e == cudaSuccess && ndev == 0)) {
    printf("SKIP pipeline_consumer_reads: no usable CUDA device (%s: %s)\n", cudaGetErrorName(e), cudaGetErrorString(e));
    return 77;
  }
  CHECK(e);
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  if (prop.major != 9) {
    printf("SKIP pipeline_consumer_reads: needs an sm_90 (Hopper) GPU, found %s (sm_%d%d)\n", prop.name,
           prop.major, prop.minor);
    return 77;
  }

  std::vector<float> hX(size_t(ROWS) * COLS), ref(ROWS), hOut(ROWS);
  for (uint32_t r = 0; r < uint32_t(ROWS); ++r) {
    float s = 0.f;
    for (uint32_t c = 0; c < uint32_t(COLS); ++c) s += (hX[size_t(r) * COLS + c] = x_value(r, c));
    ref[r] = s;
  }

  float *dX, *dOut;
  CHECK(cudaMalloc(&dX, hX.size() * sizeof(float)));  // 138 MB
  CHECK(cudaMalloc(&dOut, hOut.size() * sizeof(float)));
  CHECK(cudaMemcpy(dX, hX.data(), hX.size() * sizeof(float), cudaMemcpyHostToDevice));

  pipelined_row_sums<<<CTAS, THREADS>>>(dX, dOut, 1.0f);  // warm-up, not checked
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());

  cudaEvent_t t0, t1;
  CHECK(cudaEventCreate(&t0));
  CHECK(cudaEventCreate(&t1));
  long long mismatches = 0;
  double total_ms = 0.0;
  for (int run = 0; run < runs; ++run) {
    const float scale = float(run % 3 + 1);  // 1, 2, 3: stale data from a run shows
    CHECK(cudaMemset(dOut, 0xFF, hOut.size() * sizeof(float)));  // NaN: unwritten data shows
    CHECK(cudaEventRecord(t0));
    pipelined_row_sums<<<CTAS, THREADS>>>(dX, dOut, scale);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(t1));
    CHECK(cudaEventSynchronize(t1));
    float ms = 0.f;
    CHECK(cudaEventElapsedTime(&ms, t0, t1));
    total_ms += ms;
    CHECK(cudaMemcpy(hOut.data(), dOut, hOut.size() * sizeof(float), cudaMemcpyDeviceToHost));
    long long run_bad = 0;
    for (int r = 0; r < ROWS; ++r) {
      const float want = ref[r] * scale;
      if (!(hOut[r] == want)) {
        if (mismatches + run_bad < 5) fprintf(stderr, "run %d: out[%d] = %g, expected %g\n", run, r, hOut[r], want);
        ++run_bad;
      }
    }
    if (run_bad) fprintf(stderr, "run %d: %lld wrong row sums\n", run, run_bad);
    mismatches += run_bad;
  }

  const bool pass = mismatches == 0;
  printf("%s pipeline_consumer_reads: %lld mismatches over %d runs (%d row sums of %d fp32 each, "
         "%d tiles x %d stages per CTA), %.1f us/run\n",
         pass ? "PASS" : "FAIL", mismatches, runs, ROWS, COLS, TILES_PER_CTA, STAGES, 1000.0 * total_ms / runs);
  CHECK(cudaFree(dX));
  CHECK(cudaFree(dOut));
  return pass ? 0 : 1;
}
