// A minimal stand-in for the ThunderKittens pieces the mma-operand tests
// need, spelled as ThunderKittens spells them: a shared tile type, the wgmma
// descriptor object (built by a constructor from the tile's generic address,
// read through a member function), and warpgroup::mma_AB.
#pragma once
#include <cuda_bf16.h>
#include <cstdint>

namespace kittens {
using bf16 = __nv_bfloat16;

template <int H, int W> struct st_bf {
  static constexpr int rows = H, cols = W;
  bf16 data[H * W];
};

template <int N> struct rt_fl {
  float data[N];
};

namespace wgmma {
__device__ static inline uint64_t matrix_descriptor_encode(uint64_t x) {
  return (((x) & 0x3FFFF) >> 0x4);
}

template <class ST> struct descriptor {
  uint64_t base_desc;
  __device__ inline descriptor(const ST &tile) {
    base_desc = matrix_descriptor_encode((uint64_t)(&tile.data[0]));
    base_desc |= matrix_descriptor_encode((uint64_t)128) << 16;
    base_desc |= matrix_descriptor_encode((uint64_t)256) << 32;
  }
  __device__ inline uint64_t chunk_descriptor(int chunk_idx) const {
    return base_desc + matrix_descriptor_encode(chunk_idx * 1024);
  }
};
} // namespace wgmma

namespace warpgroup {
// wgmma.fence plus a compiler barrier on every accumulator register: orders
// registers, not shared memory.
__device__ static inline void mma_fence(rt_fl<4> &d) {
  for (int i = 0; i < 4; ++i)
    asm volatile("" : "+f"(d.data[i])::"memory");
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}

template <class ST_A, class ST_B>
__device__ static inline void mma_AB(rt_fl<4> &d, const ST_A &a,
                                     const ST_B &b) {
  wgmma::descriptor<ST_A> a_desc(a);
  wgmma::descriptor<ST_B> b_desc(b);
  for (int k = 0; k < ST_A::cols / 16; ++k)
    asm volatile("{\n"
                 ".reg .pred p;\n"
                 "setp.ne.b32 p, %6, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 "
                 "{%0, %1, %2, %3}, %4, %5, p, 1, 1, 0, 0;\n"
                 "}\n"
                 : "+f"(d.data[0]), "+f"(d.data[1]), "+f"(d.data[2]),
                   "+f"(d.data[3])
                 : "l"(a_desc.chunk_descriptor(k)),
                   "l"(b_desc.chunk_descriptor(k)), "r"(1));
}

__device__ static inline void mma_commit_group() {
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}
__device__ static inline void mma_async_wait() {
  asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
}
} // namespace warpgroup
} // namespace kittens
