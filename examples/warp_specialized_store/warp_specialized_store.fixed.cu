// warp_specialized_store: a warp-specialised epilogue. In every CTA a producer
// warp group (4 warps) writes an 8 KB tile into shared memory with plain C++
// stores and arrives on a named barrier; a consumer warp syncs on that barrier
// and its lane 0 immediately stores the tile to global memory with a bulk
// async copy (cp.async.bulk.global.shared::cta), waits until the copy has read
// it, and arrives on a second named barrier that lets the producer overwrite
// the tile in the next iteration.
//
// 528 CTAs x 160 threads, 64 iterations per launch. Each producer thread
// writes 4 consecutive 16-byte pieces (uint4 C++ stores, 64 contiguous bytes
// per thread, so each store instruction is bank-conflicted), values unique per
// (run, iteration, CTA, piece). The host checks every piece.
//
// BUGGY ON PURPOSE: the tile is written through the generic proxy and read by
// the bulk copy through the async proxy. The roles meet only at the named
// barrier (`bar.arrive 1` in the producer, `bar.sync 1` in the consumer),
// which orders threads, not proxies: fence.proxy.async.shared::cta is missing
// in the producer before its arrive (the BUG line). A path-by-path analysis
// never sees the write and the copy in sequence; proxyfence pairs the
// barrier's arrive and sync across the two branches.
//
// Build: nvcc -std=c++17 -gencode arch=compute_90a,code=sm_90a -O3 -lineinfo \
//          -o warp_specialized_store warp_specialized_store.cu
// Run:   ./warp_specialized_store [--runs N]   exit 0 PASS, 1 FAIL, 2 CUDA error, 77 no GPU

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
constexpr int TILE_BYTES = 8192, VECS = TILE_BYTES / 16;  // 512 16-byte pieces per tile
constexpr int PER_THREAD = VECS / PRODUCERS;              // 4 pieces per producer thread
constexpr size_t SLOTS = size_t(ITERS) * CTAS;            // one global slot per tile copy
constexpr size_t PIECES = SLOTS * VECS;                   // 17.3 M 16-byte pieces per run
// Named barriers: 0 is __syncthreads'.
constexpr int TILE_FULL = 1, TILE_EMPTY = 2;

__host__ __device__ inline uint4 expected(uint32_t run, uint32_t slot, uint32_t vec) {
  const uint32_t id = slot * VECS + vec;
  return make_uint4(id, id ^ (run * 0x9E3779B9u + 0x7F4A7C15u), id + (run * 0x85EBCA6Bu + 1u), ~id);
}

__device__ __forceinline__ void named_arrive(int id) {
  asm volatile("bar.arrive %0, %1;" :: "r"(id), "n"(THREADS) : "memory");
}
__device__ __forceinline__ void named_sync(int id) {
  asm volatile("bar.sync %0, %1;" :: "r"(id), "n"(THREADS) : "memory");
}

__global__ void __launch_bounds__(THREADS) ws_store(uint4* __restrict__ out, uint32_t run) {
  __shared__ __align__(128) uint4 tile[VECS];
  const int warp_group_idx = threadIdx.x / PRODUCERS;

  if (warp_group_idx == 0) {  // producer warp group
    for (uint32_t it = 0; it < ITERS; ++it) {
      const uint32_t slot = it * gridDim.x + blockIdx.x;
      if (it > 0) named_sync(TILE_EMPTY);  // the consumer's copy has read the tile
#pragma unroll
      for (uint32_t j = 0; j < PER_THREAD; ++j) {
        const uint32_t vec = PER_THREAD * threadIdx.x + j;
        tile[vec] = expected(run, slot, vec);
      }
      // BUG: generic-proxy writes reach the consumer's bulk store with no fence.proxy.async
      asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
      named_arrive(TILE_FULL);
    }
  } else {  // consumer warp
    const uint32_t lane = threadIdx.x % 32;
    const uint32_t src = static_cast<uint32_t>(__cvta_generic_to_shared(tile));
    for (uint32_t it = 0; it < ITERS; ++it) {
      const uint32_t slot = it * gridDim.x + blockIdx.x;
      named_sync(TILE_FULL);
      if (lane == 0) {
        const uint64_t dst = static_cast<uint64_t>(__cvta_generic_to_global(out + size_t(slot) * VECS));
        asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;"
                     :: "l"(dst), "r"(src), "r"(TILE_BYTES) : "memory");
        asm volatile("cp.async.bulk.commit_group;" ::: "memory");
        asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
      }
      __syncwarp();
      if (it + 1 < ITERS) named_arrive(TILE_EMPTY);
    }
  }
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
    printf("SKIP warp_specialized_store: no usable CUDA device (%s: %s)\n", cudaGetErrorName(e), cudaGetErrorString(e));
    return 77;
  }
  CHECK(e);
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  if (prop.major != 9) {
    printf("SKIP warp_specialized_store: needs an sm_90 (Hopper) GPU, found %s (sm_%d%d)\n", prop.name,
           prop.major, prop.minor);
    return 77;
  }

  const size_t bytes = PIECES * sizeof(uint4);  // 277 MB of output per run
  uint4 *dOut, *hOut;
  CHECK(cudaMalloc(&dOut, bytes));
  CHECK(cudaMallocHost(&hOut, bytes));

  ws_store<<<CTAS, THREADS>>>(dOut, 0xFFFFFFFFu);  // warm-up, not checked
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
    ws_store<<<CTAS, THREADS>>>(dOut, uint32_t(run));
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
        // Same CTA, previous iteration: the copy engine read the tile before the new stores.
        if (slot >= size_t(CTAS)) {
          const uint4 p = expected(run, uint32_t(slot - CTAS), vec);
          if (got.x == p.x && got.y == p.y && got.z == p.z && got.w == p.w) ++prev_iter;
        }
      }
    if (run_stale) fprintf(stderr, "run %d: %lld stale 16-byte pieces\n", run, run_stale);
    stale += run_stale;
  }

  const bool pass = stale == 0;
  printf("%s warp_specialized_store: %lld mismatches (stale 16-byte pieces, %lld from the previous iteration) "
         "of %zu over %d runs, %.1f us/run\n",
         pass ? "PASS" : "FAIL", stale, prev_iter, PIECES * runs, runs, 1000.0 * total_ms / runs);
  CHECK(cudaFree(dOut));
  CHECK(cudaFreeHost(hOut));
  return pass ? 0 : 1;
}
