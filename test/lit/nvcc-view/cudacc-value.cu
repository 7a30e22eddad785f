// nvcc defines __CUDACC__ as 1, so headers test it with `#if __CUDACC__`
// (NCCL's nccl_device/utility.h). Clang's CUDA wrapper defines it empty,
// which makes that line an error and drops what follows; the nvcc view
// defines it as nvcc does, and the kernel below is analysed.
// RUN: not %proxyfence %s 2>&1 | FileCheck %s
// RUN: %proxyfence --no-nvcc-view --stats %s 2>&1 | FileCheck --check-prefix=OFF %s
// RUN: %nvcc-sm90a -cubin -o /dev/null %s
#include <cstdint>

#if __CUDACC__
#define DEVICE_INLINE __device__ __forceinline__
#else
#define DEVICE_INLINE inline
#endif

DEVICE_INLINE void tma_store(void *gmem, const void *smem, uint32_t bytes) {
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;"
               :: "l"(gmem), "r"((uint32_t)__cvta_generic_to_shared(smem)),
                  "r"(bytes) : "memory");
}

__global__ void store_tile(float *out) {
  __shared__ alignas(128) float tile[256];
  tile[threadIdx.x] = out[threadIdx.x] * 2.0f;
  __syncthreads();
  if (threadIdx.x == 0)
    tma_store(out, tile, sizeof(tile));
// CHECK: .cu:[[#@LINE-1]]:5: warning: {{.*}}[proxyfence-tma-store]
}
// CHECK: proxyfence: 1 finding in 1 file
// OFF: first: {{.*}}cudacc-value.cu:10:15: expected value in expression
