// A loop that starts at a constant meeting a constant bound runs its body at
// least once: no thread takes the path that skips it. A fence in such a loop
// (one per cluster rank, per stage) ends the writes before it; a fence in a
// loop whose bound is a run-time value may be skipped.
// REQUIRES: nvcc
// RUN: not %proxyfence %s 2>&1 | FileCheck %s
// RUN: %nvcc-sm90a -cubin -o /dev/null %s
#include <cstdint>

__device__ __forceinline__ void fence_async_shared() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}
__device__ __forceinline__ void bulk_store(void *gmem, const void *smem,
                                           uint32_t bytes) {
  uint32_t s = static_cast<uint32_t>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;"
               :: "l"(gmem), "r"(s), "r"(bytes) : "memory");
}

template <int Ranks> __global__ void fence_per_rank(float *out) {
  __shared__ alignas(128) float tile[1024];
  for (int i = threadIdx.x; i < 1024; i += blockDim.x)
    tile[i] = float(i);
  #pragma unroll
  for (uint32_t r = 0; r < Ranks; ++r)
    fence_async_shared();
  __syncthreads();
  if (threadIdx.x == 0)
    bulk_store(out, tile, sizeof(tile));
}
template __global__ void fence_per_rank<1>(float *);
template __global__ void fence_per_rank<2>(float *);

// A bound that starts out unmet: the fence never runs.
// CHECK: loop-runs-once.cu:[[@LINE+9]]:{{[0-9]+}}: warning: bulk async store reads shared memory 'tile' written through the generic proxy
__global__ void fence_in_empty_loop(float *out) {
  __shared__ alignas(128) float tile[1024];
  for (int i = threadIdx.x; i < 1024; i += blockDim.x)
    tile[i] = float(i);
  for (int r = 4; r < 4; ++r)
    fence_async_shared();
  __syncthreads();
  if (threadIdx.x == 0)
    bulk_store(out, tile, sizeof(tile));
}

// A run-time bound: zero iterations are possible.
// CHECK: loop-runs-once.cu:[[@LINE+9]]:{{[0-9]+}}: warning: bulk async store reads shared memory 'tile' written through the generic proxy
__global__ void fence_in_runtime_loop(float *out, int ranks) {
  __shared__ alignas(128) float tile[1024];
  for (int i = threadIdx.x; i < 1024; i += blockDim.x)
    tile[i] = float(i);
  for (int r = 0; r < ranks; ++r)
    fence_async_shared();
  __syncthreads();
  if (threadIdx.x == 0)
    bulk_store(out, tile, sizeof(tile));
}
// Compared as unsigned, -1 does not meet the bound: the body never runs.
// CHECK: loop-runs-once.cu:[[@LINE+9]]:{{[0-9]+}}: warning: bulk async store reads shared memory 'tile' written through the generic proxy
__global__ void fence_in_loop_of_converted_start(float *out) {
  __shared__ alignas(128) float tile[1024];
  for (int i = threadIdx.x; i < 1024; i += blockDim.x)
    tile[i] = float(i);
  for (int r = -1; r < 2u; ++r)
    fence_async_shared();
  __syncthreads();
  if (threadIdx.x == 0)
    bulk_store(out, tile, sizeof(tile));
}
// A bound with its own branches (a condition of several CFG blocks): what
// follows the loop is still analysed.
// CHECK: loop-runs-once.cu:[[@LINE+9]]:{{[0-9]+}}: warning: bulk async store reads shared memory 'tile' written through the generic proxy
template <int Ranks> __global__ void write_after_capped_loop(float *out) {
  __shared__ alignas(128) float tile[1024];
  for (int r = 0; r < (Ranks > 4 ? 4 : Ranks); ++r)
    fence_async_shared();
  for (int i = threadIdx.x; i < 1024; i += blockDim.x)
    tile[i] = float(i);
  __syncthreads();
  if (threadIdx.x == 0)
    bulk_store(out, tile, sizeof(tile));
}
template __global__ void write_after_capped_loop<2>(float *);
// CHECK-NOT: warning:
// CHECK: proxyfence: 4 findings in 1 file
