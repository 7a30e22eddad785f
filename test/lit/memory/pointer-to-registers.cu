// A local pointer into a register array (`auto u = reinterpret_cast<
// uint32_t *>(vals)`, common in packing and quantisation code) addresses
// that array, not the shared memory whose words are copied into it: a store
// through `u[k]` is a register store. Only reading a tile into registers
// before a TMA store of the same tile is not a hazard (read, then async
// read); writing the packed result back to the tile is, and the fix goes
// before the barrier.
// RUN: cp %s %t.cu
// RUN: %proxyfence %t.cu -- -DREAD_ONLY 2>&1 | FileCheck --check-prefix=READS %s
// READS-NOT: warning:
// READS: proxyfence: 0 findings in 1 file
// RUN: not %proxyfence %t.cu -- 2>&1 | FileCheck %s
// CHECK: pointer-to-registers.cu.tmp.cu:[[@LINE+40]]:5: warning: bulk async store reads dynamic shared memory written through the generic proxy with no fence.proxy.async on the path [proxyfence-tma-store]
// CHECK-NOT: pointer-to-registers.cu.tmp.cu:[[@LINE+18]]:{{[0-9]+}}: note: generic-proxy write
// CHECK: pointer-to-registers.cu.tmp.cu:[[@LINE+22]]:3: note: generic-proxy write to dynamic shared memory here
// CHECK: proxyfence: 1 finding in 1 file
// RUN: %proxyfence --fix --quiet %t.cu --
// RUN: FileCheck --check-prefix=FIXED --input-file=%t.cu %s
// FIXED: fence.proxy.async.shared::cta
// FIXED-NEXT: __syncthreads();
// RUN: %proxyfence %t.cu -- 2>&1 | FileCheck --check-prefix=CLEAN %s
// CLEAN: proxyfence: 0 findings in 1 file
#include <cuda.h>

template <int kN>
__device__ unsigned pack(void *buffer, int lane) {
  int4 vals[kN];
  const auto words = reinterpret_cast<unsigned *>(vals);
  const auto src = reinterpret_cast<unsigned *>(static_cast<unsigned char *>(buffer) + lane * 16 * kN);
  unsigned signs = 0;
  for (int k = 0; k < kN * 4; ++k) {
    words[k] = src[k];
    signs |= (words[k] >> 31) << k;
    words[k] &= 0x7fffffffu;
  }
#ifndef READ_ONLY
  reinterpret_cast<int4 *>(buffer)[lane] = vals[0];
#endif
  return signs;
}

__device__ void bulk_store(void *dst, const void *src, int bytes) {
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;"
               :: "l"(dst), "r"((unsigned)__cvta_generic_to_shared(src)), "r"(bytes) : "memory");
}

__global__ void pack_then_store(char *out, unsigned *signs) {
  extern __shared__ __align__(128) unsigned char smem[];
  unsigned char *tile = smem + 128;
  signs[threadIdx.x] = pack<2>(tile, threadIdx.x % 32);
  __syncthreads();
  if (threadIdx.x == 0)
    bulk_store(out, tile, 1024);
}
