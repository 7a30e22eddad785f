// cluster_multicast: 2-CTA clusters share one 16 KB chunk through multicast
// bulk loads, with a remote mbarrier arrive between the two CTAs (Hopper, sm_90a).
//
// 528 clusters of 2 CTAs (__cluster_dims__(2,1,1)), 256 threads per CTA.
// Cluster c owns the chunk X[c*4096 .. c*4096+4095] (fp32). In each CTA:
//   1. thread 0 initialises the CTA's mbarrier with 2 expected arrivals (its
//      own arrive.expect_tx and the peer CTA's remote arrive);
//   2. relaxed cluster barrier (barrier.cluster.arrive.relaxed + wait);
//   3. thread 0 of CTA rank r arms its barrier for the whole 16 KB, issues
//      cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster
//      of half r of the chunk into BOTH CTAs' shared memory (same offset in
//      each; each copy completes on the barrier of the CTA it lands in), then
//      writes a value into the peer's shared memory (st.shared::cluster through
//      mapa) and arrives on the peer's barrier (mbarrier.arrive.release.cluster
//      on the mapa address of the peer's barrier);
//   4. every thread waits on its own barrier (phase 0), with a bound: after
//      2^26 polls or 2 s it records a timeout flag in global memory and skips
//      the computation instead of hanging;
//   5. CTA r computes out[j] = scale * (x[j] + 2 * x[4095 - j]) + peer_value for
//      the j of half r, which needs the half the peer loaded;
//   6. a full cluster barrier before exit: no CTA leaves while its peer may
//      still touch its shared memory.
// The host also runs a watchdog: it polls the stream and gives up after 20 s.
//
// BUGGY ON PURPOSE: the peer CTA reaches this CTA's mbarrier (multicast
// complete_tx and the remote arrive) right after a cluster barrier whose arrive
// is .relaxed, so nothing makes the mbarrier.init visible to the peer. The
// initialising thread must execute a fence.mbarrier_init.release.cluster after
// the init, before the relaxed cluster arrive (see the BUG line in the kernel).
//
// Build: nvcc -std=c++17 -gencode arch=compute_90a,code=sm_90a -O3 -lineinfo \
//          -o cluster_multicast cluster_multicast.cu
// Run:   ./cluster_multicast [--runs N]      exit 0 PASS, 1 FAIL or TIMEOUT, 2 CUDA error, 77 no GPU

#include <cuda_runtime.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
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

constexpr int CLUSTER = 2, CLUSTERS = 528, CTAS = CLUSTER * CLUSTERS, THREADS = 256;
constexpr int HALF = 2048, CHUNK = CLUSTER * HALF;        // floats: 8 KB per half, 16 KB per chunk
constexpr uint32_t HALF_BYTES = HALF * sizeof(float);     // multiple of 16
constexpr uint32_t CHUNK_BYTES = CHUNK * sizeof(float);   // tx bytes expected per CTA
constexpr uint32_t SPIN_LIMIT = 1u << 26;                 // polls before giving up
constexpr uint64_t WAIT_LIMIT_NS = 2000000000ull;         // or 2 s, whichever comes first
constexpr double HOST_WATCHDOG_S = 20.0;

__device__ __forceinline__ uint64_t global_timer_ns() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// Bounded wait for phase `parity` of the mbarrier at `bar` (acquire, cluster
// scope: the peer's remote arrive is a release at cluster scope). Returns false
// on timeout.
__device__ __forceinline__ bool mbar_wait_bounded(uint32_t bar, uint32_t parity) {
  const uint64_t start = global_timer_ns();
#pragma unroll 1
  for (uint32_t spins = 0; spins < SPIN_LIMIT; ++spins) {
    uint32_t done;
    asm volatile(
        "{\n"
        ".reg .pred p;\n"
        "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2;\n"
        "selp.u32 %0, 1, 0, p;\n"
        "}\n"
        : "=r"(done) : "r"(bar), "r"(parity) : "memory");
    if (done) return true;
    if ((spins & 1023u) == 1023u && global_timer_ns() - start > WAIT_LIMIT_NS) return false;
  }
  return false;
}

__global__ void __cluster_dims__(CLUSTER, 1, 1) __launch_bounds__(THREADS)
cluster_mirror(const float* __restrict__ X, float* __restrict__ out, int* __restrict__ timeout_flag,
               float scale, float tag) {
  __shared__ alignas(128) float chunk[CHUNK];  // both halves land here, by multicast
  __shared__ alignas(8) uint64_t bar;          // completes when both halves + the peer's arrive are in
  __shared__ float peer_value;                 // written by the peer CTA (distributed shared memory)

  uint32_t rank, cluster_id;
  asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  asm("mov.u32 %0, %%clusterid.x;" : "=r"(cluster_id));
  const uint32_t peer = rank ^ 1u;
  const uint32_t bar_addr = static_cast<uint32_t>(__cvta_generic_to_shared(&bar));

  if (threadIdx.x == 0) {
    // 2 arrivals per phase: this CTA's arrive.expect_tx and the peer's remote arrive.
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(bar_addr), "r"(2) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    // BUG: the init is not released to the cluster (no fence.mbarrier_init) before the relaxed arrive below
  }
  // Cluster barrier: all CTAs of the cluster are running and have initialised.
  asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
  asm volatile("barrier.cluster.wait.aligned;" ::: "memory");

  if (threadIdx.x == 0) {
    // Own arrival, expecting all bytes of both halves (ours and the peer's multicast).
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"
                 :: "r"(bar_addr), "r"(CHUNK_BYTES) : "memory");
    // Half `rank` of the chunk into both CTAs (mask 0b11), at the same offset in each.
    const uint32_t dst = static_cast<uint32_t>(__cvta_generic_to_shared(&chunk[rank * HALF]));
    const uint64_t src = static_cast<uint64_t>(
        __cvta_generic_to_global(X + size_t(cluster_id) * CHUNK + size_t(rank) * HALF));
    const uint16_t cta_mask = 0x3;
    asm volatile(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster"
        " [%0], [%1], %2, [%3], %4;"
        :: "r"(dst), "l"(src), "r"(HALF_BYTES), "r"(bar_addr), "h"(cta_mask) : "memory");
    // Give the peer a value through its shared memory, then arrive on its barrier
    // (release at cluster scope orders the store before the arrive).
    const uint32_t my_value_addr = static_cast<uint32_t>(__cvta_generic_to_shared(&peer_value));
    uint32_t remote_value, remote_bar;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote_value) : "r"(my_value_addr), "r"(peer));
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote_bar) : "r"(bar_addr), "r"(peer));
    asm volatile("st.shared::cluster.f32 [%0], %1;" :: "r"(remote_value), "f"(tag + float(rank)) : "memory");
    asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" :: "r"(remote_bar) : "memory");
  }

  if (mbar_wait_bounded(bar_addr, 0)) {
    // Both halves and peer_value are visible now. CTA rank r produces half r.
    const float pv = peer_value;
    float* o = out + size_t(cluster_id) * CHUNK;
    for (int j = rank * HALF + threadIdx.x; j < int(rank + 1) * HALF; j += THREADS)
      o[j] = fmaf(scale, fmaf(2.f, chunk[CHUNK - 1 - j], chunk[j]), pv);
  } else {
    atomicExch(timeout_flag, 1);
  }

  // Full cluster barrier (release/acquire) before exit.
  asm volatile("barrier.cluster.arrive.aligned;" ::: "memory");
  asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
}

// Input values: multiples of 1/8 in [-7/8, 7/8], so the output is exact in fp32.
static float x_value(uint32_t i) { return float(int(((i * 2654435761u) >> 13) % 15u) - 7) * 0.125f; }

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

// Host watchdog: wait for the stream, but give up after HOST_WATCHDOG_S seconds.
// A hung cluster cannot be cancelled, so on timeout report and leave at once
// (_Exit skips the runtime's teardown, which would wait for the kernel).
static void wait_stream_or_die(cudaStream_t stream, int run) {
  const auto start = std::chrono::steady_clock::now();
  cudaError_t q;
  while ((q = cudaStreamQuery(stream)) == cudaErrorNotReady) {
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (s > HOST_WATCHDOG_S) {
      if (run < 0) printf("FAIL cluster_multicast: TIMEOUT, kernel still running after %.0f s (warm-up launch)\n", HOST_WATCHDOG_S);
      else printf("FAIL cluster_multicast: TIMEOUT, kernel still running after %.0f s (run %d)\n", HOST_WATCHDOG_S, run);
      fflush(stdout);
      std::_Exit(1);
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  CHECK(q);
}

int main(int argc, char** argv) {
  const int runs = parse_runs(argc, argv, 20);

  int ndev = 0;
  cudaError_t e = cudaGetDeviceCount(&ndev);
  if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver || (e == cudaSuccess && ndev == 0)) {
    printf("SKIP cluster_multicast: no usable CUDA device (%s: %s)\n", cudaGetErrorName(e), cudaGetErrorString(e));
    return 77;
  }
  CHECK(e);
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  if (prop.major != 9) {
    printf("SKIP cluster_multicast: needs an sm_90 (Hopper) GPU, found %s (sm_%d%d)\n", prop.name,
           prop.major, prop.minor);
    return 77;
  }

  const size_t n = size_t(CLUSTERS) * CHUNK;
  std::vector<float> hX(n), hOut(n), base(n);
  for (size_t i = 0; i < n; ++i) hX[i] = x_value(uint32_t(i));
  for (size_t c = 0; c < size_t(CLUSTERS); ++c)
    for (int j = 0; j < CHUNK; ++j) base[c * CHUNK + j] = fmaf(2.f, hX[c * CHUNK + CHUNK - 1 - j], hX[c * CHUNK + j]);

  float *dX, *dOut;
  int* dFlag;
  CHECK(cudaMalloc(&dX, n * sizeof(float)));
  CHECK(cudaMalloc(&dOut, n * sizeof(float)));
  CHECK(cudaMalloc(&dFlag, sizeof(int)));
  CHECK(cudaMemcpy(dX, hX.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  // Grid = CTAS (a multiple of the cluster size); the cluster shape comes from __cluster_dims__.
  CHECK(cudaMemsetAsync(dFlag, 0, sizeof(int), stream));
  cluster_mirror<<<CTAS, THREADS, 0, stream>>>(dX, dOut, dFlag, 1.0f, -1.0f);  // warm-up, not checked
  CHECK(cudaGetLastError());
  wait_stream_or_die(stream, -1);

  cudaEvent_t t0, t1;
  CHECK(cudaEventCreate(&t0));
  CHECK(cudaEventCreate(&t1));
  long long mismatches = 0;
  int timeouts = 0;
  double total_ms = 0.0;
  for (int run = 0; run < runs; ++run) {
    const float scale = float(run % 3 + 1);  // 1, 2, 3: stale data from a run shows
    const float tag = float(16 * run);       // value passed between the peers
    CHECK(cudaMemsetAsync(dOut, 0xFF, n * sizeof(float), stream));  // NaN: unwritten data shows
    CHECK(cudaMemsetAsync(dFlag, 0, sizeof(int), stream));
    CHECK(cudaEventRecord(t0, stream));
    cluster_mirror<<<CTAS, THREADS, 0, stream>>>(dX, dOut, dFlag, scale, tag);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(t1, stream));
    wait_stream_or_die(stream, run);
    float ms = 0.f;
    CHECK(cudaEventElapsedTime(&ms, t0, t1));
    total_ms += ms;
    int flag = 0;
    CHECK(cudaMemcpy(&flag, dFlag, sizeof(int), cudaMemcpyDeviceToHost));
    if (flag) {
      fprintf(stderr, "run %d: TIMEOUT in an mbarrier wait (device-side bound)\n", run);
      ++timeouts;
    }
    CHECK(cudaMemcpy(hOut.data(), dOut, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; ++i) {
      const size_t j = i % CHUNK;
      const float peer_value = tag + float(j < size_t(HALF) ? 1 : 0);  // half r is written by rank r
      const float want = fmaf(scale, base[i], peer_value);
      if (!(hOut[i] == want)) {
        if (mismatches < 5)
          fprintf(stderr, "run %d: out[%zu] (cluster %zu) = %g, expected %g\n", run, i, i / CHUNK, hOut[i], want);
        ++mismatches;
      }
    }
  }

  const bool pass = mismatches == 0 && timeouts == 0;
  printf("%s cluster_multicast: %lld mismatches, %d TIMEOUT runs over %d runs (%d clusters x 2 CTAs, %d fp32 each), "
         "%.1f us/run\n",
         pass ? "PASS" : "FAIL", mismatches, timeouts, runs, CLUSTERS, CHUNK, 1000.0 * total_ms / runs);
  CHECK(cudaFree(dX));
  CHECK(cudaFree(dOut));
  CHECK(cudaFree(dFlag));
  CHECK(cudaStreamDestroy(stream));
  return pass ? 0 : 1;
}
