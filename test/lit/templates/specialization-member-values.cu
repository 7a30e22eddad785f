// A kernel template that nothing instantiates builds its buffers with the
// members of a class template specialization (`Layout<true>(smem, ...)
// .part(warp).token(0)`, as MoE dispatch and combine kernels place each
// warp's TMA buffer). Sema only declares those members and the
// constructor, so what they return is read in the class template's body as
// written: the pointer the TMA store reads is the shared memory the warp
// wrote, and the missing fence is found. The fenced kernel is clean.
// RUN: not %proxyfence %s 2>&1 | FileCheck %s
// RUN: %nvcc-sm90a -cubin -o /dev/null %s
#include <cstdint>

__device__ void bulk_store(void *gmem, const void *smem, uint32_t bytes) {
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;"
               :: "l"(gmem), "r"((uint32_t)__cvta_generic_to_shared(smem)),
                  "r"(bytes) : "memory");
}
__device__ void fence_view_async_shared() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

struct Token {
  int bytes;
  void *base;
  __device__ Token(int b, void *p) : bytes(b), base(p) {}
  __device__ void *data() const { return base; }
};

template <bool kWithBarrier>
struct Layout {
  int bytes_per_token, tokens;
  void *base;
  __device__ Layout(int b, int const &n, void *p)
      : bytes_per_token(b + (kWithBarrier ? 8 : 0)), tokens(n), base(p) {}
  __device__ Layout part(int const &i) const {
    return Layout(bytes_per_token, 1,
                  static_cast<int8_t *>(base) + bytes_per_token * tokens * i);
  }
  __device__ Token token(int const &t) const {
    return Token(bytes_per_token, static_cast<int8_t *>(base) + bytes_per_token * t);
  }
};

template <typename vec_t, int kBytes, int kTokens>
__global__ void send_unfenced(vec_t *out) {
  extern __shared__ __align__(128) int8_t smem[];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const auto buffer = Layout<true>(kBytes, kTokens, smem).part(warp).token(0);
  static_cast<vec_t *>(buffer.data())[lane] = out[lane];
  __syncwarp();
  if (lane == 0)
    bulk_store(out, buffer.data(), kBytes);
// CHECK: .cu:[[#@LINE-1]]:5: warning: bulk async store reads dynamic shared memory written through the generic proxy {{.*}}[proxyfence-tma-store]
}

template <typename vec_t, int kBytes, int kTokens>
__global__ void send_fenced(vec_t *out) {
  extern __shared__ __align__(128) int8_t smem[];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const auto buffer = Layout<true>(kBytes, kTokens, smem).part(warp).token(0);
  static_cast<vec_t *>(buffer.data())[lane] = out[lane];
  fence_view_async_shared();
  __syncwarp();
  if (lane == 0)
    bulk_store(out, buffer.data(), kBytes);
}
// CHECK-NOT: warning:
// CHECK: proxyfence: 1 finding in 1 file
