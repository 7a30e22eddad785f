// Where the fence goes relative to loops. The tile written once before a
// loop that syncs and stores on every iteration gets its fence before the
// loop (it runs once); a tile rewritten in the loop gets it in the loop,
// after the writes, before the barrier.
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

__global__ void writes_before_loop(const __grid_constant__ CUtensorMap tmap, float v, int reps) {
  __shared__ alignas(128) float tile[1024];
  int tid = threadIdx.x;
  for (int i = tid; i < 1024; i += blockDim.x)
    tile[i] = v;
  for (int r = 0; r < reps; ++r) {
    __syncthreads();
    if (tid == 0)
      tma_store(&tmap, tile, r * 32);
  }
}

__global__ void writes_in_loop(const __grid_constant__ CUtensorMap tmap, const float *in, int reps) {
  __shared__ alignas(128) float tile[1024];
  int tid = threadIdx.x;
  for (int r = 0; r < reps; ++r) {
    for (int i = tid; i < 1024; i += blockDim.x)
      tile[i] = in[r * 1024 + i];
    __syncthreads();
    if (tid == 0) {
      tma_store(&tmap, tile, r * 32);
      asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
    }
    __syncthreads();
  }
}

// Nested loops with no write inside either: hoisted out of both.
__global__ void nested(const __grid_constant__ CUtensorMap tmap, float v, int reps) {
  __shared__ alignas(128) float tile[1024];
  tile[threadIdx.x] = v;
  for (int r = 0; r < reps; ++r)
    for (int c = 0; c < 4; ++c) {
      __syncthreads();
      if (threadIdx.x == 0)
        tma_store(&tmap, tile, r * 128 + c * 32);
    }
}

// Already fenced before the loop: nothing to report.
__global__ void fenced_before_loop(const __grid_constant__ CUtensorMap tmap, float v, int reps) {
  __shared__ alignas(128) float tile[1024];
  tile[threadIdx.x] = v;
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  for (int r = 0; r < reps; ++r) {
    __syncthreads();
    if (threadIdx.x == 0)
      tma_store(&tmap, tile, r * 32);
  }
}
// CHECK: hoist-loop.cu.tmp.cu:30:7: warning: TMA store reads shared memory 'tile' written through the generic proxy with no fence.proxy.async on the path [proxyfence-tma-store]
// CHECK: :26:5: note: generic-proxy write to 'tile' here
// CHECK: :28:5: note: this barrier orders threads, not proxies; insert the fence before it
// CHECK: :27:3: note: insert 'asm volatile("fence.proxy.async.shared::cta;" ::: "memory");' here, before the loop: no write happens inside it
// CHECK-NOT: warning:
// CHECK: hoist-loop.cu.tmp.cu:42:7: warning: TMA store reads shared memory 'tile' written through the generic proxy with no fence.proxy.async on the path [proxyfence-tma-store]
// CHECK: :39:7: note: generic-proxy write to 'tile' here
// CHECK: :40:5: note: this barrier orders threads, not proxies; insert the fence before it
// CHECK: :40:5: note: insert 'asm volatile("fence.proxy.async.shared::cta;" ::: "memory");' here{{$}}
// CHECK-NOT: warning:
// CHECK: hoist-loop.cu.tmp.cu:57:9: warning: TMA store reads shared memory 'tile' written through the generic proxy
// CHECK: :52:3: note: generic-proxy write to 'tile' here
// CHECK: :53:3: note: insert 'asm volatile("fence.proxy.async.shared::cta;" ::: "memory");' here, before the loop: no write happens inside it
// CHECK-NOT: warning:
// CHECK: proxyfence: 3 findings in 1 file

// FIXED:      {{^    }}tile[i] = v;
// FIXED-NEXT: {{^  }}asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
// FIXED-NEXT: {{^  }}for (int r = 0; r < reps; ++r) {
// FIXED-NEXT: {{^    }}__syncthreads();
// FIXED:      {{^      }}tile[i] = in[r * 1024 + i];
// FIXED-NEXT: {{^    }}asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
// FIXED-NEXT: {{^    }}__syncthreads();
// FIXED:      {{^  }}tile[threadIdx.x] = v;
// FIXED-NEXT: {{^  }}asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
// FIXED-NEXT: {{^  }}for (int r = 0; r < reps; ++r)
// FIXED-NEXT: {{^    }}for (int c = 0; c < 4; ++c) {
// FIXED-NEXT: {{^      }}__syncthreads();
// FIXED:      {{^  }}tile[threadIdx.x] = v;
// FIXED-NEXT: {{^  }}asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
// FIXED-NEXT: {{^  }}for (int r = 0; r < reps; ++r) {
// FIXED-NEXT: {{^    }}__syncthreads();

// CLEAN: proxyfence: 0 findings in 1 file
