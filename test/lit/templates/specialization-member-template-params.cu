// A member template of a class template specialization that only a pattern
// calls (`buffer.channel<kPerChannel>(idx)` with `int const &c`) is read in
// the class template's body. Its parameters there are the call's: reading
// `c` reads the caller's local, not memory. Left unbound, `c` was taken for
// shared memory and its read met the TMA load into the channel's buffer (a
// false async-overwrite, seen on DeepEP v2's hybrid dispatch). The second
// kernel writes the buffer before the load: that hazard is reported.
// RUN: not %proxyfence %s 2>&1 | FileCheck %s
// RUN: %nvcc-sm90a -cubin -o /dev/null %s
#include <cstdint>

__device__ void bulk_load(void *smem, const void *gmem, uint64_t *bar,
                          uint32_t bytes) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::"
               "bytes [%0], [%1], %2, [%3];"
               :: "r"((uint32_t)__cvta_generic_to_shared(smem)), "l"(gmem),
                  "r"(bytes), "r"((uint32_t)__cvta_generic_to_shared(bar))
               : "memory");
}

template <bool kWithBarrier>
struct Layout {
  int stride;
  void *base;
  __device__ Layout(int s, void *p) : stride(s), base(p) {}
  template <int kPerChannel>
  __device__ Layout channel(int const &c) const {
    return Layout(stride, static_cast<int8_t *>(base) + stride * kPerChannel * c);
  }
};

template <int kPerChannel>
__global__ void load_channel(const float4 *in) {
  extern __shared__ __align__(128) int8_t smem[];
  __shared__ uint64_t bar;
  auto buffer = Layout<false>(512, smem);
  int const channel = blockIdx.x % 4;
  buffer = buffer.channel<kPerChannel>(channel);
  if (threadIdx.x == 0)
    bulk_load(buffer.base, in, &bar, 512);
}

template <int kPerChannel>
__global__ void overwrite_written_channel(const float4 *in) {
  extern __shared__ __align__(128) int8_t smem[];
  __shared__ uint64_t bar;
  auto buffer = Layout<false>(512, smem);
  int const channel = blockIdx.x % 4;
  buffer = buffer.channel<kPerChannel>(channel);
  static_cast<float *>(buffer.base)[threadIdx.x] = 0.0f;
  __syncthreads();
  if (threadIdx.x == 0)
    bulk_load(buffer.base, in, &bar, 512);
// CHECK: .cu:[[#@LINE-1]]:5: warning: bulk async load overwrites dynamic shared memory written through the generic proxy {{.*}}[proxyfence-async-overwrite]
}
// CHECK-NOT: warning:
// CHECK: proxyfence: 1 finding in 1 file
