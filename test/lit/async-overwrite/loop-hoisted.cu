// A staging buffer cleared with plain stores once, then refilled by a bulk
// load and drained by a bulk store (both async proxy) every iteration. The
// write-after-write hazard is with the clear only, so the fence is hoisted
// out of the loop; a read inside the loop keeps it in (second kernel). The
// bulk store of the first kernel is reported too (proxyfence-tma-store): a
// partial refill would leave cleared bytes for it to read; one fence fixes
// both.
// REQUIRES: nvcc
// RUN: cp %s %t.cu
// RUN: not %proxyfence %t.cu -- -I%S/Inputs 2>&1 | FileCheck %s
// RUN: %proxyfence --fix --quiet %t.cu -- -I%S/Inputs
// RUN: FileCheck --check-prefix=FIXED --input-file=%t.cu %s
// RUN: cp %t.cu %t.again.cu
// RUN: %proxyfence --fix --quiet %t.again.cu -- -I%S/Inputs
// RUN: cmp %t.cu %t.again.cu
// RUN: %proxyfence %t.cu -- -I%S/Inputs 2>&1 | FileCheck --check-prefix=CLEAN %s
// RUN: %nvcc-sm90a -I%S/Inputs -cubin -o /dev/null %t.cu
#include "mbar.h"

constexpr int TILE = 1024;

__device__ __forceinline__ void bulk_store(float *dst, const void *src,
                                           uint32_t bytes) {
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;"
               :: "l"(dst), "r"(smem_u32(src)), "r"(bytes) : "memory");
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
  asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
}

__global__ void copy_through_smem(const float *in, float *out, int ntiles) {
  __shared__ alignas(128) float buf[TILE];
  __shared__ alignas(8) uint64_t full;
  for (int i = threadIdx.x; i < TILE; i += blockDim.x)
    buf[i] = 0.f;
  if (threadIdx.x == 0)
    mbar_init(&full, 1);
  for (int t = 0; t < ntiles; ++t) {
    __syncthreads();
    if (threadIdx.x == 0) {
      mbar_expect_tx(&full, sizeof(buf));
      bulk_load(buf, in + size_t(t) * TILE, sizeof(buf), &full);
      mbar_wait(&full, t & 1);
      bulk_store(out + size_t(t) * TILE, buf, sizeof(buf));
    }
  }
}

// Every thread also reads the tile in the loop: the fence stays inside,
// after the reads and before the barrier.
__global__ void copy_and_sum(const float *in, float *out, float *sums,
                             int ntiles) {
  __shared__ alignas(128) float buf[TILE];
  __shared__ alignas(8) uint64_t full;
  if (threadIdx.x == 0)
    mbar_init(&full, 1);
  float acc = 0.f;
  for (int t = 0; t < ntiles; ++t) {
    __syncthreads();
    if (threadIdx.x == 0) {
      mbar_expect_tx(&full, sizeof(buf));
      bulk_load(buf, in + size_t(t) * TILE, sizeof(buf), &full);
    }
    mbar_wait(&full, t & 1);
    for (int i = threadIdx.x; i < TILE; i += blockDim.x)
      acc += buf[i];
  }
  sums[threadIdx.x] = acc;
}

// CHECK: loop-hoisted.cu.tmp.cu:41:7: warning: bulk async load overwrites shared memory 'buf' written through the generic proxy with no fence.proxy.async on the path [proxyfence-async-overwrite]
// CHECK: mbar.h:31:3: note: bulk async load issued here, inside 'bulk_load'
// CHECK: :34:5: note: generic-proxy write to 'buf' here
// CHECK: :38:5: note: this barrier orders threads, not proxies; insert the fence before it
// CHECK: :37:3: note: insert 'asm volatile("fence.proxy.async.shared::cta;" ::: "memory");' here, before the loop: no write happens inside it
// CHECK: loop-hoisted.cu.tmp.cu:43:7: warning: bulk async store reads shared memory 'buf' written through the generic proxy with no fence.proxy.async on the path [proxyfence-tma-store]
// CHECK: :37:3: note: insert 'asm volatile("fence.proxy.async.shared::cta;" ::: "memory");' here, before the loop: no write happens inside it
// CHECK: loop-hoisted.cu.tmp.cu:61:7: warning: bulk async load overwrites shared memory 'buf' read through the generic proxy with no fence.proxy.async on the path [proxyfence-async-overwrite]
// CHECK: :65:14: note: generic-proxy read of 'buf' here
// CHECK: :58:5: note: this barrier orders threads, not proxies; insert the fence before it
// CHECK: :58:5: note: insert 'asm volatile("fence.proxy.async.shared::cta;" ::: "memory");' here{{$}}
// CHECK: proxyfence: 3 findings in 1 file

// FIXED:      mbar_init(&full, 1);
// FIXED-NEXT: {{^  }}asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
// FIXED-NEXT: {{^  }}for (int t = 0; t < ntiles; ++t) {
// FIXED-NEXT: {{^    }}__syncthreads();
// FIXED:      for (int t = 0; t < ntiles; ++t) {
// FIXED-NEXT: {{^    }}asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
// FIXED-NEXT: {{^    }}__syncthreads();

// CLEAN: proxyfence: 0 findings in 1 file
