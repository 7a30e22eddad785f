// Several generic writes reach one TMA store: one warning at the store, each
// write a note (C++ stores and st.shared alike), and one fence for all of
// them. A second store of the same tile later in the kernel is its own
// warning, with its own write and fence.
// RUN: not %proxyfence %s 2>&1 | FileCheck %s
#include <cuda.h>
#include <cstdint>

__device__ inline void tma_store(const CUtensorMap *map, const float *src) {
  asm volatile("cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [%0, {%2}], [%1];"
               :: "l"(map), "r"(uint32_t(__cvta_generic_to_shared(src))), "r"(0)
               : "memory");
}

__global__ void epilogue(const __grid_constant__ CUtensorMap map, float v) {
  __shared__ alignas(128) float tile[256];
  tile[threadIdx.x] = v;
  tile[threadIdx.x + 128] += v;
  asm volatile("st.shared.f32 [%0], %1;"
               :: "r"(uint32_t(__cvta_generic_to_shared(&tile[threadIdx.x]))), "f"(v)
               : "memory");
  __syncthreads();
  if (threadIdx.x == 0)
    tma_store(&map, tile);
  __syncthreads();
  tile[threadIdx.x] = 2 * v;
  __syncthreads();
  if (threadIdx.x == 0)
    tma_store(&map, tile);
}

// CHECK: one-warning-per-operation.cu:24:5: warning: TMA store reads shared memory 'tile' written through the generic proxy with no fence.proxy.async on the path [proxyfence-tma-store]
// CHECK-NOT: warning:
// CHECK-DAG: one-warning-per-operation.cu:17:3: note: generic-proxy write to 'tile' here
// CHECK-DAG: one-warning-per-operation.cu:18:3: note: generic-proxy write to 'tile' here
// CHECK-DAG: one-warning-per-operation.cu:19:3: note: generic-proxy write to 'tile' here
// CHECK: one-warning-per-operation.cu:22:3: note: insert 'asm volatile("fence.proxy.async.shared::cta;" ::: "memory");' here
// CHECK-NOT: warning:
// CHECK: one-warning-per-operation.cu:29:5: warning: TMA store reads shared memory 'tile' written through the generic proxy
// CHECK: one-warning-per-operation.cu:26:3: note: generic-proxy write to 'tile' here
// CHECK: one-warning-per-operation.cu:27:3: note: insert 'asm volatile("fence.proxy.async.shared::cta;" ::: "memory");' here
// CHECK-NOT: warning:
// CHECK: proxyfence: 2 findings in 1 file
