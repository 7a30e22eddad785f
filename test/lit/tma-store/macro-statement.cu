// A TMA store that is one whole macro use is fixable: the fence goes before
// the barrier outside the macro, or, with no barrier (one thread writes and
// stores), before the macro use, wrapped in braces with it.
// REQUIRES: nvcc
// RUN: cp %s %t.cu
// RUN: not %proxyfence %t.cu 2>&1 | FileCheck %s
// RUN: %proxyfence --fix --quiet %t.cu
// RUN: FileCheck --check-prefix=FIXED --input-file=%t.cu %s
// RUN: %proxyfence %t.cu 2>&1 | FileCheck --check-prefix=CLEAN %s
// RUN: %nvcc-sm90a -cubin -o /dev/null %t.cu
#include <cuda.h>
#include <cstdint>

#define TMA_STORE(tmap, ptr)                                                   \
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];" \
               :: "l"(tmap), "r"(static_cast<uint32_t>(__cvta_generic_to_shared(ptr))), \
                  "r"(0), "r"(0) : "memory")

__global__ void store_macro(const __grid_constant__ CUtensorMap tmap, float v) {
  __shared__ alignas(128) float tile[1024];
  for (int i = threadIdx.x; i < 1024; i += blockDim.x)
    tile[i] = v;
  __syncthreads();
  if (threadIdx.x == 0)
    TMA_STORE(&tmap, tile);
}

__global__ void same_thread(const __grid_constant__ CUtensorMap tmap, float v) {
  __shared__ alignas(128) float tile[32];
  if (threadIdx.x == 0) {
    for (int i = 0; i < 32; ++i)
      tile[i] = v * i;
  }
  if (threadIdx.x == 0)
    TMA_STORE(&tmap, tile);
}
// CHECK: macro-statement.cu.tmp.cu:25:5: warning: TMA store reads shared memory 'tile' written through the generic proxy with no fence.proxy.async on the path [proxyfence-tma-store]
// CHECK: :22:5: note: generic-proxy write to 'tile' here
// CHECK: :23:3: note: insert 'asm volatile("fence.proxy.async.shared::cta;" ::: "memory");' here
// CHECK-NOT: warning:
// CHECK: macro-statement.cu.tmp.cu:35:5: warning: TMA store reads shared memory 'tile' written through the generic proxy with no fence.proxy.async on the path [proxyfence-tma-store]
// CHECK: :32:7: note: generic-proxy write to 'tile' here
// CHECK: :35:5: note: insert 'asm volatile("fence.proxy.async.shared::cta;" ::: "memory");' here
// CHECK-NOT: warning:
// CHECK: proxyfence: 2 findings in 1 file

// FIXED:      {{^    }}tile[i] = v;
// FIXED-NEXT: {{^  }}asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
// FIXED-NEXT: {{^  }}__syncthreads();
// FIXED:      {{^      }}tile[i] = v * i;
// FIXED-NEXT: {{^  }$}}
// FIXED-NEXT: {{^  }}if (threadIdx.x == 0)
// FIXED-NEXT: {{^    }}{ asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); TMA_STORE(&tmap, tile); }{{$}}

// CLEAN: proxyfence: 0 findings in 1 file
