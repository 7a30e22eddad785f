// In a namespace that declares any `operator&` or `operator*` (bitmask
// enums, or `using namespace cute;`), a template pattern's `&s.c[i]` and
// `*reinterpret_cast<Storage *>(p)` on operands of dependent type are
// unresolved operator calls, not built-in address-of and indirection. They
// are read as the built-in ones: the address names the member, so the
// store into `c` is reported against the TMA store that reads `c`, and the
// stores into `a` in `separate` do not alias `c` (once, every member of the
// storage did).
// RUN: cp %s %t.cu
// RUN: not %proxyfence %t.cu -- 2>&1 | FileCheck %s
// CHECK: unresolved-unary-operators.cu.tmp.cu:[[@LINE+38]]:7: warning: TMA store reads shared memory 'Storage::c' written through the generic proxy with no fence.proxy.async on the path [proxyfence-tma-store]
// CHECK: unresolved-unary-operators.cu.tmp.cu:[[@LINE+34]]:5: note: generic-proxy write to 'Storage::c' here
// CHECK-NOT: warning:
// CHECK: proxyfence: 1 finding in 1 file
// RUN: %proxyfence --fix --quiet %t.cu --
// RUN: %proxyfence %t.cu -- 2>&1 | FileCheck --check-prefix=CLEAN %s
// CLEAN: proxyfence: 0 findings in 1 file
// RUN: %nvcc-sm90a -cubin -o /dev/null %s
// REQUIRES: nvcc
#include <cstdint>

namespace gemm {
enum class Flags : unsigned { kNone = 0, kA = 1, kB = 2 };
__host__ __device__ constexpr Flags operator&(Flags x, Flags y) {
  return Flags(unsigned(x) & unsigned(y));
}
__host__ __device__ constexpr Flags operator*(Flags x, Flags y) {
  return Flags(unsigned(x) * unsigned(y));
}

__device__ inline void tma_store(const void *map, const void *src) {
  asm volatile("cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [%0, {%1}], [%2];"
               :: "l"(map), "r"(0), "r"((unsigned)__cvta_generic_to_shared(src)) : "memory");
}

template <class T, int kTileM, int kTileN>
struct Epilogue {
  struct Storage {
    T a[kTileM * kTileN];
    T c[kTileM * kTileN];
  };
  // Writes `c` and stores `c`: the fence is missing.
  __device__ void same(const void *map, char *smem) {
    Storage &s = *reinterpret_cast<Storage *>(smem);
    T *out = &s.c[threadIdx.y * kTileN];
    out[threadIdx.x] = T(1);
    __syncthreads();
    if (threadIdx.x == 0)
      tma_store(map, &s.c[threadIdx.y * kTileN]);
  }
  // Writes `a`, stores `c`: different members, nothing to fence.
  __device__ void separate(const void *map, char *smem) {
    Storage &s = *reinterpret_cast<Storage *>(smem);
    T *in = &s.a[threadIdx.y * kTileN];
    in[threadIdx.x] = T(2);
    __syncthreads();
    if (threadIdx.x == 0)
      tma_store(map, &s.c[threadIdx.y * kTileN]);
  }
};
} // namespace gemm
