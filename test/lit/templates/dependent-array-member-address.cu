// In a template pattern, naming an array member of a storage struct of
// dependent type (`reinterpret_cast<uint64_t *>(s.full_bar)`) takes its
// address: the array decays to a pointer and nothing is loaded. A bulk load
// that later refills the whole struct overwrites no generic read there; it
// does overwrite the element of `tile` the threads read before it.
// RUN: %proxyfence %s -- -DADDRESS_ONLY 2>&1 | FileCheck --check-prefix=ADDRESS %s
// ADDRESS: proxyfence: 0 findings in 1 file
// RUN: not %proxyfence %s -- 2>&1 | FileCheck %s
// CHECK: dependent-array-member-address.cu:[[@LINE+28]]:5: warning: bulk async load overwrites shared memory 'Storage::tile' read through the generic proxy with no fence.proxy.async on the path [proxyfence-async-overwrite]
// CHECK-NOT: full_bar
// CHECK: proxyfence: 1 finding in 1 file
// RUN: %nvcc-sm90a -cubin -o /dev/null %s
// REQUIRES: nvcc
#include <cstdint>

__device__ inline void bulk_load(void *dst, const void *src, unsigned bytes,
                                 uint64_t *bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
               :: "r"((unsigned)__cvta_generic_to_shared(dst)), "l"(src), "r"(bytes),
                  "r"((unsigned)__cvta_generic_to_shared(bar)) : "memory");
}

template <class T, int N> struct Storage {
  alignas(16) uint64_t full_bar[2];
  T tile[N];
};

template <class T, int N>
__device__ void reload(const void *src, char *smem, float *out) {
  auto &s = *reinterpret_cast<Storage<T, N> *>(smem);
  uint64_t *bar = reinterpret_cast<uint64_t *>(s.full_bar);
#ifndef ADDRESS_ONLY
  out[threadIdx.x] = s.tile[threadIdx.x];
#endif
  __syncthreads();
  if (threadIdx.x == 0)
    bulk_load(&s, src, sizeof(s), bar);
}
