// A pattern whose write sits inside `if constexpr (!RS)` and whose fence
// sits inside `if constexpr (!RS || (Stages == 1 && RS))`, as in
// FlashAttention-3's backward step. An instantiation that writes took the
// `!RS` arm, so it also takes the fence's: the write is fenced on every
// path an instantiation can run (no finding). The arm an access was made
// in counts like the arms its path took after it. Also: members of a
// storage of template-parameter type are told apart by their innermost
// name (`s.tensors.p` against `s.tensors.ds`), so a write to one does not
// reach a TMA store of the other; a write to the stored one does, and so
// does a write to a member of the stored one.
// RUN: not %proxyfence %s 2>&1 | FileCheck %s
// REQUIRES: nvcc
// RUN: %nvcc-sm90a -cubin -o /dev/null %s
#include <cuda.h>
#include <cstdint>

__device__ inline void fence_async() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}
__device__ inline void tma_store(const CUtensorMap *tmap, const void *src) {
  uint32_t smem = static_cast<uint32_t>(__cvta_generic_to_shared(src));
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];"
               :: "l"(tmap), "r"(smem), "r"(0), "r"(0) : "memory");
}

template <class Storage, bool RS, int Stages>
struct Step {
  __device__ void run(Storage &s, const CUtensorMap *tmap, float v) {
    if constexpr (!RS)
      s.tensors.p[threadIdx.x] = v;
    if constexpr (!RS || (Stages == 1 && RS)) {
      fence_async();
      __syncthreads();
    }
    if (threadIdx.x == 0)
      tma_store(tmap, s.tensors.p);
  }
  __device__ void sibling(Storage &s, const CUtensorMap *tmap, float v) {
    s.tensors.p[threadIdx.x] = v;
    __syncthreads();
    if (threadIdx.x == 0)
      tma_store(tmap, s.tensors.ds);
  }
  __device__ void same(Storage &s, const CUtensorMap *tmap, float v) {
    s.tensors.ds[threadIdx.x] = v;
    __syncthreads();
    if (threadIdx.x == 0)
      tma_store(tmap, s.tensors.ds);
    // CHECK: arm-of-the-access.cu:[[#@LINE-1]]:7: warning: TMA store reads shared memory 's.tensors.ds' written through the generic proxy
    // CHECK: arm-of-the-access.cu:[[#@LINE-5]]:5: note: generic-proxy write to 's.tensors.ds' here
  }
  // A member and the member holding it overlap.
  __device__ void whole(Storage &s, const CUtensorMap *tmap, float v) {
    s.tensors.p[threadIdx.x] = v;
    __syncthreads();
    if (threadIdx.x == 0)
      tma_store(tmap, &s.tensors);
    // CHECK: arm-of-the-access.cu:[[#@LINE-1]]:7: warning: TMA store reads shared memory 's.tensors.p' written through the generic proxy
  }
};
// CHECK-NOT: warning:
// CHECK: proxyfence: 2 findings in 1 file
