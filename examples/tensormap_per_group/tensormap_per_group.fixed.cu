// tensormap_per_group: one tensor map per group, retargeted in device code
// (the grouped-GEMM pattern), then used by TMA loads (Hopper, sm_90a).
//
// The host encodes one template map over a 64x64 fp32 matrix (32x32 boxes).
// Each CTA owns a group: thread 0 copies the template into its slot of a
// global workspace, points the copy at its group's matrix with
// tensormap.replace, and loads the four 32x32 tiles of that matrix with
// cp.async.bulk.tensor through the modified map. Every thread then writes
// out = scale * tile + group.
//
// BUGGY ON PURPOSE: tensormap.replace is a generic-proxy write; TMA reads the
// map through the tensormap proxy. The writer must execute
// fence.proxy.tensormap::generic.release after the write and the thread that
// issues the TMA must execute fence.proxy.tensormap::generic.acquire on the
// map before its first use (see the BUG line in the kernel).
//
// Build: nvcc -std=c++17 -gencode arch=compute_90a,code=sm_90a -O3 -lineinfo \
//          -o tensormap_per_group tensormap_per_group.cu
//        (no -lcuda: cuTensorMapEncodeTiled comes from cudaGetDriverEntryPointByVersion)
// Run:   ./tensormap_per_group [--runs N]     exit 0 PASS, 1 FAIL, 2 CUDA error, 77 no GPU

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

constexpr int GROUPS = 264;          // CTAs, one group each
constexpr int DIM = 64;              // each group's matrix is DIM x DIM fp32
constexpr int BOX = 32;              // TMA box: BOX x BOX
constexpr int TILES = (DIM / BOX) * (DIM / BOX);
constexpr int THREADS = 256;

__device__ inline uint32_t smem_addr(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__global__ void __launch_bounds__(THREADS)
per_group_copy(const __grid_constant__ CUtensorMap tmpl, CUtensorMap* __restrict__ workspace,
               const float* __restrict__ src, float* __restrict__ out, float scale) {
  __shared__ alignas(128) float tile[TILES][BOX][BOX];
  __shared__ alignas(8) uint64_t full;
  const int group = blockIdx.x;
  CUtensorMap* map = workspace + group;

  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem_addr(&full)) : "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  }
  __syncthreads();

  if (threadIdx.x == 0) {
    *map = tmpl;
    const float* base = src + size_t(group) * DIM * DIM;
    asm volatile("tensormap.replace.tile.global_address.global.b1024.b64 [%0], %1;"
                 :: "l"(map), "l"(base) : "memory");
    asm volatile("fence.proxy.tensormap::generic.release.gpu;" ::: "memory");
    // BUG: no fence.proxy.tensormap::generic.release / .acquire before the TMA loads.
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"
                 :: "r"(smem_addr(&full)), "r"(int(sizeof(tile))) : "memory");
    for (int t = 0; t < TILES; ++t)
      { asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(map) : "memory"); asm volatile(
          "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
          " [%0], [%1, {%2, %3}], [%4];"
          :: "r"(smem_addr(&tile[t][0][0])), "l"(map), "r"((t % 2) * BOX), "r"((t / 2) * BOX),
             "r"(smem_addr(&full))
          : "memory"); }
  }
  asm volatile("{\n\t.reg .pred p;\n\tWAIT_%=:\n\t"
               "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\n\t"
               "@!p bra WAIT_%=;\n\t}" :: "r"(smem_addr(&full)) : "memory");

  float* dst = out + size_t(group) * DIM * DIM;
  for (int i = threadIdx.x; i < DIM * DIM; i += THREADS) {
    const int r = i / DIM, c = i % DIM;
    const int t = (r / BOX) * 2 + c / BOX;
    dst[i] = fmaf(scale, tile[t][r % BOX][c % BOX], float(group));
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

// Input values: multiples of 1/8 in [-7/8, 7/8], so the output is exact in fp32.
static float src_value(size_t i) { return float(int(((uint32_t(i) * 2654435761u) >> 13) % 15u) - 7) * 0.125f; }

int main(int argc, char** argv) {
  const int runs = parse_runs(argc, argv, 20);
  int ndev = 0;
  cudaError_t e = cudaGetDeviceCount(&ndev);
  if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver || (e == cudaSuccess && ndev == 0)) {
    printf("SKIP tensormap_per_group: no usable CUDA device (%s: %s)\n", cudaGetErrorName(e), cudaGetErrorString(e));
    return 77;
  }
  CHECK(e);
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  if (prop.major != 9) {
    printf("SKIP tensormap_per_group: needs an sm_90 (Hopper) GPU, found %s (sm_%d%d)\n", prop.name,
           prop.major, prop.minor);
    return 77;
  }

  const size_t n = size_t(GROUPS) * DIM * DIM;
  std::vector<float> hSrc(n), hOut(n);
  for (size_t i = 0; i < n; ++i) hSrc[i] = src_value(i);
  float *dSrc, *dOut;
  CUtensorMap* dWorkspace;
  CHECK(cudaMalloc(&dSrc, n * sizeof(float)));
  CHECK(cudaMalloc(&dOut, n * sizeof(float)));
  CHECK(cudaMalloc(&dWorkspace, GROUPS * sizeof(CUtensorMap)));  // 256-byte aligned
  CHECK(cudaMemcpy(dSrc, hSrc.data(), n * sizeof(float), cudaMemcpyHostToDevice));

  // Template: group 0's matrix (row-major DIM x DIM fp32), BOX x BOX boxes, no swizzle.
  CUtensorMap tmpl;
  const cuuint64_t dims[2] = {DIM, DIM};
  const cuuint64_t strides[1] = {DIM * sizeof(float)};
  const cuuint32_t box[2] = {BOX, BOX};
  const cuuint32_t elem_strides[2] = {1, 1};
  CUresult cr = get_encode_tiled()(&tmpl, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, dSrc, dims, strides, box,
                                   elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                                   CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (cr != CUDA_SUCCESS) { fprintf(stderr, "CUDA error: cuTensorMapEncodeTiled failed (%d)\n", int(cr)); exit(2); }

  per_group_copy<<<GROUPS, THREADS>>>(tmpl, dWorkspace, dSrc, dOut, 1.0f);  // warm-up, not checked
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());

  cudaEvent_t t0, t1;
  CHECK(cudaEventCreate(&t0));
  CHECK(cudaEventCreate(&t1));
  long long mismatches = 0;
  double total_ms = 0.0;
  for (int run = 0; run < runs; ++run) {
    const float scale = float(run % 3 + 1);  // 1, 2, 3: stale data from a run shows
    CHECK(cudaMemset(dOut, 0xFF, n * sizeof(float)));        // NaN: unwritten data shows
    CHECK(cudaMemset(dWorkspace, 0, GROUPS * sizeof(CUtensorMap)));  // maps rebuilt every run
    CHECK(cudaEventRecord(t0));
    per_group_copy<<<GROUPS, THREADS>>>(tmpl, dWorkspace, dSrc, dOut, scale);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(t1));
    CHECK(cudaEventSynchronize(t1));
    float ms = 0.f;
    CHECK(cudaEventElapsedTime(&ms, t0, t1));
    total_ms += ms;
    CHECK(cudaMemcpy(hOut.data(), dOut, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; ++i) {
      const float want = fmaf(scale, hSrc[i], float(i / (DIM * DIM)));
      if (!(hOut[i] == want)) {
        if (mismatches < 5)
          fprintf(stderr, "run %d: out[%zu] (group %zu) = %g, expected %g\n", run, i, i / (DIM * DIM), hOut[i], want);
        ++mismatches;
      }
    }
  }

  const bool pass = mismatches == 0;
  printf("%s tensormap_per_group: %lld mismatches over %d runs (%d groups of %d x %d fp32), %.1f us/run\n",
         pass ? "PASS" : "FAIL", mismatches, runs, GROUPS, DIM, DIM, 1000.0 * total_ms / runs);
  CHECK(cudaFree(dSrc));
  CHECK(cudaFree(dOut));
  CHECK(cudaFree(dWorkspace));
  return pass ? 0 : 1;
}
