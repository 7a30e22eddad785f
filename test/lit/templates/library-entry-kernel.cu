// The file's kernel class runs through a library's kernel template
// (`cutlass::device_kernel<Op>`, here Inputs/library_launch.h, a header the
// run does not report on). The class's hazard is between what the entry
// passes it (the dynamic shared memory), so it is decided in the library's
// kernel; it is reported where it is, in the file's class. `Staged` writes
// one member and stores another: nothing.
// RUN: not %proxyfence --header-filter='^$' %s -- -I%S/Inputs 2>&1 | FileCheck %s
// RUN: %nvcc-sm90a -I%S/Inputs -cubin -o /dev/null %s
#include <cuda.h>
#include <cstdint>
#include "library_launch.h"

__device__ inline void tma_store(const CUtensorMap *map, const float *src) {
  asm volatile("cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [%0, {%2}], [%1];"
               :: "l"(map), "r"(uint32_t(__cvta_generic_to_shared(src))), "r"(0)
               : "memory");
}

struct Storage {
  float a[128];
  float b[128];
};

struct Overwrite {
  struct Params {
    CUtensorMap map;
  };
  __device__ void operator()(Params const &params, char *smem_buf) {
    Storage &s = *reinterpret_cast<Storage *>(smem_buf);
    s.a[threadIdx.x] = 1.f;
    __syncthreads();
    if (threadIdx.x == 0)
      tma_store(&params.map, s.a);
    // CHECK: .cu:[[#@LINE-1]]:7: warning: TMA store reads shared memory 'Storage::a' written through the generic proxy {{.*}}[proxyfence-tma-store]
    // CHECK: .cu:[[#@LINE-5]]:5: note: generic-proxy write to 'Storage::a' here
  }
};

struct Staged {
  struct Params {
    CUtensorMap map;
  };
  __device__ void operator()(Params const &params, char *smem_buf) {
    Storage &s = *reinterpret_cast<Storage *>(smem_buf);
    s.b[threadIdx.x] = 1.f;
    __syncthreads();
    if (threadIdx.x == 0)
      tma_store(&params.map, s.a);
  }
};

void launch(Overwrite::Params o, Staged::Params s) {
  device_kernel<Overwrite><<<1, 128, 1024>>>(o);
  device_kernel<Staged><<<1, 128, 1024>>>(s);
}

// CHECK-NOT: warning:
// CHECK: proxyfence: 1 finding in 1 file
