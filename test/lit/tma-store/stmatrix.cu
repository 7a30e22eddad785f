// stmatrix writes shared memory through the generic proxy, like st.shared.
// REQUIRES: nvcc
// RUN: cp %s %t.cu
// RUN: not %proxyfence %t.cu 2>&1 | FileCheck %s
// RUN: %proxyfence --fix --quiet %t.cu
// RUN: FileCheck --check-prefix=FIXED --input-file=%t.cu %s
// RUN: %proxyfence %t.cu 2>&1 | FileCheck --check-prefix=CLEAN %s
// RUN: %nvcc-sm90a -cubin -o /dev/null %t.cu
#include <cuda.h>
#include <cstdint>

__device__ __forceinline__ void tma_store(const CUtensorMap *tmap, const void *src) {
  uint32_t smem = static_cast<uint32_t>(__cvta_generic_to_shared(src));
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];"
               :: "l"(tmap), "r"(smem), "r"(0), "r"(0) : "memory");
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}

__device__ __forceinline__ void stmatrix_x4(uint32_t addr, const uint32_t (&r)[4]) {
  asm volatile("stmatrix.sync.aligned.x4.m8n8.shared.b16 [%0], {%1, %2, %3, %4};"
               :: "r"(addr), "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]) : "memory");
}

// Registers -> smem with stmatrix (inline), then a TMA store of the tile.
__global__ void epilogue(const __grid_constant__ CUtensorMap tmap, uint32_t r0, uint32_t r1,
                         uint32_t r2, uint32_t r3) {
  __shared__ alignas(128) uint16_t tile[64 * 64];
  uint32_t addr = static_cast<uint32_t>(
      __cvta_generic_to_shared(&tile[(threadIdx.x % 64) * 64]));
  asm volatile("stmatrix.sync.aligned.x4.m8n8.shared.b16 [%0], {%1, %2, %3, %4};"
               :: "r"(addr), "r"(r0), "r"(r1), "r"(r2), "r"(r3) : "memory");
  __syncthreads();
  if (threadIdx.x == 0)
    tma_store(&tmap, tile);
}

// The same through a helper taking the smem address as an integer.
__global__ void epilogue_helper(const __grid_constant__ CUtensorMap tmap, uint32_t r0) {
  __shared__ alignas(128) uint16_t tile[64 * 64];
  uint32_t regs[4] = {r0, r0, r0, r0};
  uint32_t base = static_cast<uint32_t>(__cvta_generic_to_shared(tile));
  stmatrix_x4(base + (threadIdx.x % 64) * 128, regs);
  __syncthreads();
  if (threadIdx.x == 0)
    tma_store(&tmap, tile);
}

// ldmatrix only reads: a generic read before a TMA store is no hazard.
__global__ void reads_only(const __grid_constant__ CUtensorMap tmap, uint32_t *out) {
  __shared__ alignas(128) uint16_t tile[64 * 64];
  uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(&tile[(threadIdx.x % 64) * 64]));
  uint32_t a, b, c, d;
  asm volatile("ldmatrix.sync.aligned.x4.m8n8.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(a), "=r"(b), "=r"(c), "=r"(d) : "r"(addr));
  out[threadIdx.x] = a + b + c + d;
  __syncthreads();
  if (threadIdx.x == 0)
    tma_store(&tmap, tile);
}
// CHECK: stmatrix.cu.tmp.cu:34:5: warning: TMA store reads shared memory 'tile' written through the generic proxy with no fence.proxy.async on the path [proxyfence-tma-store]
// CHECK: :30:3: note: generic-proxy write to 'tile' here (stmatrix.shared)
// CHECK: :32:3: note: insert 'asm volatile("fence.proxy.async.shared::cta;" ::: "memory");' here
// CHECK-NOT: warning:
// CHECK: stmatrix.cu.tmp.cu:45:5: warning: TMA store reads shared memory 'tile' written through the generic proxy with no fence.proxy.async on the path [proxyfence-tma-store]
// CHECK: :20:3: note: generic-proxy write to 'tile' here (stmatrix.shared)
// CHECK: :42:3: note: inside 'stmatrix_x4', called here
// CHECK: :43:3: note: insert 'asm volatile("fence.proxy.async.shared::cta;" ::: "memory");' here
// CHECK-NOT: warning:
// CHECK: proxyfence: 2 findings in 1 file

// FIXED:      {{^               }}:: "r"(addr), "r"(r0), "r"(r1), "r"(r2), "r"(r3) : "memory");
// FIXED-NEXT: {{^  }}asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
// FIXED-NEXT: {{^  }}__syncthreads();
// FIXED:      {{^  }}stmatrix_x4(base + (threadIdx.x % 64) * 128, regs);
// FIXED-NEXT: {{^  }}asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
// FIXED-NEXT: {{^  }}__syncthreads();
// FIXED:      {{^  }}out[threadIdx.x] = a + b + c + d;
// FIXED-NEXT: {{^  }}__syncthreads();

// CLEAN: proxyfence: 0 findings in 1 file
