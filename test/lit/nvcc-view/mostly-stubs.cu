// When most of a file's device code is stubs the macros are likely not the
// build's: a one-line note says what to check. Not when the code is real.
// RUN: %proxyfence %s 2>&1 | FileCheck %s
// RUN: %proxyfence %s -- -DSM90_PATH 2>&1 | FileCheck --check-prefix=REAL %s

__device__ void arrive(unsigned long long *bar) {
#if defined(SM90_PATH)
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"((unsigned)__cvta_generic_to_shared(bar)) : "memory");
#else
  __brkpt();
#endif
}
__device__ void fence() {
#if defined(SM90_PATH)
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#endif
}
__global__ void k() {
  __shared__ unsigned long long bar;
  fence();
  arrive(&bar);
}

// CHECK: proxyfence: note: '{{.*}}mostly-stubs.cu': 2 of 3 device functions are stubs for sm_90a (code preprocessed away, or only a trap); check --arch and the -D flags of the build (--stats lists them)
// REAL-NOT: note:
// REAL-NOT: not seen
