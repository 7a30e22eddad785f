// An asm rejection the repair cannot pay for (no blank in the statement to
// make room for the second `%`) stays a front-end error, and --stats counts
// it as left unrepaired beside the one repaired.
// RUN: %proxyfence --stats %s 2>&1 | FileCheck %s
// CHECK: unrepaired.cu: note: the clang front end rejected part of this file (1 error; first: {{.*}}unrepaired.cu:13:31: invalid % escape in inline assembly string)
// CHECK: stats: device functions: 3, stubs: 0, code dropped by front-end errors: 1; asm rejections repaired for clang: 1
// CHECK: stats: also recovered for clang: 0 __shared__ objects declared with a constructor, 0 under-aligned alignas, 0 extern __shared__ non-arrays; asm rejections left unrepaired: 1
// CHECK: stats: dropped: {{.*}}unrepaired.cu:11:1: lane_id_packed: code dropped by a front-end error

__device__ unsigned
lane_id_packed() {
  unsigned r;
  asm volatile("mov.u32\t%0,%laneid;":"=r"(r));
  return r;
}
__device__ unsigned lane_id_spaced() {
  unsigned r;
  asm volatile("mov.u32 %0, %laneid;" : "=r"(r));
  return r;
}
__global__ void lanes(unsigned *out) {
  out[threadIdx.x] = lane_id_packed() + lane_id_spaced();
}
