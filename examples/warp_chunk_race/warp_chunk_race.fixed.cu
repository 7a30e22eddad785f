// warp_chunk_race: each warp streams 2 KB chunks from shared to global memory
// with non-tensor bulk copies, in the tight shape that exposes the missing
// proxy fence on an H200 (Hopper, sm_90a).
//
// 528 CTAs x 8 warps, 64 iterations per launch. In every iteration each warp
// fills its own 2 KB chunk of dynamic shared memory with 16-byte plain C++
// uint4 stores (st.shared.v4; the values depend on run, iteration, CTA, warp
// and position and cost a few integer ops, so the stores issue back to back),
// each lane writing 4 consecutive pieces (64 contiguous bytes, so every store
// instruction is a 16-way shared-memory bank conflict), does __syncwarp(), and
// lane 0 immediately issues
// cp.async.bulk.global.shared::cta.bulk_group of the chunk to a distinct
// global slot, commits and waits (wait_group.read 0) before the chunk is
// overwritten. The host checks every 16-byte piece of every chunk.
//
// BUGGY ON PURPOSE: the chunk is written through the generic proxy and read by
// the bulk copy through the async proxy; __syncwarp() orders threads, not
// proxies, so a fence.proxy.async.shared::cta is missing between the stores
// and the __syncwarp() (see the BUG line in the kernel). The copy engine can
// then read stale data (the previous iteration's values).
//
// Build: nvcc -std=c++17 -gencode arch=compute_90a,code=sm_90a -O3 -lineinfo \
//          -o warp_chunk_race warp_chunk_race.cu
// Run:   ./warp_chunk_race [--runs N]       exit 0 PASS, 1 FAIL, 2 CUDA error, 77 no GPU

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

constexpr int CTAS = 528, WARPS = 8, THREADS = 32 * WARPS, ITERS = 64;
constexpr int CHUNK_BYTES = 2048, VECS = CHUNK_BYTES / 16;  // 128 16-byte pieces per chunk
constexpr size_t SLOTS = size_t(ITERS) * CTAS * WARPS;      // one global slot per chunk copy
constexpr size_t PIECES = SLOTS * VECS;                     // 34.6 M 16-byte pieces per run

// Value of 16-byte piece `vec` of global slot `slot` in run `run`; unique per
// (run, iteration, CTA, warp, piece), so a stale or unwritten piece never matches.
__host__ __device__ inline uint4 expected(uint32_t run, uint32_t slot, uint32_t vec) {
  const uint32_t id = slot * VECS + vec;
  return make_uint4(id, id ^ (run * 0x9E3779B9u + 0x7F4A7C15u), id + (run * 0x85EBCA6Bu + 1u), ~id);
}

__global__ void __launch_bounds__(THREADS) warp_chunk_copy(uint4* __restrict__ out, uint32_t run) {
  extern __shared__ __align__(128) uint4 smem[];  // WARPS chunks of 2 KB, one per warp
  const uint32_t warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const uint32_t chunk = static_cast<uint32_t>(__cvta_generic_to_shared(smem + warp * VECS));

  for (uint32_t it = 0; it < ITERS; ++it) {
    const uint32_t slot = (it * gridDim.x + blockIdx.x) * WARPS + warp;
    // Each lane writes 4 consecutive pieces (64 bytes) of the 128 with 16-byte
    // generic-proxy C++ stores (STS.128). Deliberate, to keep the race visible on
    // an H200: the lane-major layout (lanes 2 apart hit the same banks, so every
    // store is a 16-way bank conflict), cheap values, and C++ rather than
    // inline-asm st.shared.v4 stores. With the interleaved layout
    // (vec = lane + 32 * j) or with inline-asm stores, (almost) no stale piece
    // showed up.
#pragma unroll
    for (uint32_t j = 0; j < VECS / 32; ++j) {
      const uint32_t vec = 4 * lane + j;
      const uint4 v = expected(run, slot, vec);
      smem[warp * VECS + vec] = v;
    }

    // BUG: generic-proxy writes reach the bulk store with no fence.proxy.async
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncwarp();

    if (lane == 0) {
      const uint64_t dst = static_cast<uint64_t>(__cvta_generic_to_global(out + size_t(slot) * VECS));
      asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;"
                   :: "l"(dst), "r"(chunk), "r"(CHUNK_BYTES) : "memory");
      asm volatile("cp.async.bulk.commit_group;" ::: "memory");
      // The copy engine must have read the chunk before the next iteration overwrites it.
      asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
    }
    __syncwarp();  // the other lanes wait for lane 0's wait_group before overwriting
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
    printf("SKIP warp_chunk_race: no usable CUDA device (%s: %s)\n", cudaGetErrorName(e), cudaGetErrorString(e));
    return 77;
  }
  CHECK(e);
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  if (prop.major != 9) {
    printf("SKIP warp_chunk_race: needs an sm_90 (Hopper) GPU, found %s (sm_%d%d)\n", prop.name,
           prop.major, prop.minor);
    return 77;
  }

  const size_t bytes = PIECES * sizeof(uint4);  // 553 MB of output per run
  const size_t smem_bytes = size_t(WARPS) * CHUNK_BYTES;
  uint4 *dOut, *hOut;
  CHECK(cudaMalloc(&dOut, bytes));
  CHECK(cudaMallocHost(&hOut, bytes));

  warp_chunk_copy<<<CTAS, THREADS, smem_bytes>>>(dOut, 0xFFFFFFFFu);  // warm-up, not checked
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
    warp_chunk_copy<<<CTAS, THREADS, smem_bytes>>>(dOut, uint32_t(run));
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
        // Same warp, previous iteration: the copy engine saw the chunk before the new stores.
        const size_t prev = slot - size_t(CTAS) * WARPS;
        if (slot >= size_t(CTAS) * WARPS) {
          const uint4 p = expected(run, uint32_t(prev), vec);
          if (got.x == p.x && got.y == p.y && got.z == p.z && got.w == p.w) ++prev_iter;
        }
      }
    if (run_stale) fprintf(stderr, "run %d: %lld stale 16-byte pieces\n", run, run_stale);
    stale += run_stale;
  }

  const bool pass = stale == 0;
  printf("%s warp_chunk_race: %lld mismatches (stale 16-byte chunks, %lld from the previous iteration) "
         "of %zu over %d runs, %.1f us/run\n",
         pass ? "PASS" : "FAIL", stale, prev_iter, PIECES * runs, runs, 1000.0 * total_ms / runs);
  CHECK(cudaFree(dOut));
  CHECK(cudaFreeHost(hOut));
  return pass ? 0 : 1;
}
