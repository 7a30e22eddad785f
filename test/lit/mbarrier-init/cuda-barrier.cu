// libcu++ cuda::barrier: thread 0 calls init(&bar, n), whose body is the
// mbarrier.init, and every thread arrives and waits with no CTA-wide
// barrier after the init. (The barrier lives in __shared__ storage: clang,
// unlike nvcc, rejects a __shared__ variable with a constructor.)
// RUN: cp %s %t.cu
// RUN: not %proxyfence %t.cu 2>&1 | FileCheck %s
// RUN: %proxyfence --fix --quiet %t.cu
// RUN: FileCheck --check-prefix=FIXED --input-file=%t.cu %s
// RUN: %proxyfence %t.cu 2>&1 | FileCheck --check-prefix=CLEAN %s
// RUN: %nvcc-sm90a -cubin -o /dev/null %t.cu
#include <cuda/barrier>
#include <utility>

using block_barrier = cuda::barrier<cuda::thread_scope_block>;

__global__ void scale(const float *in, float *out) {
  __shared__ alignas(block_barrier) unsigned char storage[sizeof(block_barrier)];
  __shared__ float total;
  block_barrier &bar = *reinterpret_cast<block_barrier *>(storage);
  if (threadIdx.x == 0) {
    total = 0.0f;
    init(&bar, blockDim.x);
  }
  atomicAdd(&total, in[threadIdx.x]);
  block_barrier::arrival_token token = bar.arrive();
  bar.wait(std::move(token));
  out[threadIdx.x] = in[threadIdx.x] / total;
}
// CHECK: cuda-barrier.cu.tmp.cu:22:5: warning: mbarrier 'storage' is used by other threads before a CTA-wide barrier (__syncthreads) makes its initialisation visible to them [proxyfence-mbarrier-init]
// CHECK: barrier_block_scope.h:{{[0-9]+}}:{{[0-9]+}}: note: mbarrier initialised here, inside 'init'
// CHECK: note: used by other threads here (mbarrier.arrive.shared::cta), inside 'mbarrier_arrive'
// CHECK: cuda-barrier.cu.tmp.cu:25:40: note: inside 'mbarrier_arrive', called here
// CHECK: note: used by other threads here (mbarrier.try_wait.shared), inside '__try_wait'
// CHECK: cuda-barrier.cu.tmp.cu:26:3: note: inside '__try_wait', called here
// CHECK: cuda-barrier.cu.tmp.cu:23:4: note: insert '__syncthreads();' here
// CHECK: proxyfence: 1 finding in 1 file

// FIXED:      {{^    }}init(&bar, blockDim.x);
// FIXED-NEXT: {{^  [}]$}}
// FIXED-NEXT: {{^  }}__syncthreads();
// FIXED-NEXT: {{^  }}atomicAdd(&total, in[threadIdx.x]);

// CLEAN: proxyfence: 0 findings in 1 file
