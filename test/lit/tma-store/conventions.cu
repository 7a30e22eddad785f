// Both conventions of correct code are accepted (proxy-fences.md, section 2):
// the writers fence and then sync, or the issuing thread fences right before
// the store. No finding, exit 0, and --fix leaves the file alone.
// REQUIRES: nvcc
// RUN: cp %s %t.cu
// RUN: %proxyfence %t.cu 2>&1 | FileCheck %s
// RUN: %proxyfence --fix %t.cu 2>&1 | FileCheck --check-prefix=FIX %s
// RUN: cmp %s %t.cu
// RUN: %nvcc-sm90a -cubin -o /dev/null %t.cu
#include <cuda.h>
#include <cstdint>

__device__ __forceinline__ void tma_store(const CUtensorMap *tmap, const void *src) {
  uint32_t smem = static_cast<uint32_t>(__cvta_generic_to_shared(src));
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];"
               :: "l"(tmap), "r"(smem), "r"(0), "r"(0) : "memory");
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}

// Convention 1 (CUTLASS, CCCL, DeepGEMM): every writer fences, then syncs.
__global__ void writers_fence(const __grid_constant__ CUtensorMap tmap, float v) {
  __shared__ alignas(128) float tile[1024];
  for (int i = threadIdx.x; i < 1024; i += blockDim.x)
    tile[i] = v;
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (threadIdx.x == 0)
    tma_store(&tmap, tile);
}

// Convention 2 (ThunderKittens): the issuing thread fences after the sync.
__global__ void issuer_fences(const __grid_constant__ CUtensorMap tmap, float v) {
  __shared__ alignas(128) float tile[1024];
  for (int i = threadIdx.x; i < 1024; i += blockDim.x)
    tile[i] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    tma_store(&tmap, tile);
  }
}

// Convention 2 inside a store wrapper.
__device__ __forceinline__ void fenced_store(const CUtensorMap *tmap, const void *src) {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  tma_store(tmap, src);
}
__global__ void wrapper_fences(const __grid_constant__ CUtensorMap tmap, float v) {
  __shared__ alignas(128) float tile[1024];
  for (int i = threadIdx.x; i < 1024; i += blockDim.x)
    tile[i] = v;
  __syncthreads();
  if (threadIdx.x == 0)
    fenced_store(&tmap, tile);
}

// The unscoped and the cluster-scoped fence order shared memory too.
__global__ void other_scopes(const __grid_constant__ CUtensorMap tmap, float v, bool cluster) {
  __shared__ alignas(128) float tile[1024];
  tile[threadIdx.x] = v;
  if (cluster)
    asm volatile("fence.proxy.async.shared::cluster;" ::: "memory");
  else
    asm volatile("fence.proxy.async;" ::: "memory");
  __syncthreads();
  if (threadIdx.x == 0)
    tma_store(&tmap, tile);
}
// CHECK-NOT: warning:
// CHECK: proxyfence: 0 findings in 1 file

// FIX-NOT: warning:
// FIX: proxyfence: 0 findings in 1 file, 0 fixed, 0 left
