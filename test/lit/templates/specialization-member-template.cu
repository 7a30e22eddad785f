// A class template's member function template, called on a specialization
// from a pattern: `Mma<128, 96>::foreach_C(acc, [&](const auto &c, int m,
// int n) {...})` in an epilogue that nothing instantiates. Sema declares the
// member template of `Mma<128, 96>` without a body; the body read is the
// one the class template declares, with the lambda bound to its callable
// parameter. The lambda's stores then reach the TMA store across a barrier;
// the fix goes before the barrier, and the fenced twin is clean.
// RUN: cp %s %t.cu
// RUN: not %proxyfence %t.cu -- 2>&1 | FileCheck %s
// CHECK: specialization-member-template.cu.tmp.cu:[[@LINE+42]]:7: warning: TMA store reads shared memory 'Storage::tile' written through the generic proxy with no fence.proxy.async on the path [proxyfence-tma-store]
// CHECK: specialization-member-template.cu.tmp.cu:[[@LINE+37]]:7: note: generic-proxy write to 'Storage::tile' here
// CHECK: proxyfence: 1 finding in 1 file
// RUN: %proxyfence --fix --quiet %t.cu --
// RUN: FileCheck --check-prefix=FIXED --input-file=%t.cu %s
// FIXED: fence.proxy.async.shared::cta
// FIXED-NEXT: __syncthreads();
// RUN: %proxyfence %t.cu -- 2>&1 | FileCheck --check-prefix=CLEAN %s
// CLEAN: proxyfence: 0 findings in 1 file
// RUN: %nvcc-sm90a -cubin -o /dev/null %s
// REQUIRES: nvcc
#include <cstdint>

__device__ inline void tma_store(const void *map, const void *src) {
  asm volatile("cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [%0, {%1}], [%2];"
               :: "l"(map), "r"(0), "r"((unsigned)__cvta_generic_to_shared(src)) : "memory");
}

template <int M, int N>
struct Mma {
  static constexpr int kIters = M / 64;
  template <class Frag, class Func>
  __device__ static void foreach_C(Frag &frag, Func &&func) {
    for (int i = 0; i < kIters; ++i)
      func(frag[i], i, i + 1);
  }
};

template <int kStages>
struct Epilogue {
  struct Storage {
    float tile[128 * 96];
    uint64_t full[kStages];
  };
  __device__ void store(const void *map, char *smem) {
    Storage &s = *reinterpret_cast<Storage *>(smem);
    float acc[2][8] = {};
    Mma<128, 96>::foreach_C(acc, [&](const auto &c, int m, int n) {
      s.tile[m * 96 + n + threadIdx.x] = c[0];
    });
    __syncthreads();
    if (threadIdx.x == 0)
      tma_store(map, s.tile);
  }
};
