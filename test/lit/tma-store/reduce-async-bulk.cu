// cp.reduce.async.bulk reads its shared-memory source through the async
// proxy like a store does: tensor and non-tensor forms are both reported.
// REQUIRES: nvcc
// RUN: cp %s %t.cu
// RUN: not %proxyfence %t.cu 2>&1 | FileCheck %s
// RUN: %proxyfence --fix --quiet %t.cu
// RUN: FileCheck --check-prefix=FIXED --input-file=%t.cu %s
// RUN: %proxyfence %t.cu 2>&1 | FileCheck --check-prefix=CLEAN %s
// RUN: %nvcc-sm90a -cubin -o /dev/null %t.cu
#include <cuda.h>
#include <cstdint>

__global__ void tensor_reduce(const __grid_constant__ CUtensorMap tmap, float v) {
  __shared__ alignas(128) float tile[1024];
  for (int i = threadIdx.x; i < 1024; i += blockDim.x)
    tile[i] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    uint32_t smem = static_cast<uint32_t>(__cvta_generic_to_shared(tile));
    asm volatile("cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group [%0, {%2, %3}], [%1];"
                 :: "l"(&tmap), "r"(smem), "r"(0), "r"(0) : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
  }
}

__global__ void bulk_reduce(float *out, float v) {
  __shared__ alignas(128) float tile[1024];
  for (int i = threadIdx.x; i < 1024; i += blockDim.x)
    tile[i] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    uint32_t smem = static_cast<uint32_t>(__cvta_generic_to_shared(tile));
    asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [%0], [%1], %2;"
                 :: "l"(out), "r"(smem), "r"(4096) : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
  }
}

// Fenced reduction: nothing to report.
__global__ void fenced_reduce(float *out, float v) {
  __shared__ alignas(128) float tile[1024];
  for (int i = threadIdx.x; i < 1024; i += blockDim.x)
    tile[i] = v;
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (threadIdx.x == 0) {
    uint32_t smem = static_cast<uint32_t>(__cvta_generic_to_shared(tile));
    asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [%0], [%1], %2;"
                 :: "l"(out), "r"(smem), "r"(4096) : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
  }
}
// CHECK: reduce-async-bulk.cu.tmp.cu:20:5: warning: bulk async reduction reads shared memory 'tile' written through the generic proxy with no fence.proxy.async on the path [proxyfence-tma-store]
// CHECK: :16:5: note: generic-proxy write to 'tile' here
// CHECK: :17:3: note: insert 'asm volatile("fence.proxy.async.shared::cta;" ::: "memory");' here
// CHECK-NOT: warning:
// CHECK: reduce-async-bulk.cu.tmp.cu:33:5: warning: bulk async reduction reads shared memory 'tile' written through the generic proxy with no fence.proxy.async on the path [proxyfence-tma-store]
// CHECK: :29:5: note: generic-proxy write to 'tile' here
// CHECK: :30:3: note: insert 'asm volatile("fence.proxy.async.shared::cta;" ::: "memory");' here
// CHECK-NOT: warning:
// CHECK: proxyfence: 2 findings in 1 file

// FIXED:      {{^    }}tile[i] = v;
// FIXED-NEXT: {{^  }}asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
// FIXED-NEXT: {{^  }}__syncthreads();
// FIXED:      {{^    }}tile[i] = v;
// FIXED-NEXT: {{^  }}asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
// FIXED-NEXT: {{^  }}__syncthreads();
// FIXED:      {{^    }}tile[i] = v;
// FIXED-NEXT: {{^  }}asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
// FIXED-NEXT: {{^  }}__syncthreads();

// CLEAN: proxyfence: 0 findings in 1 file
