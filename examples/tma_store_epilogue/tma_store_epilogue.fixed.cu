// tma_store_epilogue: GEMM-like epilogue whose output tile leaves shared memory
// through a TMA tensor store (Hopper, sm_90a).
//
// Each CTA computes one 64x64 fp32 tile of C = alpha * (A * B) + bias[col]
// (K = 32, plain FMAs in registers), stages the tile in shared memory with
// ordinary C++ stores, and thread 0 hands it to the TMA unit with
// cp.async.bulk.tensor.2d.global.shared::cta.bulk_group.
//
// BUGGY ON PURPOSE: the tile is written through the generic proxy and read by
// the TMA unit through the async proxy. __syncthreads() orders threads, not
// proxies, so a fence.proxy.async.shared::cta is missing between the stores
// and the barrier (see the BUG line in the kernel).
//
// Build: nvcc -std=c++17 -gencode arch=compute_90a,code=sm_90a -O3 -lineinfo \
//          -o tma_store_epilogue tma_store_epilogue.cu
//        (no -lcuda: cuTensorMapEncodeTiled comes from cudaGetDriverEntryPointByVersion)
// Run:   ./tma_store_epilogue [--runs N]     exit 0 PASS, 1 FAIL, 2 CUDA error, 77 no GPU

#include <cuda.h>          // CUtensorMap and its enums (types only, no libcuda link)
#include <cudaTypedefs.h>  // PFN_cuTensorMapEncodeTiled_v12000
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

constexpr int M = 2048, N = 1024, K = 32;  // 32 x 16 = 512 output tiles / CTAs
constexpr int TILE_M = 64, TILE_N = 64;
constexpr int THREADS = 256;               // 16 x 16 threads, 4 x 4 outputs each

__global__ void __launch_bounds__(THREADS)
gemm_tma_epilogue(const __grid_constant__ CUtensorMap c_map, const float* __restrict__ A,
                  const float* __restrict__ B, const float* __restrict__ bias, float alpha) {
  // TMA source tile: 16 KB, 128-byte aligned, row-major like the box of c_map.
  __shared__ alignas(128) float tile[TILE_M][TILE_N];

  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  const int row0 = blockIdx.y * TILE_M, col0 = blockIdx.x * TILE_N;

  // Main loop: this thread owns rows ty + 16*i (i < 4) and columns 4*tx .. 4*tx+3.
  float acc[4][4] = {};
  for (int k = 0; k < K; ++k) {
    const float4 b = *reinterpret_cast<const float4*>(&B[k * N + col0 + 4 * tx]);
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const float a = A[(row0 + ty + 16 * i) * K + k];
      acc[i][0] = fmaf(a, b.x, acc[i][0]);
      acc[i][1] = fmaf(a, b.y, acc[i][1]);
      acc[i][2] = fmaf(a, b.z, acc[i][2]);
      acc[i][3] = fmaf(a, b.w, acc[i][3]);
    }
  }

  // Epilogue: alpha * acc + bias, staged in shared memory (generic-proxy writes).
  const float4 bv = *reinterpret_cast<const float4*>(&bias[col0 + 4 * tx]);
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const float4 v = make_float4(fmaf(alpha, acc[i][0], bv.x), fmaf(alpha, acc[i][1], bv.y),
                                 fmaf(alpha, acc[i][2], bv.z), fmaf(alpha, acc[i][3], bv.w));
    *reinterpret_cast<float4*>(&tile[ty + 16 * i][4 * tx]) = v;
  }

  // BUG: generic-proxy writes reach the TMA store with no fence.proxy.async
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();

  if (threadIdx.x == 0) {
    const uint64_t map = reinterpret_cast<uint64_t>(&c_map);
    const uint32_t src = static_cast<uint32_t>(__cvta_generic_to_shared(&tile[0][0]));
    // Coordinates are innermost-first: {column, row}.
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];"
                 :: "l"(map), "r"(src), "r"(col0), "r"(row0) : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    // Shared memory must stay valid until the TMA unit has finished reading the tile.
    asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
  }
}

// Resolve cuTensorMapEncodeTiled through the runtime, so no -lcuda is needed.
static PFN_cuTensorMapEncodeTiled_v12000 get_encode_tiled() {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult q;
  CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &q));
  if (q != cudaDriverEntryPointSuccess || fn == nullptr) {
    fprintf(stderr, "CUDA error: cuTensorMapEncodeTiled not found in the driver\n");
    exit(2);
  }
  return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);
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
    printf("SKIP tma_store_epilogue: no usable CUDA device (%s: %s)\n", cudaGetErrorName(e), cudaGetErrorString(e));
    return 77;
  }
  CHECK(e);
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  if (prop.major != 9) {
    printf("SKIP tma_store_epilogue: needs an sm_90 (Hopper) GPU, found %s (sm_%d%d)\n", prop.name,
           prop.major, prop.minor);
    return 77;
  }

  // Deterministic inputs: small multiples of 1/4 and 1/8, so every product, sum
  // and epilogue value is exact in fp32 and the GPU result must match bit for bit.
  std::vector<float> hA(M * K), hB(K * N), hBias(N), ref_acc(size_t(M) * N), hC(size_t(M) * N);
  for (int i = 0; i < M; ++i)
    for (int k = 0; k < K; ++k) hA[i * K + k] = float((i * 7 + k * 3) % 9 - 4) * 0.25f;
  for (int k = 0; k < K; ++k)
    for (int j = 0; j < N; ++j) hB[k * N + j] = float((k * 5 + j * 11) % 7 - 3) * 0.125f;
  for (int j = 0; j < N; ++j) hBias[j] = float(j % 13 - 6) * 0.5f;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      float s = 0.f;
      for (int k = 0; k < K; ++k) s = fmaf(hA[i * K + k], hB[k * N + j], s);
      ref_acc[size_t(i) * N + j] = s;
    }

  float *dA, *dB, *dBias, *dC;
  CHECK(cudaMalloc(&dA, hA.size() * sizeof(float)));
  CHECK(cudaMalloc(&dB, hB.size() * sizeof(float)));
  CHECK(cudaMalloc(&dBias, hBias.size() * sizeof(float)));
  CHECK(cudaMalloc(&dC, hC.size() * sizeof(float)));
  CHECK(cudaMemcpy(dA, hA.data(), hA.size() * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dB, hB.data(), hB.size() * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dBias, hBias.data(), hBias.size() * sizeof(float), cudaMemcpyHostToDevice));

  // Tensor map over C (row-major M x N fp32), one 64x64 box per CTA, no swizzle.
  CUtensorMap c_map;
  const cuuint64_t dims[2] = {N, M};                  // innermost first
  const cuuint64_t strides[1] = {N * sizeof(float)};  // bytes, dims 1..rank-1
  const cuuint32_t box[2] = {TILE_N, TILE_M};
  const cuuint32_t elem_strides[2] = {1, 1};
  CUresult cr = get_encode_tiled()(&c_map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, dC, dims, strides, box,
                                   elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                                   CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (cr != CUDA_SUCCESS) { fprintf(stderr, "CUDA error: cuTensorMapEncodeTiled failed (%d)\n", int(cr)); exit(2); }

  const dim3 grid(N / TILE_N, M / TILE_M);
  gemm_tma_epilogue<<<grid, THREADS>>>(c_map, dA, dB, dBias, 1.0f);  // warm-up, not checked
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());

  cudaEvent_t t0, t1;
  CHECK(cudaEventCreate(&t0));
  CHECK(cudaEventCreate(&t1));
  long long mismatches = 0;
  double total_ms = 0.0;
  for (int run = 0; run < runs; ++run) {
    const float alpha = 0.5f * float(run % 3 + 2);  // 1, 1.5, 2: stale data from a run shows
    CHECK(cudaMemset(dC, 0xFF, hC.size() * sizeof(float)));  // NaN: unwritten data shows
    CHECK(cudaEventRecord(t0));
    gemm_tma_epilogue<<<grid, THREADS>>>(c_map, dA, dB, dBias, alpha);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(t1));
    CHECK(cudaEventSynchronize(t1));
    float ms = 0.f;
    CHECK(cudaEventElapsedTime(&ms, t0, t1));
    total_ms += ms;
    CHECK(cudaMemcpy(hC.data(), dC, hC.size() * sizeof(float), cudaMemcpyDeviceToHost));
    for (size_t idx = 0; idx < hC.size(); ++idx) {
      const float want = fmaf(alpha, ref_acc[idx], hBias[idx % N]);
      if (!(hC[idx] == want)) {
        if (mismatches < 5)
          fprintf(stderr, "run %d: C[%zu][%zu] = %g, expected %g\n", run, idx / N, idx % N, hC[idx], want);
        ++mismatches;
      }
    }
  }

  const bool pass = mismatches == 0;
  printf("%s tma_store_epilogue: %lld mismatches over %d runs (%d x %d fp32 each), %.1f us/run\n",
         pass ? "PASS" : "FAIL", mismatches, runs, M, N, 1000.0 * total_ms / runs);
  CHECK(cudaFree(dA));
  CHECK(cudaFree(dB));
  CHECK(cudaFree(dBias));
  CHECK(cudaFree(dC));
  return pass ? 0 : 1;
}
