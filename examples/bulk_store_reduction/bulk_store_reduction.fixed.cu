// bulk_store_reduction: per-row statistics (sum and max) of a matrix, one
// 64-row block per CTA; each CTA's 512-byte result record leaves shared memory
// through one non-tensor bulk copy (Hopper, sm_90a, libcu++ cuda::ptx style).
//
// Each warp reduces 8 rows with shuffles. Lane 0 writes the 8 row sums with two
// st.shared.v4.f32 (inline PTX), lane 1 writes the 8 row maxima with plain C++
// stores, then after __syncthreads() thread 0 issues
// cp.async.bulk.global.shared::cta.bulk_group through cuda::ptx::cp_async_bulk.
//
// BUGGY ON PURPOSE: the record is written through the generic proxy and read by
// the bulk copy through the async proxy; __syncthreads() orders threads, not
// proxies, so cuda::ptx::fence_proxy_async(cuda::ptx::space_shared) is missing
// between the stores and the barrier (see the BUG line in the kernel).
//
// Build: nvcc -std=c++17 -gencode arch=compute_90a,code=sm_90a -O3 -lineinfo \
//          -o bulk_store_reduction bulk_store_reduction.cu
// Run:   ./bulk_store_reduction [--runs N]   exit 0 PASS, 1 FAIL, 2 CUDA error, 77 no GPU

#include <cuda/ptx>
#include <cuda_runtime.h>

#include <cmath>
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

constexpr int ROWS_PER_CTA = 64, THREADS = 256, ROWS_PER_WARP = 8;  // 8 warps x 8 rows
constexpr int CTAS = 528, ROWS = CTAS * ROWS_PER_CTA, COLS = 256;
constexpr int REC = 2 * ROWS_PER_CTA;  // per CTA: 64 row sums, then 64 row maxima

__global__ void __launch_bounds__(THREADS)
row_stats(const float* __restrict__ X, float* __restrict__ out, float scale) {
  // Bulk-copy source: 512 bytes (a multiple of 16), 16-byte aligned at least.
  __shared__ alignas(128) float rec[REC];

  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int row_base = blockIdx.x * ROWS_PER_CTA + warp * ROWS_PER_WARP;

  float s[ROWS_PER_WARP], m[ROWS_PER_WARP];
#pragma unroll
  for (int r = 0; r < ROWS_PER_WARP; ++r) {
    const float* x = X + size_t(row_base + r) * COLS;
    float sum = 0.f, mx = -INFINITY;
    for (int c = 4 * lane; c < COLS; c += 128) {
      const float4 v = __ldg(reinterpret_cast<const float4*>(x + c));
      sum += (v.x + v.y) + (v.z + v.w);
      mx = fmaxf(mx, fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w)));
    }
    for (int off = 16; off > 0; off >>= 1) {  // butterfly: every lane ends with the result
      sum += __shfl_xor_sync(0xffffffffu, sum, off);
      mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, off));
    }
    s[r] = sum * scale;
    m[r] = mx * scale;
  }

  // Row sums: two 16-byte st.shared.v4.f32 (generic proxy) by lane 0.
  if (lane == 0) {
    const uint32_t dst = static_cast<uint32_t>(__cvta_generic_to_shared(&rec[warp * ROWS_PER_WARP]));
    asm volatile("st.shared.v4.f32 [%0], {%1, %2, %3, %4};"
                 :: "r"(dst), "f"(s[0]), "f"(s[1]), "f"(s[2]), "f"(s[3]) : "memory");
    asm volatile("st.shared.v4.f32 [%0+16], {%1, %2, %3, %4};"
                 :: "r"(dst), "f"(s[4]), "f"(s[5]), "f"(s[6]), "f"(s[7]) : "memory");
  }
  // Row maxima: plain C++ stores (generic proxy) by lane 1.
  if (lane == 1) {
#pragma unroll
    for (int r = 0; r < ROWS_PER_WARP; ++r) rec[ROWS_PER_CTA + warp * ROWS_PER_WARP + r] = m[r];
  }

  // BUG: generic-proxy writes reach the bulk store with no fence.proxy.async
  cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
  __syncthreads();

  if (threadIdx.x == 0) {
    cuda::ptx::cp_async_bulk(cuda::ptx::space_global, cuda::ptx::space_shared,
                             out + size_t(blockIdx.x) * REC, rec, uint32_t(sizeof(rec)));
    cuda::ptx::cp_async_bulk_commit_group();
    // Shared memory must stay valid until the copy engine has read the record.
    cuda::ptx::cp_async_bulk_wait_group_read(cuda::ptx::n32_t<0>());
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
  const int runs = parse_runs(argc, argv, 20);

  int ndev = 0;
  cudaError_t e = cudaGetDeviceCount(&ndev);
  if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver || (e == cudaSuccess && ndev == 0)) {
    printf("SKIP bulk_store_reduction: no usable CUDA device (%s: %s)\n", cudaGetErrorName(e), cudaGetErrorString(e));
    return 77;
  }
  CHECK(e);
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  if (prop.major != 9) {
    printf("SKIP bulk_store_reduction: needs an sm_90 (Hopper) GPU, found %s (sm_%d%d)\n", prop.name,
           prop.major, prop.minor);
    return 77;
  }

  // Deterministic input: multiples of 1/8 in [-2, 2]; every partial sum is exact in
  // fp32 whatever the summation order, so the GPU must match the CPU bit for bit.
  std::vector<float> hX(size_t(ROWS) * COLS), ref_sum(ROWS), ref_max(ROWS), hOut(size_t(CTAS) * REC);
  for (int i = 0; i < ROWS; ++i) {
    float sum = 0.f, mx = -INFINITY;
    for (int j = 0; j < COLS; ++j) {
      const float v = float(int((unsigned(i) * 2654435761u + unsigned(j) * 40503u) % 33u) - 16) * 0.125f;
      hX[size_t(i) * COLS + j] = v;
      sum += v;
      mx = fmaxf(mx, v);
    }
    ref_sum[i] = sum;
    ref_max[i] = mx;
  }

  float *dX, *dOut;
  CHECK(cudaMalloc(&dX, hX.size() * sizeof(float)));
  CHECK(cudaMalloc(&dOut, hOut.size() * sizeof(float)));
  CHECK(cudaMemcpy(dX, hX.data(), hX.size() * sizeof(float), cudaMemcpyHostToDevice));

  row_stats<<<CTAS, THREADS>>>(dX, dOut, 1.0f);  // warm-up, not checked
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
    row_stats<<<CTAS, THREADS>>>(dX, dOut, scale);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(t1));
    CHECK(cudaEventSynchronize(t1));
    float ms = 0.f;
    CHECK(cudaEventElapsedTime(&ms, t0, t1));
    total_ms += ms;
    CHECK(cudaMemcpy(hOut.data(), dOut, hOut.size() * sizeof(float), cudaMemcpyDeviceToHost));
    for (int b = 0; b < CTAS; ++b)
      for (int r = 0; r < ROWS_PER_CTA; ++r) {
        const int row = b * ROWS_PER_CTA + r;
        const float got[2] = {hOut[size_t(b) * REC + r], hOut[size_t(b) * REC + ROWS_PER_CTA + r]};
        const float want[2] = {ref_sum[row] * scale, ref_max[row] * scale};
        for (int q = 0; q < 2; ++q)
          if (!(got[q] == want[q])) {
            if (mismatches < 5)
              fprintf(stderr, "run %d: row %d %s = %g, expected %g\n", run, row, q ? "max" : "sum", got[q], want[q]);
            ++mismatches;
          }
      }
  }

  const bool pass = mismatches == 0;
  printf("%s bulk_store_reduction: %lld mismatches over %d runs (%d rows x 2 stats each), %.1f us/run\n",
         pass ? "PASS" : "FAIL", mismatches, runs, ROWS, 1000.0 * total_ms / runs);
  CHECK(cudaFree(dX));
  CHECK(cudaFree(dOut));
  return pass ? 0 : 1;
}
