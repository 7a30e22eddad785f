// An asm operand number past the statement's operands (`%7` of four: a
// copy-paste slip in a cache-hint variant that nothing instantiates). nvcc
// rejects it only in code it instantiates; clang rejects it as it parses
// and drops the statement, so the TMA store of a kernel template that uses
// the variant was not seen. The nvcc view escapes the number in memory: the
// statement is read, the finding reported, and --fix edits the file on
// disk with that number as written.
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/k.cu
// RUN: not %proxyfence --stats %t/k.cu 2>&1 | FileCheck %s
// RUN: %proxyfence --fix --quiet %t/k.cu
// RUN: FileCheck --check-prefix=FIXED --input-file=%t/k.cu %s
// RUN: %proxyfence %t/k.cu 2>&1 | FileCheck --check-prefix=CLEAN %s
// REQUIRES: nvcc
// RUN: %nvcc-sm90a -cubin -o /dev/null %t/k.cu
#include <cuda.h>
#include <cstdint>

template <class T>
__device__ void tma_store_hinted(const CUtensorMap *map, const T *src, int x,
                                 uint64_t policy) {
  uint32_t s = static_cast<uint32_t>(__cvta_generic_to_shared(src));
  asm volatile("cp.async.bulk.tensor.1d.global.shared::cta.bulk_group.L2::cache_hint [%0, {%2}], [%1], %7;"
               :: "l"(map), "r"(s), "r"(x), "l"(policy) : "memory");
}

template <class T>
__global__ void store_tile(const __grid_constant__ CUtensorMap map, T v,
                           uint64_t policy) {
  __shared__ alignas(128) T tile[256];
  tile[threadIdx.x] = v;
  __syncthreads();
  if (threadIdx.x == 0)
    tma_store_hinted(&map, tile, 0, policy);
}

// CHECK: k.cu:[[#@LINE-3]]:5: warning: TMA store reads shared memory 'tile' {{.*}}[proxyfence-tma-store]
// CHECK: proxyfence: 1 finding in 1 file
// CHECK-NOT: not fully analysed
// CHECK: code dropped by front-end errors: 0; asm rejections repaired for clang: 1
// FIXED: [%0, {%2}], [%1], %7;"
// FIXED: fence.proxy.async
// FIXED-NEXT: __syncthreads();
// CLEAN: proxyfence: 0 findings in 1 file
