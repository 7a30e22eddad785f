// A kernel class reached through a perfect-forwarding wrapper, as
// FlashAttention-3 guards its kernels by architecture (`enable_sm90<Kernel>`
// calls `Kernel::operator()(std::forward<Args>(args)...)`). clang treats
// std::forward and std::move as builtins and instantiates no body for them,
// so the shared memory passed through was lost: the wrapper's call is read
// as the cast it is. `Overwrite` writes the tile it then stores with TMA
// (one finding); `Staged` writes another tile.
// RUN: not %proxyfence %s 2>&1 | FileCheck %s
// RUN: %nvcc-sm90a -cubin -o /dev/null %s
#include <cuda.h>
#include <cstdint>
#include <utility>

__device__ inline void tma_store(const CUtensorMap *map, const float *src) {
  asm volatile("cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [%0, {%2}], [%1];"
               :: "l"(map), "r"(uint32_t(__cvta_generic_to_shared(src))), "r"(0)
               : "memory");
}

struct Storage {
  float a[128];
  float b[128];
};
struct Params {
  CUtensorMap map;
};

struct Overwrite {
  __device__ void operator()(Params const &params, char *smem_buf) {
    Storage &s = *reinterpret_cast<Storage *>(smem_buf);
    s.a[threadIdx.x] = 1.f;
    __syncthreads();
    if (threadIdx.x == 0)
      tma_store(&params.map, s.a);
    // CHECK: .cu:[[#@LINE-1]]:7: warning: TMA store reads shared memory 'Storage::a' written through the generic proxy {{.*}}[proxyfence-tma-store]
  }
};

struct Staged {
  __device__ void operator()(Params const &params, char *smem_buf) {
    Storage &s = *reinterpret_cast<Storage *>(smem_buf);
    s.b[threadIdx.x] = 1.f;
    __syncthreads();
    if (threadIdx.x == 0)
      tma_store(&params.map, s.a);
  }
};

template <class K> struct enable_sm90 : K {
  template <class... Args> __device__ void operator()(Args &&...args) {
    K::operator()(std::forward<Args>(args)...);
  }
};

template <class Op>
__global__ void device_kernel(const __grid_constant__ Params params) {
  extern __shared__ char smem[];
  Op op;
  op(params, smem);
}

void launch(Params p) {
  device_kernel<enable_sm90<Overwrite>><<<1, 128, 1024>>>(p);
  device_kernel<enable_sm90<Staged>><<<1, 128, 1024>>>(p);
}

// CHECK-NOT: warning:
// CHECK: proxyfence: 1 finding in 1 file
