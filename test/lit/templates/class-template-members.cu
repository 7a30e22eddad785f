// Members of class templates that nothing instantiates: a static kernel-side
// entry and the member functions it calls on the class itself (resolved
// through `this`, implicit or written). One warning and one fence each, in
// the class template's text; a member used by an instantiation is analysed
// through the instantiation, and reported once.
// REQUIRES: nvcc
// RUN: cp %s %t.cu
// RUN: not %proxyfence %t.cu 2>&1 | FileCheck %s
// RUN: %proxyfence --fix --quiet %t.cu
// RUN: FileCheck --check-prefix=FIXED --input-file=%t.cu %s
// RUN: %proxyfence %t.cu 2>&1 | FileCheck --check-prefix=CLEAN %s
// RUN: %nvcc-sm90a -cubin -o /dev/null %t.cu
#include <cuda.h>
#include <cstdint>

template <typename T, int kTile>
struct Stage {
  T *tile; // points into shared memory

  __device__ void fill(T v) {
    for (int i = threadIdx.x; i < kTile; i += blockDim.x)
      tile[i] = v;
  }
  __device__ void store(const CUtensorMap *tmap) {
    uint32_t smem = static_cast<uint32_t>(__cvta_generic_to_shared(tile));
    asm volatile("cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [%0, {%2}], [%1];"
                 :: "l"(tmap), "r"(smem), "r"(0) : "memory");
  }
  // Calls on the class itself: `this->` written and implicit.
  __device__ void run(const CUtensorMap *tmap, T v) {
    this->fill(v);
    __syncthreads();
    if (threadIdx.x == 0)
      store(tmap);
  }
  __device__ void run_fenced(const CUtensorMap *tmap, T v) {
    fill(v);
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    if (threadIdx.x == 0)
      this->store(tmap);
  }
};
// run()'s buffer is a member, met only through `*this`: decided where a
// kernel calls run() (memory/param-pairs.cu); none does, so no warning.
// CHECK-NOT: tmp.cu:34:7: warning:

// A kernel template in a class template: its own shared buffer.
template <typename T>
struct Kernels {
  template <int kTile>
  __device__ static void body(const CUtensorMap *tmap, T v) {
    __shared__ alignas(128) T buf[kTile];
    buf[threadIdx.x] = v;
    __syncthreads();
    if (threadIdx.x == 0) {
      uint32_t smem = static_cast<uint32_t>(__cvta_generic_to_shared(buf));
      asm volatile("cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [%0, {%2}], [%1];"
                   :: "l"(tmap), "r"(smem), "r"(0) : "memory");
    }
  }
};
// CHECK: class-template-members.cu.tmp.cu:58:7: warning: TMA store reads shared memory 'buf'
// CHECK: :54:5: note: generic-proxy write to 'buf' here

// Instantiated here: reported once, through the instantiation.
template <typename T>
struct Used {
  __device__ static void body(const CUtensorMap *tmap, T v) {
    __shared__ alignas(128) T buf[64];
    buf[threadIdx.x] = v;
    __syncthreads();
    if (threadIdx.x == 0) {
      uint32_t smem = static_cast<uint32_t>(__cvta_generic_to_shared(buf));
      asm volatile("cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [%0, {%2}], [%1];"
                   :: "l"(tmap), "r"(smem), "r"(0) : "memory");
    }
  }
};
__global__ void use(const __grid_constant__ CUtensorMap tmap) {
  Used<float>::body(&tmap, 1.f);
  Used<int>::body(&tmap, 1);
}
// CHECK: class-template-members.cu.tmp.cu:75:7: warning: TMA store reads shared memory 'buf'
// CHECK: :71:5: note: generic-proxy write to 'buf' here
// CHECK-NOT: warning:
// CHECK: proxyfence: 2 findings in 1 file

// FIXED:      {{^    }}this->fill(v);
// FIXED-NEXT: {{^    }}__syncthreads();
// FIXED:      {{^    }}buf[threadIdx.x] = v;
// FIXED-NEXT: {{^    }}asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
// FIXED:      {{^    }}buf[threadIdx.x] = v;
// FIXED-NEXT: {{^    }}asm volatile("fence.proxy.async.shared::cta;" ::: "memory");

// CLEAN: proxyfence: 0 findings in 1 file
