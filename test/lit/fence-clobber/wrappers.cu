// Fence wrappers whose asm has no "memory" clobber: the PTX fence is right,
// but the compiler may move the C++ stores to shared memory across it. Each
// wrapper is reported once, where it is written, with the calls relying on
// it after C++ shared-memory stores as notes; the fix adds the clobber in the
// way the statement is written. They still count as fences for the proxy
// rules: no tma-store finding. fence.mbarrier_init orders only the
// mbarrier.init asm before it and is never reported; neither is a wrapper
// called where no C++ access precedes it.
// REQUIRES: nvcc
// RUN: cp %s %t.cu
// RUN: not %proxyfence %t.cu 2>&1 | FileCheck %s
// RUN: not %proxyfence --fix --quiet %t.cu
// RUN: FileCheck --check-prefix=FIXED --input-file=%t.cu %s
// RUN: cp %t.cu %t.again.cu
// RUN: not %proxyfence --fix %t.again.cu 2>&1 | FileCheck --check-prefix=AGAIN %s
// RUN: cmp %t.cu %t.again.cu
// RUN: %proxyfence --disable=proxyfence-fence-clobber %s 2>&1 | FileCheck --check-prefix=DISABLED %s
// RUN: %nvcc-sm90a -cubin -o /dev/null %t.cu
// RUN: %proxyfence --list-rules | FileCheck --check-prefix=LIST %s
#include <cstdint>

__device__ __forceinline__ void fence_plain() {
  asm volatile("fence.proxy.async.shared::cta;");
}
__device__ __forceinline__ void fence_with_input(uint32_t unused) {
  asm volatile("fence.proxy.async;" : : "r"(unused));
}
__device__ __forceinline__ void fence_cc() {
#ifdef __clang__ // nvcc rejects the "cc" clobber in device code
  asm volatile("fence.proxy.async.shared::cta;" ::: "cc");
#endif
}
__device__ __forceinline__ void init_fence() {
  asm volatile("fence.mbarrier_init.release.cluster;"
               );
}
template <int N> __device__ __forceinline__ void fence_templated() {
  asm volatile("{\n\t"
               "fence.proxy.async.shared::cta;\n\t"
               "}");
}
#define FENCE_MACRO() asm volatile("fence.proxy.async.shared::cta;")
__device__ __forceinline__ void fence_from_macro() { FENCE_MACRO(); }
// Correct: not reported.
__device__ __forceinline__ void fence_ok() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

__device__ __forceinline__ void bulk_store(void *gmem, const void *smem,
                                           uint32_t bytes) {
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;"
               :: "l"(gmem),
               "r"(static_cast<uint32_t>(__cvta_generic_to_shared(smem))),
               "r"(bytes) : "memory");
}

__global__ void stores(float *out) {
  __shared__ alignas(128) float tile[1024];
  for (int i = threadIdx.x; i < 1024; i += blockDim.x)
    tile[i] = float(i);
  fence_plain();
  __syncthreads();
  if (threadIdx.x == 0)
    bulk_store(out, tile, sizeof(tile));
  __syncthreads();
  tile[threadIdx.x] = 2.0f;
  fence_plain();
  fence_with_input(threadIdx.x);
  fence_cc();
  fence_templated<1>();
  fence_templated<2>();
  fence_from_macro();
  fence_ok();
  __syncthreads();
  if (threadIdx.x == 0)
    bulk_store(out, tile, sizeof(tile));
}

__global__ void init() {
  init_fence();
}

// CUTLASS's cutlass::arch::fence_barrier_init() is written this way.
__device__ __forceinline__ void fence_barrier_init() {
  asm volatile("fence.mbarrier_init.release.cluster; \n" ::);
}
__global__ void init_cutlass() { fence_barrier_init(); }

// Only asm before the call: nothing the compiler could move.
__device__ __forceinline__ void fence_after_asm() {
  asm volatile("fence.proxy.async.shared::cta;");
}
__global__ void asm_only(float *out) {
  __shared__ alignas(128) float tile[1024];
  asm volatile("st.shared.f32 [%0], %1;" :: "r"(static_cast<uint32_t>(__cvta_generic_to_shared(tile))), "f"(1.0f) : "memory");
  fence_after_asm();
  __syncthreads();
  if (threadIdx.x == 0)
    bulk_store(out, tile, sizeof(tile));
}

// CHECK:      wrappers.cu.tmp.cu:23:3: warning: inline asm emits 'fence.proxy.async.shared::cta' without a "memory" clobber: the compiler may move C++ shared-memory accesses across the fence [proxyfence-fence-clobber]
// CHECK:      wrappers.cu.tmp.cu:23:3: note: add the "memory" clobber
// CHECK:      asm volatile("fence.proxy.async.shared::cta;");
// CHECK:      | ::: "memory"
// CHECK:      wrappers.cu.tmp.cu:61:3: note: 'fence_plain' called here: its fence orders only the stores the compiler keeps before it
// CHECK:      wrappers.cu.tmp.cu:67:3: note: 'fence_plain' called here
// CHECK:      wrappers.cu.tmp.cu:26:3: warning: inline asm emits 'fence.proxy.async' without a "memory" clobber
// CHECK:      wrappers.cu.tmp.cu:68:3: note: 'fence_with_input' called here
// CHECK:      wrappers.cu.tmp.cu:30:3: warning: inline asm emits 'fence.proxy.async.shared::cta' without
// CHECK:      wrappers.cu.tmp.cu:69:3: note: 'fence_cc' called here
// CHECK:      wrappers.cu.tmp.cu:38:3: warning: inline asm emits 'fence.proxy.async.shared::cta' without
// CHECK:      wrappers.cu.tmp.cu:70:3: note: 'fence_templated' called here
// CHECK:      wrappers.cu.tmp.cu:71:3: note: 'fence_templated' called here
// CHECK:      wrappers.cu.tmp.cu:43:54: warning: inline asm emits 'fence.proxy.async.shared::cta' without
// CHECK:      note: no automatic fix: the asm statement is written in a macro
// CHECK:      wrappers.cu.tmp.cu:72:3: note: 'fence_from_macro' called here
// CHECK-NOT:  warning:
// CHECK:      proxyfence: 5 findings in 1 file

// FIXED:      asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
// FIXED:      asm volatile("fence.proxy.async;" : : "r"(unused) : "memory");
// FIXED:      asm volatile("fence.proxy.async.shared::cta;" ::: "cc", "memory");
// FIXED:      asm volatile("fence.mbarrier_init.release.cluster;"
// FIXED-NEXT: {{^               }});
// FIXED:      "}" ::: "memory");
// FIXED:      #define FENCE_MACRO() asm volatile("fence.proxy.async.shared::cta;")

// FIXED:      asm volatile("fence.mbarrier_init.release.cluster; \n" ::);
// FIXED:      asm volatile("fence.proxy.async.shared::cta;");

// AGAIN:      wrappers.cu.tmp.again.cu:43:54: warning: inline asm emits 'fence.proxy.async.shared::cta' without a "memory" clobber
// AGAIN-NOT:  warning:
// AGAIN:      proxyfence: 1 finding in 1 file, 0 fixed, 1 left

// DISABLED:   proxyfence: 0 findings in 1 file

// LIST: {{^}}proxyfence-fence-clobber: inline asm emitting fence.proxy.async without a "memory" clobber, called after C++ shared-memory accesses: the compiler may move them across it{{$}}
