// wgmma_scaled_a: small bf16 GEMM on one warpgroup with wgmma.mma_async, whose
// A operand is row-scaled in registers and staged in shared memory with
// ordinary stores (Hopper, sm_90a).
//
// D = diag(s) * A * W^T, with A (M x K, bf16), W (N x K, bf16, the layout of a
// linear layer's weight), s[m] = alpha * row_scale[m] and D in fp32. Each CTA
// (128 threads = one warpgroup) computes one 64x64 tile of D with K = 64:
//   - A: every thread loads one row's 16-byte pieces from global memory, scales
//     them in fp32 registers, rounds to bf16 and stores them to shared memory
//     with plain C++ stores;
//   - W: copied from global to shared memory with plain C++ loads and stores;
//   - __syncthreads(), wgmma.fence, then four
//     wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 (both operands from
//     shared memory through matrix descriptors), commit_group, wait_group 0,
//     and the accumulators go straight from registers to global memory.
//
// BUGGY ON PURPOSE: both operand tiles are written through the generic proxy
// and read by wgmma.mma_async through the async proxy. __syncthreads() orders
// threads, not proxies, and wgmma.fence only orders register accesses, so a
// fence.proxy.async.shared::cta is missing between the stores and the barrier
// (see the BUG line in the kernel).
//
// Build: nvcc -std=c++17 -gencode arch=compute_90a,code=sm_90a -O3 -lineinfo \
//          -o wgmma_scaled_a wgmma_scaled_a.cu
// Run:   ./wgmma_scaled_a [--runs N]         exit 0 PASS, 1 FAIL, 2 CUDA error, 77 no GPU

#include <cuda_bf16.h>
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

constexpr int M = 2048, N = 1024, K = 64;  // 32 x 16 = 512 output tiles / CTAs
constexpr int TILE_M = 64, TILE_N = 64;    // one m64n64 wgmma tile per CTA
constexpr int THREADS = 128;               // one warpgroup
constexpr int KSTEPS = K / 16;             // 4 wgmma.mma_async (k16 each)

// Shared-memory operand layout: the canonical K-major layout without swizzle
// ("interleave" mode, descriptor bits 62-63 = 0) of the PTX ISA.
// A "core matrix" is 8 rows x 16 bytes (8 bf16 along K), stored as 128
// contiguous bytes, row after row. A 64 x 64 bf16 tile is 8 x 8 core matrices;
// we put the 8 core matrices of one K-group (8 consecutive k) next to each
// other along M (so for a fixed K-group the 64 rows are 64 consecutive 16-byte
// pieces), then the next K-group:
//     byte offset of element (r, k) = (k / 8) * 1024 + r * 16 + (k % 8) * 2
// (this is what CuTe's tile_to_shape of the 8x8 K-major INTERLEAVE atom over a
// 64x64 tile gives). In descriptor terms, for K-major operands:
//   LBO (leading dimension byte offset) = distance between core matrices that
//       are adjacent along K                    = 64 rows * 16 B = 1024 B
//   SBO (stride dimension byte offset)  = distance between core matrices that
//       are adjacent along M (for A) / N (for B) = 8 rows * 16 B  = 128 B
// One k16 step covers 2 K-groups, so step s starts at byte s * 2 * LBO.
constexpr uint32_t CORE_ROW_BYTES = 16;
constexpr uint32_t SBO_BYTES = 8 * CORE_ROW_BYTES;        // 128
constexpr uint32_t LBO_BYTES = TILE_M * CORE_ROW_BYTES;   // 1024 (TILE_M == TILE_N)
constexpr uint32_t KSTEP_BYTES = 2 * LBO_BYTES;           // 2048

// 64-bit wgmma matrix descriptor (PTX ISA, "Matrix Descriptor Format"):
//   bits  0-13 start address  >> 4      bits 16-29 LBO >> 4
//   bits 32-45 SBO >> 4                 bits 49-51 base offset (0: no swizzle)
//   bits 62-63 swizzle mode (0 = none)
__device__ __forceinline__ uint64_t desc_encode(uint32_t x) { return (x & 0x3FFFFu) >> 4; }
__device__ __forceinline__ uint64_t make_desc(uint32_t smem_addr) {
  return desc_encode(smem_addr) | (desc_encode(LBO_BYTES) << 16) | (desc_encode(SBO_BYTES) << 32);
}

// D(64x64, f32) += A(64x16, smem) * B(16x64, smem); both K-major
// (imm-trans-a = imm-trans-b = 0), imm-scale-a = imm-scale-b = 1, scale-d = 1.
__device__ __forceinline__ void wgmma_m64n64k16(float (&d)[32], uint64_t desc_a, uint64_t desc_b) {
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, %34, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
      "%32, %33, p, 1, 1, 0, 0;\n"
      "}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
        "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
        "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
        "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "l"(desc_a), "l"(desc_b), "r"(1)
      : "memory");
}

__device__ __forceinline__ uint32_t pack_bf16x2(float lo, float hi) {
  const __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);  // .x = lo (lower address)
  return *reinterpret_cast<const uint32_t*>(&v);
}
__device__ __forceinline__ float bf16_lo(uint32_t w) { return __uint_as_float(w << 16); }
__device__ __forceinline__ float bf16_hi(uint32_t w) { return __uint_as_float(w & 0xFFFF0000u); }

__global__ void __launch_bounds__(THREADS)
wgmma_scaled_gemm(const uint4* __restrict__ A, const uint4* __restrict__ W,
                  const float* __restrict__ row_scale, float alpha, float* __restrict__ D) {
  // Operand tiles in the layout described above (8 KB each).
  __shared__ alignas(128) uint4 sA[TILE_M * K / 8];
  __shared__ alignas(128) uint4 sB[TILE_N * K / 8];

  const int tid = threadIdx.x;
  const int row0 = blockIdx.y * TILE_M, col0 = blockIdx.x * TILE_N;
  constexpr int PIECES_PER_ROW = K / 8;  // 16-byte pieces (8 bf16) per row of A / W

  // A: thread t owns row r = t % 64 and K-groups t / 64, t / 64 + 2, ... (4 pieces).
  // Load, scale by s[r] in fp32, round to bf16, store (generic proxy).
  {
    const int r = tid % TILE_M;
    const float s = alpha * row_scale[row0 + r];
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const int kg = tid / TILE_M + 2 * j;
      const uint4 a = A[size_t(row0 + r) * PIECES_PER_ROW + kg];
      uint4 v;
      v.x = pack_bf16x2(s * bf16_lo(a.x), s * bf16_hi(a.x));
      v.y = pack_bf16x2(s * bf16_lo(a.y), s * bf16_hi(a.y));
      v.z = pack_bf16x2(s * bf16_lo(a.z), s * bf16_hi(a.z));
      v.w = pack_bf16x2(s * bf16_lo(a.w), s * bf16_hi(a.w));
      sA[kg * TILE_M + r] = v;  // byte offset kg * 1024 + r * 16
    }
  }
  // W (B operand, N x K = K-major): same layout, plain copy (generic proxy).
  {
    const int n = tid % TILE_N;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const int kg = tid / TILE_N + 2 * j;
      sB[kg * TILE_N + n] = W[size_t(col0 + n) * PIECES_PER_ROW + kg];
    }
  }

  // BUG: generic-proxy writes of sA/sB reach wgmma (async proxy) with no fence.proxy.async
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();

  float d[32];
#pragma unroll
  for (int i = 0; i < 32; ++i) d[i] = 0.f;
  // Orders the accumulator register writes above before wgmma (registers only).
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  const uint32_t a_base = static_cast<uint32_t>(__cvta_generic_to_shared(sA));
  const uint32_t b_base = static_cast<uint32_t>(__cvta_generic_to_shared(sB));
#pragma unroll
  for (int ks = 0; ks < KSTEPS; ++ks)
    wgmma_m64n64k16(d, make_desc(a_base + ks * KSTEP_BYTES), make_desc(b_base + ks * KSTEP_BYTES));
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  // Keep the compiler from reading the accumulators before the wait.
#pragma unroll
  for (int i = 0; i < 32; ++i) asm volatile("" : "+f"(d[i]) :: "memory");

  // Accumulator layout (m64nNk16, f32): warp w owns rows 16w..16w+15; lane l,
  // 8-column chunk i: d[4i+0..1] -> row 16w + l/4,     cols 8i + 2(l%4) + 0..1
  //                   d[4i+2..3] -> row 16w + l/4 + 8, same cols.
  const int warp = tid / 32, lane = tid % 32;
  const int r = row0 + 16 * warp + lane / 4;
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int c = col0 + 8 * i + 2 * (lane % 4);
    *reinterpret_cast<float2*>(&D[size_t(r) * N + c]) = make_float2(d[4 * i + 0], d[4 * i + 1]);
    *reinterpret_cast<float2*>(&D[size_t(r + 8) * N + c]) = make_float2(d[4 * i + 2], d[4 * i + 3]);
  }
}

// Host bf16 helpers (round to nearest even; all values used here are exact).
static uint16_t to_bf16(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  u += 0x7FFFu + ((u >> 16) & 1u);
  return uint16_t(u >> 16);
}
static float from_bf16(uint16_t h) {
  const uint32_t u = uint32_t(h) << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
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
    printf("SKIP wgmma_scaled_a: no usable CUDA device (%s: %s)\n", cudaGetErrorName(e), cudaGetErrorString(e));
    return 77;
  }
  CHECK(e);
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  if (prop.major != 9) {
    printf("SKIP wgmma_scaled_a: needs an sm_90 (Hopper) GPU, found %s (sm_%d%d)\n", prop.name,
           prop.major, prop.minor);
    return 77;
  }

  // Deterministic inputs: A in multiples of 1/4, W in multiples of 1/8, row
  // scales in {0.5, 1, 1.5, 2}, alpha in {0.5, 1, 1.5}. Every scaled A value is
  // exact in bf16 and every product and partial sum is exact in fp32, so the
  // result does not depend on the summation order: the check is bit-exact.
  std::vector<uint16_t> hA(size_t(M) * K), hW(size_t(N) * K);
  std::vector<float> hScale(M), hD(size_t(M) * N), wf(size_t(N) * K);
  std::vector<float> refs[3];  // CPU reference for each of the 3 alpha values, computed once
  for (int i = 0; i < M; ++i)
    for (int k = 0; k < K; ++k) hA[size_t(i) * K + k] = to_bf16(float((i * 7 + k * 3) % 9 - 4) * 0.25f);
  for (int j = 0; j < N; ++j)
    for (int k = 0; k < K; ++k) hW[size_t(j) * K + k] = to_bf16(float((k * 5 + j * 11) % 7 - 3) * 0.125f);
  for (int i = 0; i < M; ++i) hScale[i] = 0.5f * float(i % 4 + 1);
  for (size_t i = 0; i < wf.size(); ++i) wf[i] = from_bf16(hW[i]);

  uint4 *dA, *dW;
  float *dScale, *dD;
  CHECK(cudaMalloc(&dA, hA.size() * sizeof(uint16_t)));
  CHECK(cudaMalloc(&dW, hW.size() * sizeof(uint16_t)));
  CHECK(cudaMalloc(&dScale, hScale.size() * sizeof(float)));
  CHECK(cudaMalloc(&dD, hD.size() * sizeof(float)));
  CHECK(cudaMemcpy(dA, hA.data(), hA.size() * sizeof(uint16_t), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dW, hW.data(), hW.size() * sizeof(uint16_t), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dScale, hScale.data(), hScale.size() * sizeof(float), cudaMemcpyHostToDevice));

  const dim3 grid(N / TILE_N, M / TILE_M);
  wgmma_scaled_gemm<<<grid, THREADS>>>(dA, dW, dScale, 1.0f, dD);  // warm-up, not checked
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());

  cudaEvent_t t0, t1;
  CHECK(cudaEventCreate(&t0));
  CHECK(cudaEventCreate(&t1));
  long long mismatches = 0;
  double total_ms = 0.0;
  for (int run = 0; run < runs; ++run) {
    const int variant = run % 3;
    const float alpha = 0.5f * float(variant + 1);  // 0.5, 1, 1.5: stale data from a run shows
    std::vector<float>& ref = refs[variant];
    if (ref.empty()) {  // CPU reference from the same bf16-rounded operands the GPU multiplies
      ref.resize(hD.size());
      std::vector<float> a(K);
      for (int i = 0; i < M; ++i) {
        for (int k = 0; k < K; ++k) a[k] = from_bf16(to_bf16(alpha * hScale[i] * from_bf16(hA[size_t(i) * K + k])));
        for (int j = 0; j < N; ++j) {
          float s = 0.f;
          for (int k = 0; k < K; ++k) s = fmaf(a[k], wf[size_t(j) * K + k], s);
          ref[size_t(i) * N + j] = s;
        }
      }
    }
    CHECK(cudaMemset(dD, 0xFF, hD.size() * sizeof(float)));  // NaN: unwritten data shows
    CHECK(cudaEventRecord(t0));
    wgmma_scaled_gemm<<<grid, THREADS>>>(dA, dW, dScale, alpha, dD);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(t1));
    CHECK(cudaEventSynchronize(t1));
    float ms = 0.f;
    CHECK(cudaEventElapsedTime(&ms, t0, t1));
    total_ms += ms;
    CHECK(cudaMemcpy(hD.data(), dD, hD.size() * sizeof(float), cudaMemcpyDeviceToHost));
    for (size_t idx = 0; idx < hD.size(); ++idx) {
      if (!(hD[idx] == ref[idx])) {
        if (mismatches < 5)
          fprintf(stderr, "run %d: D[%zu][%zu] = %g, expected %g\n", run, idx / N, idx % N, hD[idx], ref[idx]);
        ++mismatches;
      }
    }
  }

  const bool pass = mismatches == 0;
  printf("%s wgmma_scaled_a: %lld mismatches over %d runs (%d x %d x %d bf16 -> fp32 each), %.1f us/run\n",
         pass ? "PASS" : "FAIL", mismatches, runs, M, N, K, 1000.0 * total_ms / runs);
  CHECK(cudaFree(dA));
  CHECK(cudaFree(dW));
  CHECK(cudaFree(dScale));
  CHECK(cudaFree(dD));
  return pass ? 0 : 1;
}
