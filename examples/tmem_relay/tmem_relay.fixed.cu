// tmem_relay: tensor memory handed between warp roles (Blackwell, sm_100a).
//
// Warp 0 allocates 32 tensor-memory columns. Warps 0-3 (writers) store
// x * scale into tensor memory with tcgen05.st (each warp its 32 lanes, 8
// columns per thread), wait for the stores and arrive on `full`. Warps 4-7
// (readers) wait on `full`, read the same lanes back with tcgen05.ld, write
// out = value + 1 and arrive on `empty`. Warp 0 waits on `empty` and frees
// the tensor memory with tcgen05.dealloc.
//
// BUGGY ON PURPOSE: a thread synchronisation alone does not order tcgen05
// operations of different threads (PTX ISA 9.7.16.6). The writers need
// tcgen05.fence::before_thread_sync before their arrive, the readers
// tcgen05.fence::after_thread_sync after their wait (and before_thread_sync
// before theirs), and the deallocating warp after_thread_sync after its wait
// (see the BUG lines).
//
// Build: nvcc -std=c++17 -gencode arch=compute_100a,code=sm_100a -O3 -lineinfo \
//          -o tmem_relay tmem_relay.cu
// Run:   ./tmem_relay [--runs N]     exit 0 PASS, 1 FAIL, 2 CUDA error, 77 no sm_100 GPU

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

constexpr int CTAS = 296;
constexpr int THREADS = 256;  // warps 0-3 write, warps 4-7 read
constexpr int COLS = 8;       // columns per thread
constexpr int PER_CTA = 128 * COLS;

__device__ inline uint32_t smem_addr(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
__device__ inline void bar_wait(uint64_t* bar) {
  asm volatile("{\n\t.reg .pred p;\n\tWAIT_%=:\n\t"
               "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\n\t"
               "@!p bra WAIT_%=;\n\t}" :: "r"(smem_addr(bar)) : "memory");
}
__device__ inline void bar_arrive(uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(smem_addr(bar)) : "memory");
}

__global__ void __launch_bounds__(THREADS)
tmem_relay(const float* __restrict__ x, float* __restrict__ out, float scale) {
  __shared__ alignas(8) uint64_t full, empty;
  __shared__ uint32_t tmem_base;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int row = (warp % 4) * 32 + lane;  // the tensor-memory lane of this thread
  const size_t base = size_t(blockIdx.x) * PER_CTA + size_t(row) * COLS;

  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 128;" :: "r"(smem_addr(&full)) : "memory");
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 128;" :: "r"(smem_addr(&empty)) : "memory");
  }
  if (warp == 0) {
    asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 32;"
                 :: "r"(smem_addr(&tmem_base)) : "memory");
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" ::: "memory");
  }
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  const uint32_t taddr = tmem_base + (uint32_t((warp % 4) * 32) << 16);

  if (warp < 4) {
    uint32_t v[COLS];
    for (int c = 0; c < COLS; ++c) v[c] = __float_as_uint(x[base + c] * scale);
    asm volatile("tcgen05.st.sync.aligned.32x32b.x8.b32 [%0], {%1, %2, %3, %4, %5, %6, %7, %8};"
                 :: "r"(taddr), "r"(v[0]), "r"(v[1]), "r"(v[2]), "r"(v[3]), "r"(v[4]), "r"(v[5]),
                    "r"(v[6]), "r"(v[7])
                 : "memory");
    asm volatile("tcgen05.wait::st.sync.aligned;" ::: "memory");
    // BUG: no tcgen05.fence::before_thread_sync before the arrive.
    asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
    bar_arrive(&full);
    if (warp == 0) {
      bar_wait(&empty);
      asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
      // BUG: no tcgen05.fence::after_thread_sync before the deallocation.
      asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 32;" :: "r"(tmem_base) : "memory");
    }
  } else {
    bar_wait(&full);
    asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
    // BUG: no tcgen05.fence::after_thread_sync before the load.
    uint32_t v[COLS];
    asm volatile("tcgen05.ld.sync.aligned.32x32b.x8.b32 {%0, %1, %2, %3, %4, %5, %6, %7}, [%8];"
                 : "=r"(v[0]), "=r"(v[1]), "=r"(v[2]), "=r"(v[3]), "=r"(v[4]), "=r"(v[5]), "=r"(v[6]),
                   "=r"(v[7])
                 : "r"(taddr)
                 : "memory");
    asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");
    // BUG: no tcgen05.fence::before_thread_sync before the arrive.
    asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
    bar_arrive(&empty);
    for (int c = 0; c < COLS; ++c) out[base + c] = __uint_as_float(v[c]) + 1.0f;
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

// Input values: multiples of 1/8 in [-7/8, 7/8], so the output is exact in fp32.
static float x_value(size_t i) { return float(int(((uint32_t(i) * 2654435761u) >> 13) % 15u) - 7) * 0.125f; }

int main(int argc, char** argv) {
  const int runs = parse_runs(argc, argv, 20);
  int ndev = 0;
  cudaError_t e = cudaGetDeviceCount(&ndev);
  if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver || (e == cudaSuccess && ndev == 0)) {
    printf("SKIP tmem_relay: no usable CUDA device (%s: %s)\n", cudaGetErrorName(e), cudaGetErrorString(e));
    return 77;
  }
  CHECK(e);
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  if (prop.major != 10) {
    printf("SKIP tmem_relay: needs an sm_100 (Blackwell) GPU, found %s (sm_%d%d)\n", prop.name,
           prop.major, prop.minor);
    return 77;
  }

  const size_t n = size_t(CTAS) * PER_CTA;
  std::vector<float> hX(n), hOut(n);
  for (size_t i = 0; i < n; ++i) hX[i] = x_value(i);
  float *dX, *dOut;
  CHECK(cudaMalloc(&dX, n * sizeof(float)));
  CHECK(cudaMalloc(&dOut, n * sizeof(float)));
  CHECK(cudaMemcpy(dX, hX.data(), n * sizeof(float), cudaMemcpyHostToDevice));

  tmem_relay<<<CTAS, THREADS>>>(dX, dOut, 1.0f);  // warm-up, not checked
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());

  cudaEvent_t t0, t1;
  CHECK(cudaEventCreate(&t0));
  CHECK(cudaEventCreate(&t1));
  long long mismatches = 0;
  double total_ms = 0.0;
  for (int run = 0; run < runs; ++run) {
    const float scale = float(run % 3 + 1);  // 1, 2, 3: stale data from a run shows
    CHECK(cudaMemset(dOut, 0xFF, n * sizeof(float)));  // NaN: unwritten data shows
    CHECK(cudaEventRecord(t0));
    tmem_relay<<<CTAS, THREADS>>>(dX, dOut, scale);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(t1));
    CHECK(cudaEventSynchronize(t1));
    float ms = 0.f;
    CHECK(cudaEventElapsedTime(&ms, t0, t1));
    total_ms += ms;
    CHECK(cudaMemcpy(hOut.data(), dOut, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; ++i) {
      const float want = hX[i] * scale + 1.0f;
      if (!(hOut[i] == want)) {
        if (mismatches < 5) fprintf(stderr, "run %d: out[%zu] = %g, expected %g\n", run, i, hOut[i], want);
        ++mismatches;
      }
    }
  }

  const bool pass = mismatches == 0;
  printf("%s tmem_relay: %lld mismatches over %d runs (%d CTAs x %d fp32), %.1f us/run\n",
         pass ? "PASS" : "FAIL", mismatches, runs, CTAS, PER_CTA, 1000.0 * total_ms / runs);
  CHECK(cudaFree(dX));
  CHECK(cudaFree(dOut));
  return pass ? 0 : 1;
}
