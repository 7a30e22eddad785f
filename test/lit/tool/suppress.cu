// Suppression comments (clang-tidy's NO-LINT family and proxyfence's own
// ignore comments) on the warning's line: the async op, the init. A
// suppressed finding is counted in the summary, not reported, not fixed,
// and does not make the exit status non-zero.
// RUN: cp %s %t.cu
// RUN: not %proxyfence %t.cu 2>&1 | FileCheck %s
// RUN: %proxyfence --fix --quiet %t.cu
// RUN: FileCheck --check-prefix=FIXED --input-file=%t.cu %s
// RUN: grep -v '^//' %t.cu | grep -c 'fence\.proxy\.async\|fence\.mbarrier_init' | grep -qx 1
// RUN: %proxyfence %t.cu 2>&1 | FileCheck --check-prefix=CLEAN %s
// RUN: %nvcc-sm90a -cubin -o /dev/null %t.cu
// REQUIRES: nvcc
#include <cuda.h>
#include <cstdint>

__device__ __forceinline__ void tma_store(const CUtensorMap *map, const void *src) {
  uint32_t smem = static_cast<uint32_t>(__cvta_generic_to_shared(src));
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];"
               :: "l"(map), "r"(smem), "r"(0), "r"(0) : "memory");
}

__global__ void same_line(const __grid_constant__ CUtensorMap tmap) {
  __shared__ alignas(128) float tile[32][32];
  tile[threadIdx.x / 32][threadIdx.x % 32] = 1.0f;
  __syncthreads();
  if (threadIdx.x == 0)
    tma_store(&tmap, tile); // NOLINT(proxyfence-tma-store)
}

__global__ void next_line(const __grid_constant__ CUtensorMap tmap) {
  __shared__ alignas(128) float tile[32][32];
  tile[threadIdx.x / 32][threadIdx.x % 32] = 2.0f;
  __syncthreads();
  if (threadIdx.x == 0)
    // NOLINTNEXTLINE(proxyfence-*)
    tma_store(&tmap, tile);
}

__global__ void all_checks(const __grid_constant__ CUtensorMap tmap) {
  __shared__ alignas(128) float tile[32][32];
  tile[threadIdx.x / 32][threadIdx.x % 32] = 3.0f;
  __syncthreads();
  if (threadIdx.x == 0)
    tma_store(&tmap, tile); // NOLINT
}

// NOLINTBEGIN(proxyfence-tma-store)
__global__ void region(const __grid_constant__ CUtensorMap tmap) {
  __shared__ alignas(128) float tile[32][32];
  tile[threadIdx.x / 32][threadIdx.x % 32] = 4.0f;
  __syncthreads();
  if (threadIdx.x == 0)
    tma_store(&tmap, tile);
}
// NOLINTEND(proxyfence-tma-store)

__global__ void ignore_next_line(const __grid_constant__ CUtensorMap tmap) {
  __shared__ alignas(128) float tile[32][32];
  tile[threadIdx.x / 32][threadIdx.x % 32] = 5.0f;
  __syncthreads();
  if (threadIdx.x == 0)
    // proxyfence: ignore-next-line
    tma_store(&tmap, tile);
}

__global__ void ignore_rule(const __grid_constant__ CUtensorMap tmap) {
  __shared__ alignas(128) float tile[32][32];
  tile[threadIdx.x / 32][threadIdx.x % 32] = 6.0f;
  __syncthreads();
  if (threadIdx.x == 0)
    tma_store(&tmap, tile); // proxyfence: ignore(tma-store)
}

// Not suppressed: another check's NOLINT, another rule's ignore, a
// comment on the write instead of the warning's line, a closed region.
__global__ void other_check(const __grid_constant__ CUtensorMap tmap) {
  __shared__ alignas(128) float tile[32][32];
  tile[threadIdx.x / 32][threadIdx.x % 32] = 7.0f; // NOLINT(proxyfence-tma-store)
  __syncthreads();
  if (threadIdx.x == 0)
    tma_store(&tmap, tile); // NOLINT(bugprone-*) proxyfence: ignore(mma-operand)
}

__global__ void __cluster_dims__(2, 1, 1) init(int *out) {
  __shared__ alignas(8) uint64_t bar;
  uint32_t b = static_cast<uint32_t>(__cvta_generic_to_shared(&bar));
  if (threadIdx.x == 0) {
    // NOLINTNEXTLINE(proxyfence-mbarrier-init)
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(b) : "memory");
  }
  asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
  asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
  if (threadIdx.x == 0) {
    uint32_t rank;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
    asm volatile("{\n\t.reg .b32 remote;\n\t"
                 "mapa.shared::cluster.u32 remote, %0, %1;\n\t"
                 "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [remote];\n\t}"
                 :: "r"(b), "r"(rank ^ 1) : "memory");
  }
  out[blockIdx.x] = 1;
}


// CHECK-NOT: warning:
// CHECK: suppress.cu.tmp.cu:81:5: warning: TMA store reads shared memory 'tile' written through the generic proxy with no fence.proxy.async on the path [proxyfence-tma-store]
// CHECK-NOT: warning:
// CHECK: proxyfence: 1 finding in 1 file (7 suppressed)

// Only other_check is fixed: one fence in the code, before its barrier.
// FIXED:      {{^  }}tile[threadIdx.x / 32][threadIdx.x % 32] = 7.0f; // NOLINT(proxyfence-tma-store)
// FIXED-NEXT: {{^  }}asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
// FIXED-NEXT: {{^  }}__syncthreads();

// CLEAN: proxyfence: 0 findings in 1 file (7 suppressed)
