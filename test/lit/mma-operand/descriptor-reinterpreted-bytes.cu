// A descriptor kept as an opaque 64-bit value and edited through a
// reinterpreting reference (`auto &w = reinterpret_cast<uint32_t(&)[2]>(d);
// w[0] += addr >> 4`), then passed to the asm as
// `reinterpret_cast<uint64_t const &>(d)`, holds the address added to it.
// The wgmma reads 'q' and 'k' only: the threads' write of 'row_max' is no
// hazard, and a write of 'q' is one.
// RUN: %proxyfence %s 2>&1 | FileCheck %s --check-prefix=CLEAN
// RUN: not %proxyfence %s -- -DWRITE_Q 2>&1 | FileCheck %s --check-prefix=HAZARD
// CLEAN: 0 findings
// HAZARD: [[@LINE+46]]:3: warning: wgmma reads shared memory 'Smem::q' as an operand{{.*}}[proxyfence-mma-operand]
// HAZARD-NOT: row_max
// HAZARD: 1 finding
#include <cstdint>

enum class Raw : uint64_t {};
struct Desc { uint64_t addr : 14, rest : 50; };

__device__ inline Raw make_desc(const void *data) {
  Desc d{static_cast<uint64_t>((__cvta_generic_to_shared(data) & 0x3FFFF) >> 4), 0};
  return reinterpret_cast<const Raw &>(d);
}

__device__ inline Raw add_addr(Raw base, const void *data) {
  Raw ret = base;
  auto &words = reinterpret_cast<uint32_t(&)[2]>(ret);
  words[0] += static_cast<uint32_t>(__cvta_generic_to_shared(data)) >> 4;
  return ret;
}

__device__ inline void mma(float (&acc)[4], Raw a, Raw b) {
  asm volatile("wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 "
               "{%0, %1, %2, %3}, %4, %5, 1, 1, 1, 0, 0;"
               : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
               : "l"(reinterpret_cast<const uint64_t &>(a)),
                 "l"(reinterpret_cast<const uint64_t &>(b)));
}

struct Smem {
  alignas(1024) uint16_t q[64 * 64];
  alignas(1024) uint16_t k[64 * 64];
  float row_max[128];
};

__global__ void kernel(float *out) {
  extern __shared__ __align__(1024) char buf[];
  Smem &smem = *reinterpret_cast<Smem *>(buf);
  if (threadIdx.x < 128)
    smem.row_max[threadIdx.x] = 0.f;
#ifdef WRITE_Q
  smem.q[threadIdx.x] = 1;
#endif
  __syncthreads();
  Raw base = make_desc(nullptr);
  float acc[4] = {};
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  mma(acc, add_addr(base, &smem.q[0]), add_addr(base, &smem.k[0]));
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  out[threadIdx.x] = acc[0] + smem.row_max[threadIdx.x % 128];
}
