// Write, barrier and store all inside one macro body: the finding is
// reported, but the fence point cannot be edited. --fix says why, leaves the
// file byte for byte as it was, and exits 1 because the finding remains.
// REQUIRES: nvcc
// RUN: cp %s %t.cu
// RUN: not %proxyfence %t.cu 2>&1 | FileCheck %s
// RUN: %proxyfence --fix %t.cu > %t.out 2>&1 || echo "exit=$?" >> %t.out
// RUN: FileCheck --check-prefix=FIX --input-file=%t.out %s
// RUN: cmp %s %t.cu
// RUN: %nvcc-sm90a -cubin -o /dev/null %t.cu
#include <cuda.h>
#include <cstdint>

#define TMA_STORE(tmap, ptr)                                                   \
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];" \
               :: "l"(tmap), "r"(static_cast<uint32_t>(__cvta_generic_to_shared(ptr))), \
                  "r"(0), "r"(0) : "memory")

#define EPILOGUE(tile, v, tmap)                                                \
  do {                                                                         \
    for (int i = threadIdx.x; i < 1024; i += blockDim.x)                       \
      tile[i] = (v);                                                           \
    __syncthreads();                                                           \
    if (threadIdx.x == 0)                                                      \
      TMA_STORE(tmap, tile);                                                   \
  } while (0)

#define EPILOGUE_FENCED(tile, v, tmap)                                         \
  do {                                                                         \
    for (int i = threadIdx.x; i < 1024; i += blockDim.x)                       \
      tile[i] = (v);                                                           \
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");               \
    __syncthreads();                                                           \
    if (threadIdx.x == 0)                                                      \
      TMA_STORE(tmap, tile);                                                   \
  } while (0)

__global__ void in_macro(const __grid_constant__ CUtensorMap tmap, float v) {
  __shared__ alignas(128) float tile[1024];
  EPILOGUE(tile, v, &tmap);
}

__global__ void in_fenced_macro(const __grid_constant__ CUtensorMap tmap, float v) {
  __shared__ alignas(128) float tile[1024];
  EPILOGUE_FENCED(tile, v, &tmap);
}
// CHECK: macro.cu.tmp.cu:40:3: warning: TMA store reads shared memory 'tile' written through the generic proxy with no fence.proxy.async on the path [proxyfence-tma-store]
// CHECK: :40:12: note: generic-proxy write to 'tile' here
// CHECK: :40:3: note: this barrier orders threads, not proxies; insert the fence before it
// CHECK: :40:3: note: no automatic fix: the fence point is inside a macro expansion
// CHECK-NOT: warning:
// CHECK: proxyfence: 1 finding in 1 file

// FIX: warning: TMA store reads shared memory 'tile'
// FIX: note: no automatic fix: the fence point is inside a macro expansion
// FIX: proxyfence: 1 finding in 1 file, 0 fixed, 1 left
// FIX-NEXT: exit=1
