// One thread writes the tile and then issues the store, with no barrier in
// between: the fence goes right before the store. When the store is the
// unbraced body of an if/else/for, the fix adds the braces.
// REQUIRES: nvcc
// RUN: cp %s %t.cu
// RUN: not %proxyfence %t.cu 2>&1 | FileCheck %s
// RUN: %proxyfence --fix --quiet %t.cu
// RUN: FileCheck --check-prefix=FIXED --input-file=%t.cu %s
// RUN: %proxyfence %t.cu 2>&1 | FileCheck --check-prefix=CLEAN %s
// RUN: %nvcc-sm90a -cubin -o /dev/null %t.cu
#include <cuda.h>
#include <cstdint>

__device__ __forceinline__ void tma_store(const CUtensorMap *tmap, const void *src, int x) {
  uint32_t smem = static_cast<uint32_t>(__cvta_generic_to_shared(src));
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];"
               :: "l"(tmap), "r"(smem), "r"(x), "r"(0) : "memory");
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}

__global__ void if_body(const __grid_constant__ CUtensorMap tmap, float v) {
  __shared__ alignas(128) float tile[32];
  if (threadIdx.x == 0) {
    for (int i = 0; i < 32; ++i)
      tile[i] = v * i;
  }
  if (threadIdx.x == 0)
    tma_store(&tmap, tile, 0);
}

__global__ void else_body(const __grid_constant__ CUtensorMap tmap, float v, bool skip) {
  __shared__ alignas(128) float tile[32];
  if (threadIdx.x == 0)
    for (int i = 0; i < 32; ++i)
      tile[i] = v * i;
  if (threadIdx.x != 0 || skip)
    return;
  else
    tma_store(&tmap, tile, 32);
}

// Written once, stored on every iteration of an unbraced loop that is
// itself the unbraced body of an if: the fence is hoisted out of the loop and
// the if body gets the braces.
__global__ void for_body(const __grid_constant__ CUtensorMap tmap, float v, int n) {
  __shared__ alignas(128) float tile[32];
  if (threadIdx.x == 0)
    tile[0] = v;
  if (threadIdx.x == 0)
    for (int k = 0; k < n; ++k)
      tma_store(&tmap, tile, k * 32);
}

// Same thread, but fenced: nothing to report.
__global__ void fenced(const __grid_constant__ CUtensorMap tmap, float v) {
  __shared__ alignas(128) float tile[32];
  if (threadIdx.x == 0) {
    for (int i = 0; i < 32; ++i)
      tile[i] = v * i;
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  }
  if (threadIdx.x == 0)
    tma_store(&tmap, tile, 0);
}
// CHECK: unbraced-body.cu.tmp.cu:28:5: warning: TMA store reads shared memory 'tile' written through the generic proxy with no fence.proxy.async on the path [proxyfence-tma-store]
// CHECK: :25:7: note: generic-proxy write to 'tile' here
// CHECK: :28:5: note: insert 'asm volatile("fence.proxy.async.shared::cta;" ::: "memory");' here
// CHECK-NOT: warning:
// CHECK: unbraced-body.cu.tmp.cu:39:5: warning: TMA store reads shared memory 'tile' written through the generic proxy with no fence.proxy.async on the path [proxyfence-tma-store]
// CHECK: :35:7: note: generic-proxy write to 'tile' here
// CHECK: :39:5: note: insert 'asm volatile("fence.proxy.async.shared::cta;" ::: "memory");' here
// CHECK-NOT: warning:
// CHECK: unbraced-body.cu.tmp.cu:51:7: warning: TMA store reads shared memory 'tile' written through the generic proxy with no fence.proxy.async on the path [proxyfence-tma-store]
// CHECK: :48:5: note: generic-proxy write to 'tile' here
// CHECK: :50:5: note: insert 'asm volatile("fence.proxy.async.shared::cta;" ::: "memory");' here, before the loop: no write happens inside it
// CHECK-NOT: warning:
// CHECK: proxyfence: 3 findings in 1 file

// FIXED:      {{^      }}tile[i] = v * i;
// FIXED-NEXT: {{^  }$}}
// FIXED-NEXT: {{^  }}if (threadIdx.x == 0)
// FIXED-NEXT: {{^    }}{ asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); tma_store(&tmap, tile, 0); }{{$}}
// FIXED:      {{^  }}else
// FIXED-NEXT: {{^    }}{ asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); tma_store(&tmap, tile, 32); }{{$}}
// FIXED:      {{^  }}if (threadIdx.x == 0)
// FIXED-NEXT: {{^    }}tile[0] = v;
// FIXED-NEXT: {{^  }}if (threadIdx.x == 0)
// FIXED-NEXT: {{^    }}{ asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); for (int k = 0; k < n; ++k)
// FIXED-NEXT: {{^      }}tma_store(&tmap, tile, k * 32); }{{$}}
// FIXED:      {{^    }}asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
// FIXED-NEXT: {{^  }$}}
// FIXED-NEXT: {{^  }}if (threadIdx.x == 0)
// FIXED-NEXT: {{^    }}tma_store(&tmap, tile, 0);

// CLEAN: proxyfence: 0 findings in 1 file
