// A header named only in a comment is not included: the fix must add it.
// RUN: cp %s %t.cu
// RUN: %proxyfence --fix --quiet --fence-style=cuda-ptx %t.cu
// RUN: FileCheck --input-file=%t.cu %s
// RUN: %nvcc-sm90a -cubin -o /dev/null %t.cu
// CHECK: #include <cuda/ptx>
// CHECK: // Built with: #include <cuda/ptx> would pull in the wrappers
// CHECK: cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
// CHECK-NEXT: __syncthreads();
// Built with: #include <cuda/ptx> would pull in the wrappers
__global__ void k(float* out) {
  __shared__ alignas(128) float t[256];
  t[threadIdx.x] = 1.f;
  __syncthreads();
  if (threadIdx.x == 0)
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], 1024;" :: "l"(out), "r"((unsigned)__cvta_generic_to_shared(t)) : "memory");
}
