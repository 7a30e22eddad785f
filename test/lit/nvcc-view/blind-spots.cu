// "0 findings" says what could not be seen: stubs (bodies an #if emptied,
// or only a trap) and bodies that lost code to front-end errors, located.
// RUN: %proxyfence --stats %s 2>&1 | FileCheck %s
// RUN: %proxyfence --stats %s -- -DHAVE_TMA 2>&1 | FileCheck --check-prefix=REAL %s

__device__ void store_fence() {
#if defined(HAVE_TMA)
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#endif
}
__device__ void tma_commit() {
#if defined(HAVE_TMA)
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
#else
  printf("no TMA\n");
  __trap();
#endif
}
__device__ void tma_wait() {
#if defined(HAVE_TMA)
  asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
#else
  asm volatile("trap;");
#endif
}
// Empty on purpose, no #if: not a stub.
__device__ void nothing_to_do() {}
// clang drops the call to an undeclared function; the body is incomplete.
__device__ void broken(float *p) {
  p[0] = undeclared_helper(p);
}
__global__ void k(float *p) {
  store_fence();
  tma_commit();
  tma_wait();
  nothing_to_do();
  broken(p);
}

// CHECK: proxyfence: 0 findings in 1 file
// CHECK-NEXT: proxyfence: not seen: 3 stub device functions, 1 with code dropped by front-end errors, of 6 (see --stats)
// CHECK: stats: device functions: 6, stubs: 3, code dropped by front-end errors: 1;
// CHECK-NEXT: stats: also recovered for clang: 0 __shared__ objects declared with a constructor, 0 under-aligned alignas, 0 extern __shared__ non-arrays; asm rejections left unrepaired: 0
// CHECK-NEXT: stats: asm in that code: none
// CHECK-NEXT: stats: stub: {{.*}}blind-spots.cu:6:17: store_fence: empty once preprocessed
// CHECK-NEXT: stats: stub: {{.*}}blind-spots.cu:11:17: tma_commit: only traps
// CHECK-NEXT: stats: stub: {{.*}}blind-spots.cu:19:17: tma_wait: only traps
// CHECK-NEXT: stats: dropped: {{.*}}blind-spots.cu:29:17: broken: code dropped by a front-end error
// CHECK-NOT: nothing_to_do

// REAL: proxyfence: 0 findings in 1 file
// REAL-NEXT: proxyfence: not seen: 0 stub device functions, 1 with code dropped
// REAL: stats: device functions: 6, stubs: 0, code dropped by front-end errors: 1;
// REAL-NEXT: stats: also recovered for clang: 0 __shared__ objects
// REAL-NEXT: stats: asm in that code: proxy fence 1
