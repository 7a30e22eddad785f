// A 128-bit load of shared memory as a struct that the compiler copies
// bitwise, here one with a variant member (CUTLASS's `uint128_t`, the
// element type of CuTe's vectorised shared-to-register copies): Sema gives
// its trivial copy constructor no body, and the copy is still a generic read.
// Reading the tile that way, then letting a TMA load overwrite it after a
// thread barrier, is a write-after-read hazard; the fix puts the fence
// before the barrier, and the fixed file is clean.
// RUN: cp %s %t.cu
// RUN: not %proxyfence %t.cu -- 2>&1 | FileCheck %s
// CHECK: vector-struct-copy.cu.tmp.cu:[[@LINE+27]]:5: warning: TMA load overwrites shared memory 'tile' read through the generic proxy with no fence.proxy.async on the path [proxyfence-async-overwrite]
// CHECK: vector-struct-copy.cu.tmp.cu:[[@LINE+22]]:14: note: generic-proxy read of 'tile' here
// CHECK: proxyfence: 1 finding in 1 file
// RUN: %proxyfence --fix --quiet %t.cu --
// RUN: FileCheck --check-prefix=FIXED --input-file=%t.cu %s
// FIXED: fence.proxy.async.shared::cta
// FIXED-NEXT: __syncthreads();
// RUN: %proxyfence %t.cu -- 2>&1 | FileCheck --check-prefix=CLEAN %s
// CLEAN: proxyfence: 0 findings in 1 file
#include <cuda.h>

struct alignas(16) Vec128 {
  struct Halves { unsigned long long lo, hi; };
  union {
    Halves halves;
    unsigned __int128 native;
  };
};

__global__ void drain_then_refill(const __grid_constant__ CUtensorMap tmap,
                                  unsigned long long *out) {
  __shared__ alignas(128) float tile[1024];
  __shared__ alignas(8) unsigned long long bar;
  Vec128 v = *reinterpret_cast<const Vec128 *>(&tile[4 * threadIdx.x]);
  out[threadIdx.x] = v.halves.lo ^ v.halves.hi;
  __syncthreads();
  if (threadIdx.x == 0)
    asm volatile("cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3}], [%2];"
                 :: "r"((unsigned)__cvta_generic_to_shared(tile)), "l"(&tmap),
                    "r"((unsigned)__cvta_generic_to_shared(&bar)), "r"(0)
                 : "memory");
}
