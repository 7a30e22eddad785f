// An async operation written inside a lambda is reported where it is
// written, inside the lambda's body, with the lambda's call as a note: that
// is the line the kernel's author reads and the one a NOLINT goes on. The
// call stays where the two sides meet, and the fence goes before the barrier
// the threads cross.
// RUN: not %proxyfence --no-cache %s 2>&1 | FileCheck %s
// RUN: sed 's|tile); // here|tile); // NOLINT(proxyfence-tma-store)|' %s > %t.cu
// RUN: not %proxyfence --no-cache %t.cu 2>&1 | FileCheck --check-prefix=QUIET %s
// RUN: %nvcc-sm90a -cubin -o /dev/null %s
#include <cuda.h>
#include <cstdint>

__device__ inline void tma_store(const CUtensorMap *map, const float *src) {
  asm volatile("cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [%0, {%2}], [%1];"
               :: "l"(map), "r"(uint32_t(__cvta_generic_to_shared(src))), "r"(0)
               : "memory");
}



__global__ void store_in_lambda(const __grid_constant__ CUtensorMap map, float v) {
  __shared__ alignas(128) float tile[128];
  auto store = [&](int stage) {
    if (threadIdx.x == 0 && stage >= 0)
      tma_store(&map, tile); // here
  };
  tile[threadIdx.x] = v;
  __syncthreads();
  store(0);
}
// CHECK: lambda-issued.cu:25:7: warning: TMA store reads shared memory 'tile' written through the generic proxy {{.*}}[proxyfence-tma-store]
// CHECK: lambda-issued.cu:29:3: note: inside the lambda called here
// CHECK: lambda-issued.cu:27:3: note: generic-proxy write to 'tile' here
// CHECK: lambda-issued.cu:28:3: note: insert 'asm volatile("fence.proxy.async.shared::cta;" ::: "memory");' here

// Two lambdas, one calling the other inside a helper: shown in the
// innermost, with the call of that lambda and the helper's call as notes.
__device__ void stage_and_store(const CUtensorMap *map, float *tile) {
  auto issue = [&]() { tma_store(map, tile); };
  auto store = [&]() {
    if (threadIdx.x == 0)
      issue();
  };
  store();
}
__global__ void store_in_nested_lambda(const __grid_constant__ CUtensorMap map, float v) {
  __shared__ alignas(128) float buf[128];
  buf[threadIdx.x] = v;
  __syncthreads();
  stage_and_store(&map, buf);
}
// CHECK: lambda-issued.cu:39:24: warning: TMA store reads shared memory 'buf' written through the generic proxy {{.*}}[proxyfence-tma-store]
// CHECK: lambda-issued.cu:42:7: note: inside the lambda called here
// CHECK: lambda-issued.cu:50:3: note: reached through this call

// The fence in the lambda, before the barrier: nothing to report.
__global__ void fenced_lambda(const __grid_constant__ CUtensorMap map, float v) {
  __shared__ alignas(128) float out[128];
  auto publish = [&](float x) {
    out[threadIdx.x] = x;
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  };
  auto store = [&]() {
    if (threadIdx.x == 0)
      tma_store(&map, out);
  };
  publish(v);
  __syncthreads();
  store();
}
// CHECK-NOT: warning:
// CHECK: proxyfence: 2 findings in 1 file

// QUIET: .cu:39:24: warning:
// QUIET-NOT: warning:
// QUIET: proxyfence: 1 finding in 1 file (1 suppressed)
