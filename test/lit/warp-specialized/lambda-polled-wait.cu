// A barrier class whose wait polls through a lambda (`poll([&] { return
// try_wait(token); })`): the lambda's body reaches the barrier through the
// `this` it captured, which is the wait's own object, so the wait pairs with
// the producer role's arrive on the same field. Before, that `this` was
// taken for the lambda object's and the pair was a blind spot. Positive:
// writes, arrive, then (other role) wait and TMA store; the fix goes before
// the arrive. Negative: a different barrier object, or the fence in place.
// RUN: cp %s %t.cu
// RUN: not %proxyfence --stats %t.cu 2>&1 | FileCheck %s
// RUN: %proxyfence --fix --quiet %t.cu
// RUN: FileCheck --check-prefix=FIXED --input-file=%t.cu %s
// RUN: %proxyfence %t.cu 2>&1 | FileCheck --check-prefix=CLEAN %s
#include <cuda.h>
#include <cstdint>

struct Barrier {
  uint64_t word;
  __device__ uint64_t *addr() { return &word; }
  __device__ uint64_t arrive() {
    uint64_t token;
    asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1];"
                 : "=l"(token) : "l"(addr()) : "memory");
    return token;
  }
  __device__ bool try_wait(uint64_t token) {
    uint32_t ready;
    asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.shared::cta.b64 p, [%1], %2;\n"
                 "selp.b32 %0, 1, 0, p;\n}\n"
                 : "=r"(ready) : "l"(addr()), "l"(token) : "memory");
    return ready != 0;
  }
  template <typename Ready> __device__ static void poll(Ready &&ready) {
    while (!ready()) {
    }
  }
  __device__ void wait(uint64_t token) {
    poll([&]() { return try_wait(token); });
  }
};

struct Storage {
  alignas(128) float tile[256];
  Barrier produced, other;
};

__device__ void tma_store(const CUtensorMap *tmap, const void *src) {
  uint32_t s = static_cast<uint32_t>(__cvta_generic_to_shared(src));
  asm volatile("cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [%0, {%2}], [%1];"
               :: "l"(tmap), "r"(s), "r"(0) : "memory");
}

__global__ void handoff(const __grid_constant__ CUtensorMap tmap) {
  extern __shared__ __align__(128) char smem[];
  Storage &s = *reinterpret_cast<Storage *>(smem);
  if (threadIdx.x < 128) {
    s.tile[threadIdx.x] = 1.0f;
    s.produced.arrive();
    // FIXED: s.tile[threadIdx.x] = 1.0f;
    // FIXED-NEXT: asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    // FIXED-NEXT: s.produced.arrive();
  } else if (threadIdx.x == 128) {
    s.produced.wait(0);
    tma_store(&tmap, s.tile);
    // CHECK: .cu:[[@LINE-1]]:5: warning: TMA store reads shared memory 'Storage::tile' written through the generic proxy
  }
}

// The store waits on another barrier: not this hand-off.
__global__ void other_barrier(const __grid_constant__ CUtensorMap tmap) {
  extern __shared__ __align__(128) char smem[];
  Storage &s = *reinterpret_cast<Storage *>(smem);
  if (threadIdx.x < 128) {
    s.tile[threadIdx.x] = 1.0f;
    s.produced.arrive();
  } else if (threadIdx.x == 128) {
    s.other.wait(0);
    tma_store(&tmap, s.tile);
  }
}

// CHECK: proxyfence: 1 finding in 1 file
// CHECK: role synchronisations matched: 0 named barrier, 1 mbarrier; unmatched: 0
// CLEAN: proxyfence: 0 findings in 1 file
