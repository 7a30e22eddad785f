// What nvcc accepts and clang rejects is repaired in memory, in headers and
// in the main file: findings keep the file's own lines and columns, --fix
// edits the bytes on disk, and nothing else of either file changes.
// RUN: rm -rf %t && mkdir -p %t && cp %S/Inputs/ptx_helpers.h %t/ && cp %s %t/k.cu
// RUN: not %proxyfence --stats %t/k.cu 2>&1 | FileCheck %s
// RUN: %proxyfence --fix --quiet %t/k.cu
// RUN: cmp %S/Inputs/ptx_helpers.h %t/ptx_helpers.h
// RUN: FileCheck --check-prefix=FIXED --input-file=%t/k.cu %s
// RUN: %proxyfence %t/k.cu 2>&1 | FileCheck --check-prefix=CLEAN %s
// Without the repairs clang drops the statements: nothing to find.
// RUN: %proxyfence --stats %S/Inputs/ptx_helpers.h -- -x cuda 2>&1 | FileCheck --check-prefix=HEADER %s
#include "ptx_helpers.h"

__global__ void store_tile(float *out, float v) {
  __shared__ alignas(128) float tile[256];
  unsigned long long t;
  tile[threadIdx.x] = v;
  __syncthreads();
  // Repaired on this line, before the call: the call keeps its column, 72.
  asm volatile("mov.u64 %0, %clock64;" : "=l"(t)); if (lane_id() == 0) bulk_store(out, tile, 1024);
  // Basic asm has no operands, so '%' is no escape: clang accepts it as is.
  asm volatile("mov.u32 %r1, %laneid;");
  printf("%lu\n", t);
}

// CHECK: k.cu:20:72: warning: {{.*}}[proxyfence-tma-store]
// CHECK: proxyfence: 1 finding in 1 file
// CHECK-NOT: not fully analysed
// CHECK: stats: device functions: 3, stubs: 0, code dropped by front-end errors: 0; asm rejections repaired for clang: 3

// FIXED: asm volatile("mov.u64 %0, %clock64;" : "=l"(t)); if (lane_id() == 0) bulk_store(out, tile, 1024);
// FIXED: asm volatile("mov.u32 %r1, %laneid;");
// CLEAN: proxyfence: 0 findings in 1 file

// HEADER: stats: device functions: 2, stubs: 0, code dropped by front-end errors: 0; asm rejections repaired for clang: 2
