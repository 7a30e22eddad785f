// The same kind of pipeline written with the cuda::ptx wrappers: a TMA
// tensor load (cp_async_bulk_tensor) refills a stage that every thread read
// with plain loads (transposing it) before arriving on its "empty" mbarrier.
// The fix is spelled with cuda::ptx, in the consumer before its arrive.
// REQUIRES: nvcc
// RUN: cp %s %t.cu
// RUN: not %proxyfence %t.cu 2>&1 | FileCheck %s
// RUN: %proxyfence --fix --quiet %t.cu
// RUN: FileCheck --check-prefix=FIXED --input-file=%t.cu %s
// RUN: cp %t.cu %t.again.cu
// RUN: %proxyfence --fix --quiet %t.again.cu
// RUN: cmp %t.cu %t.again.cu
// RUN: %proxyfence %t.cu 2>&1 | FileCheck --check-prefix=CLEAN %s
// RUN: %nvcc-sm90a -cubin -o /dev/null %t.cu
#include <cuda.h>
#include <cuda/ptx>
#include <cstdint>

namespace ptx = cuda::ptx;

constexpr int STAGES = 3;
constexpr int ROWS = 32, COLS = 32;

__device__ __forceinline__ void wait_parity(uint64_t *bar, uint32_t parity) {
  while (!ptx::mbarrier_try_wait_parity(bar, parity)) {
  }
}

__global__ void transpose_tiles(const __grid_constant__ CUtensorMap tmap,
                                float *out, int ntiles) {
  __shared__ alignas(128) float stage[STAGES][ROWS * COLS];
  __shared__ alignas(8) uint64_t full[STAGES], empty[STAGES];
  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; ++s) {
      ptx::mbarrier_init(&full[s], 1);
      ptx::mbarrier_init(&empty[s], blockDim.x);
    }
  }
  __syncthreads();
  for (int t = 0; t < ntiles; ++t) {
    int s = t % STAGES;
    uint32_t phase = (t / STAGES) & 1;
    if (threadIdx.x == 0) {
      wait_parity(&empty[s], phase ^ 1);
      ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta,
                                     ptx::space_shared, &full[s],
                                     sizeof(stage[s]));
      const int32_t coords[2] = {0, t * ROWS};
      ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global,
                                stage[s], &tmap, coords, &full[s]);
    }
    wait_parity(&full[s], phase);
    for (int i = threadIdx.x; i < ROWS * COLS; i += blockDim.x) {
      int r = i / COLS, c = i % COLS;
      out[size_t(t) * ROWS * COLS + c * ROWS + r] = stage[s][i];
    }
    ptx::mbarrier_arrive(&empty[s]);
  }
}
// CHECK: pipeline-cuda-ptx.cu.tmp.cu:49:7: warning: TMA load overwrites shared memory 'stage' read through the generic proxy with no fence.proxy.async on the path [proxyfence-async-overwrite]
// CHECK: cp_async_bulk_tensor.h:{{[0-9]+}}:{{[0-9]+}}: note: TMA load issued here, inside 'cp_async_bulk_tensor'
// CHECK: :55:53: note: generic-proxy read of 'stage' here
// CHECK: :57:5: note: this barrier orders threads, not proxies; insert the fence before it
// CHECK: :57:5: note: insert 'cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);' here
// CHECK-NOT: warning:
// CHECK: proxyfence: 1 finding in 1 file

// FIXED:      out[size_t(t) * ROWS * COLS + c * ROWS + r] = stage[s][i];
// FIXED-NEXT: {{^    }}}
// FIXED-NEXT: {{^    }}cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
// FIXED-NEXT: {{^    }}ptx::mbarrier_arrive(&empty[s]);

// CLEAN: proxyfence: 0 findings in 1 file
