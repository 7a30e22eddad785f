// A pointer a kernel receives as a parameter cannot point into its CTA's
// shared memory (no shared address exists before the launch), even put
// through __cvta_generic_to_shared into a wgmma descriptor: that operand
// does not alias 'scratch', which only threads touch. The same descriptor
// made from 'scratch' itself reads what the threads wrote.
// RUN: not %proxyfence %s 2>&1 | FileCheck %s
#include <cstdint>

__device__ inline uint64_t desc_of(const void *p) {
  return (uint64_t)((static_cast<uint32_t>(__cvta_generic_to_shared(p)) & 0x3FFFF) >> 4);
}

__device__ inline void mma(float (&acc)[4], uint64_t d) {
  asm volatile("wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32 "
               "{%0, %1, %2, %3}, %4, %4, 1, 1, 1;"
               : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
               : "l"(d));
}

__global__ void from_parameter(const float *weights, float *out) {
  __shared__ alignas(128) float scratch[256];
  scratch[threadIdx.x] = 1.0f;
  __syncthreads();
  out[threadIdx.x] = scratch[255 - threadIdx.x];
  float acc[4] = {};
  mma(acc, desc_of(weights));
  out[threadIdx.x] += acc[0];
}

__global__ void from_shared(float *out) {
  __shared__ alignas(128) float scratch[256];
  scratch[threadIdx.x] = 1.0f;
  __syncthreads();
  float acc[4] = {};
  mma(acc, desc_of(scratch));
  out[threadIdx.x] = acc[0];
}

// CHECK-NOT: kernel-parameter-descriptor.cu:26:{{.*}}warning
// CHECK: kernel-parameter-descriptor.cu:35:3: warning: wgmma reads shared memory 'scratch' as an operand, written through the generic proxy
// CHECK: proxyfence: 1 finding in 1 file
