// The fence must be on every path: a fence on one branch only leaves the
// other path unfenced. The fix goes where both paths meet again.
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

__global__ void one_branch(const __grid_constant__ CUtensorMap tmap, float v, bool fast) {
  __shared__ alignas(128) float tile[1024];
  for (int i = threadIdx.x; i < 1024; i += blockDim.x)
    tile[i] = v;
  if (fast) {
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  } else {
    v += 1.0f;
  }
  __syncthreads();
  if (threadIdx.x == 0)
    tma_store(&tmap, tile);
}

// The write happens on one branch, the fence on the other.
__global__ void crossed(const __grid_constant__ CUtensorMap tmap, float v, bool fast) {
  __shared__ alignas(128) float tile[1024];
  if (fast)
    tile[threadIdx.x] = v;
  else
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (threadIdx.x == 0)
    tma_store(&tmap, tile);
}

// Both branches fence: nothing to report.
__global__ void both_branches(const __grid_constant__ CUtensorMap tmap, float v, bool fast) {
  __shared__ alignas(128) float tile[1024];
  tile[threadIdx.x] = v;
  if (fast) {
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  } else {
    v += 1.0f;
    asm volatile("fence.proxy.async;" ::: "memory");
  }
  __syncthreads();
  if (threadIdx.x == 0)
    tma_store(&tmap, tile);
}
// CHECK: branch-one-path.cu.tmp.cu:31:5: warning: TMA store reads shared memory 'tile' written through the generic proxy with no fence.proxy.async on the path [proxyfence-tma-store]
// CHECK: :23:5: note: generic-proxy write to 'tile' here
// CHECK: :29:3: note: this barrier orders threads, not proxies; insert the fence before it
// CHECK: :29:3: note: insert 'asm volatile("fence.proxy.async.shared::cta;" ::: "memory");' here
// CHECK-NOT: warning:
// CHECK: branch-one-path.cu.tmp.cu:43:5: warning: TMA store reads shared memory 'tile' written through the generic proxy with no fence.proxy.async on the path [proxyfence-tma-store]
// CHECK: :38:5: note: generic-proxy write to 'tile' here
// CHECK: :41:3: note: insert 'asm volatile("fence.proxy.async.shared::cta;" ::: "memory");' here
// CHECK-NOT: warning:
// CHECK: proxyfence: 2 findings in 1 file

// FIXED:      {{^    }}v += 1.0f;
// FIXED-NEXT: {{^  }$}}
// FIXED-NEXT: {{^  }}asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
// FIXED-NEXT: {{^  }}__syncthreads();
// FIXED:      {{^    }}asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
// FIXED-NEXT: {{^  }}asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
// FIXED-NEXT: {{^  }}__syncthreads();
// FIXED:      {{^    }}asm volatile("fence.proxy.async;" ::: "memory");
// FIXED-NEXT: {{^  }$}}
// FIXED-NEXT: {{^  }}__syncthreads();

// CLEAN: proxyfence: 0 findings in 1 file
