// The shape of CUTLASS's TMA warp-specialized collective epilogue: a class
// template whose copy operations are template parameters (the smem writer,
// the TMA store), a `store()` member that writes the stage with one and
// hands it to a local lambda that fences, synchronises the epilogue
// threads through another lambda and issues the store with the other; the
// kernel class calls it from its epilogue role and a kernel template calls
// the kernel class with its parameters and the dynamic shared memory.
// Which copy is a TMA store is known only once instantiated: the kernel
// instantiations are analysed, and the warning is where the lambda issues
// the store, its call in `store()` a note, the fix before that call (the
// lambda's barrier is in it).
// RUN: cp %s %t.cu
// RUN: not %proxyfence %t.cu > %t.out 2>&1
// RUN: FileCheck --input-file=%t.out %s
// RUN: %proxyfence --fix --quiet %t.cu
// RUN: %proxyfence %t.cu 2>&1 | FileCheck --check-prefix=CLEAN %s
// CLEAN: proxyfence: 0 findings in 1 file
// REQUIRES: nvcc
// RUN: %nvcc-sm90a -cubin -o /dev/null %t.cu
#include <cuda.h>
#include <cstdint>

__device__ inline uint32_t smem_u32(const void *p) {
  return uint32_t(__cvta_generic_to_shared(p));
}
struct TmaStoreOp {
  __device__ static void copy(const CUtensorMap *map, const float *src, int x) {
    asm volatile("cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [%0, {%2}], [%1];"
                 :: "l"(map), "r"(smem_u32(src)), "r"(x) : "memory");
  }
};
struct SmemWriteOp {
  __device__ static void copy(const float *src, float *dst) {
    dst[threadIdx.x % 128] = *src;
  }
};
__device__ inline void epilogue_sync() {
  asm volatile("bar.sync 1, 128;" ::: "memory");
}
__device__ inline void fence_view_async_shared() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

constexpr int kStages = 2, kTile = 1024;
struct Params {
  CUtensorMap tmap_d;
  int tiles;
};
struct alignas(128) SharedStorage {
  float smem_d[kStages][kTile];
};

template <class CopyOpR2S, class CopyOpS2G, bool Fenced>
struct CollectiveEpilogue {
  const Params &params;
  __device__ explicit CollectiveEpilogue(const Params &p) : params(p) {}

  __device__ void store(SharedStorage &storage, const float *acc) {
    auto synchronize = [&]() { epilogue_sync(); };
    bool issue_tma_store = threadIdx.x % 128 == 0;
    int stage = 0;
    auto tma_store_fn = [&](int tile) {
      if constexpr (Fenced)
        fence_view_async_shared();
      synchronize();
      if (issue_tma_store)
        CopyOpS2G::copy(&params.tmap_d, storage.smem_d[stage], tile);
    };
    for (int tile = 0; tile < params.tiles; ++tile) {
      CopyOpR2S::copy(acc + tile, storage.smem_d[stage]);
      tma_store_fn(tile);
      stage ^= 1;
    }
  }
};

template <bool Fenced> struct GemmKernel {
  using Epilogue = CollectiveEpilogue<SmemWriteOp, TmaStoreOp, Fenced>;
  __device__ void operator()(const Params &params, char *smem_buf) {
    SharedStorage &storage = *reinterpret_cast<SharedStorage *>(smem_buf);
    float acc[64] = {};
    if (threadIdx.x >= 128) {
      Epilogue epilogue(params);
      epilogue.store(storage, acc);
    }
  }
};

template <class Operator>
__global__ void device_kernel(const __grid_constant__ Params params) {
  extern __shared__ char smem[];
  Operator op;
  op(params, smem);
}

void launch(const Params &params, int smem_bytes) {
  device_kernel<GemmKernel<false>><<<1, 256, smem_bytes>>>(params);
  device_kernel<GemmKernel<true>><<<1, 256, smem_bytes>>>(params);
}

// CHECK:     {{.*}}.cu:[[#ISSUE:]]:9: warning: TMA store reads shared memory 'SharedStorage::smem_d' written through the generic proxy {{.*}}[proxyfence-tma-store]
// CHECK:     {{.*}}.cu:[[#STORE:ISSUE+4]]:7: note: inside the lambda called here
// CHECK:     note: generic-proxy write to 'SharedStorage::smem_d' here
// CHECK:     {{.*}}.cu:[[#STORE]]:7: note: this barrier orders threads, not proxies; insert the fence before it
// CHECK:     {{.*}}.cu:[[#STORE]]:7: note: insert '{{.*}}' here
// CHECK-NOT: warning:
// CHECK:     proxyfence: 1 finding in 1 file
