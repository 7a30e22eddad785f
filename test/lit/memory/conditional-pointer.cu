// A pointer chosen between two buffers (`odd ? b : a`, double buffering)
// holds either: both arms are lvalues of one type, so the choice is an
// lvalue loaded after it, and what it points to is what either variable
// holds. A write through it before a TMA store of either buffer needs the
// fence; the fix goes after the write, and fenced code is clean.
// RUN: cp %s %t.cu
// RUN: not %proxyfence %t.cu 2>&1 | FileCheck %s
// RUN: %proxyfence --fix --quiet %t.cu
// RUN: FileCheck --check-prefix=FIXED --input-file=%t.cu %s
// RUN: %proxyfence %t.cu 2>&1 | FileCheck --check-prefix=CLEAN %s
#include <cuda.h>
#include <cstdint>

struct Stage {
  alignas(128) float buf[256];
};

__device__ __forceinline__ void tma_store(const CUtensorMap *tmap, const void *src) {
  uint32_t smem = static_cast<uint32_t>(__cvta_generic_to_shared(src));
  asm volatile("cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [%0, {%2}], [%1];"
               :: "l"(tmap), "r"(smem), "r"(0) : "memory");
}

__global__ void double_buffered(const __grid_constant__ CUtensorMap tmap, int iters) {
  extern __shared__ __align__(128) char smem[];
  Stage *a = reinterpret_cast<Stage *>(smem);
  Stage *b = reinterpret_cast<Stage *>(smem + sizeof(Stage));
  for (int i = 0; i < iters; ++i) {
    Stage *cur = (i & 1) ? b : a;
    cur->buf[threadIdx.x] = float(i);
    __syncthreads();
    if (threadIdx.x == 0)
      tma_store(&tmap, a->buf);
    // CHECK: .cu:[[@LINE-1]]:7: warning: TMA store reads shared memory 'Stage::buf' written through the generic proxy
    // CHECK: .cu:[[@LINE-5]]:5: note: generic-proxy write to 'Stage::buf' here
    // FIXED: cur->buf[threadIdx.x] = float(i);
    // FIXED-NEXT: asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    // FIXED-NEXT: __syncthreads();
    asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
    __syncthreads();
  }
}

// The same choice with the fence in place: nothing to report.
__global__ void double_buffered_fenced(const __grid_constant__ CUtensorMap tmap, int iters) {
  extern __shared__ __align__(128) char smem[];
  Stage *a = reinterpret_cast<Stage *>(smem);
  Stage *b = reinterpret_cast<Stage *>(smem + sizeof(Stage));
  for (int i = 0; i < iters; ++i) {
    Stage *cur = (i & 1) ? b : a;
    cur->buf[threadIdx.x] = float(i);
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    if (threadIdx.x == 0)
      tma_store(&tmap, b->buf);
    asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
    __syncthreads();
  }
}

// CHECK: proxyfence: 1 finding in 1 file
// CLEAN: proxyfence: 0 findings in 1 file
