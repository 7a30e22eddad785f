// A struct laid over `extern __shared__` (a GEMM's shared storage: pipeline
// stages of A, a C tile, mbarriers) is one object per field: the C tile's
// writes and the barriers' inits do not reach the TMA loads into the A
// stages, only the TMA store of C itself. A union's members, and bytes
// carved from the base at the same offset, do share memory.
// RUN: not %proxyfence %s 2>&1 | FileCheck %s
#include <cuda.h>
#include <cstdint>

__device__ __forceinline__ void init_bar(uint64_t *bar, int count) {
  uint32_t a = static_cast<uint32_t>(__cvta_generic_to_shared(bar));
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(a), "r"(count));
}
__device__ __forceinline__ void tma_load(float *dst, const CUtensorMap *map, uint64_t *bar) {
  uint32_t d = static_cast<uint32_t>(__cvta_generic_to_shared(dst));
  uint32_t b = static_cast<uint32_t>(__cvta_generic_to_shared(bar));
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
               " [%0], [%1, {%3, %3}], [%2];"
               :: "r"(d), "l"(map), "r"(b), "r"(0) : "memory");
}
__device__ __forceinline__ void tma_store(const CUtensorMap *map, float *src) {
  uint32_t s = static_cast<uint32_t>(__cvta_generic_to_shared(src));
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %2}], [%1];"
               :: "l"(map), "r"(s), "r"(0) : "memory");
}

template <int Stages> struct Storage {
  alignas(128) float A[1024 * Stages];
  alignas(128) float C[1024];
  alignas(8) uint64_t full[Stages], empty[Stages];
};

// Persistent loop: the C tile written in one tile, the next tile's A stages
// loaded by TMA. Only the store of C needs the fence.
template <int Stages>
__global__ void fields(const __grid_constant__ CUtensorMap mapA,
                       const __grid_constant__ CUtensorMap mapC, int tiles) {
  extern __shared__ __align__(128) uint8_t smem[];
  Storage<Stages> &s = *reinterpret_cast<Storage<Stages> *>(smem);
  float *sA = s.A, *sC = s.C;
  if (threadIdx.x == 0)
    for (int i = 0; i < Stages; ++i) {
      init_bar(&s.full[i], 1);
      init_bar(&s.empty[i], 1);
    }
  __syncthreads();
  for (int t = 0; t < tiles; ++t) {
    int stage = t % Stages;
    if (threadIdx.x == 0)
      tma_load(&sA[stage * 1024], &mapA, &s.full[stage]);
    sC[threadIdx.x] = float(t);
    __syncthreads();
    if (threadIdx.x == 0)
      tma_store(&mapC, sC);
  }
}
template __global__ void fields<3>(CUtensorMap, CUtensorMap, int);

// The epilogue reuses the A stages' bytes for its tile through a union: a
// write of one member is overwritten by the TMA load into the other.
union Reused {
  float A[1024];
  float Epilogue[1024];
};
struct WithUnion {
  Reused u;
  alignas(8) uint64_t full;
};
__global__ void union_members(const __grid_constant__ CUtensorMap mapA, int tiles) {
  extern __shared__ __align__(128) uint8_t smem[];
  WithUnion &s = *reinterpret_cast<WithUnion *>(smem);
  for (int t = 0; t < tiles; ++t) {
    s.u.Epilogue[threadIdx.x] = float(t);
    __syncthreads();
    if (threadIdx.x == 0)
      tma_load(s.u.A, &mapA, &s.full);
  }
}

// Buffers carved from the base at constant offsets: the tile at 0 and the
// staging buffer at 4096 bytes are different memory, the same offset is not.
__global__ void carved(const __grid_constant__ CUtensorMap mapC, float v) {
  extern __shared__ __align__(128) uint8_t smem[];
  float *tile = reinterpret_cast<float *>(smem + 4096);
  float *staging = reinterpret_cast<float *>(smem + 8192);
  staging[threadIdx.x] = v;
  __syncthreads();
  if (threadIdx.x == 0)
    tma_store(&mapC, tile);
  tile[threadIdx.x] = v;
  __syncthreads();
  if (threadIdx.x == 0)
    tma_store(&mapC, reinterpret_cast<float *>(smem + 4096));
}

// CHECK-NOT: proxyfence-async-overwrite
// CHECK: shared-storage-fields.cu:54:7: warning: TMA store reads shared memory 'Storage::C' written through the generic proxy
// CHECK: :51:5: note: generic-proxy write to 'Storage::C' here
// CHECK-NOT: proxyfence-async-overwrite
// CHECK: shared-storage-fields.cu:76:7: warning: TMA load overwrites shared memory 'Reused::Epilogue' written through the generic proxy
// CHECK: :73:5: note: generic-proxy write to 'Reused::Epilogue' here
// CHECK-NOT: shared-storage-fields.cu:89:{{.*}}warning
// CHECK: shared-storage-fields.cu:93:5: warning: TMA store reads dynamic shared memory written through the generic proxy
// CHECK: :90:3: note: generic-proxy write to dynamic shared memory here
// CHECK-NOT: warning:
// CHECK: proxyfence: 3 findings in 1 file
