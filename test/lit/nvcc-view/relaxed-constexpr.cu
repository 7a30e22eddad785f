// nvcc with --expt-relaxed-constexpr (which CUTLASS and the libraries built
// on it require) lets host code call a `__device__ constexpr` function:
// here the parameters a kernel is launched with, as a collective's
// `to_underlying_arguments` computes them. clang makes only unattributed
// constexpr functions host and device, so the host helper's return type
// cannot be deduced and the launch is dropped: the file is "not fully
// analysed", and a kernel whose instantiation only that launch asks for is
// read as an uninstantiated pattern at best. The nvcc view reads it as nvcc
// does and counts it in --stats; the kernel's missing fence is found, the
// fenced kernel stays clean.
// RUN: not %proxyfence --no-cache --stats %s 2>&1 | FileCheck %s
#include <cstdint>

struct Tile {
  template <class P> __device__ static constexpr auto bytes(P rows) {
    return rows * 4;
  }
  template <class P> static auto to_arguments(P rows) { return bytes(rows); }
};

__device__ void bulk_store(float *g, void *s, int bytes) {
  unsigned a = (unsigned)__cvta_generic_to_shared(s);
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;"
               :: "l"(g), "r"(a), "r"(bytes) : "memory");
}

// Declared in its class and defined outside it: left as written, since the
// definition (still __device__ only) would no longer match a host and
// device declaration.
struct Rows {
  __device__ static constexpr int count();
};
__device__ constexpr int Rows::count() { return 64; }

template <bool Fenced> __global__ void store_tile(float *out, int bytes) {
  __shared__ alignas(128) float tile[256];
  tile[threadIdx.x % Rows::count()] = 1.0f;
  if (Fenced)
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (threadIdx.x == 0)
    bulk_store(out, tile, bytes);
}

template <bool Fenced> void run(float *out, int rows) {
  store_tile<Fenced><<<1, 256>>>(out, Tile::to_arguments(rows));
}

void host(float *out, int rows) {
  run<false>(out, rows);
  run<true>(out, rows);
}

// CHECK: relaxed-constexpr.cu:42:5: warning: bulk async store reads shared memory 'tile' written through the generic proxy
// CHECK-NOT: rejected part of this file
// CHECK: proxyfence: 1 finding in 1 file
// CHECK-NOT: not fully analysed
// CHECK: stats: __device__ constexpr functions made callable from host code (nvcc --expt-relaxed-constexpr): 1
