// The TMA destination reaches the load through perfect forwarding
// (`static_cast<Args &&>(args)`), a tuple's forwarding accessor and a
// structured binding, as in CuTe's copy path. It stays the field it was
// taken from: a read of another field of the same shared storage is no
// write-after-read hazard (negatives), a read of the destination field is
// (positives), named after the user's field, not the container's internals.
// RUN: not %proxyfence %s -- -I%S/Inputs 2>&1 | FileCheck %s
#include "tiny_containers.h"
#include <cuda.h>

struct TmaLoad {
  __device__ static void copy(const CUtensorMap *map, uint64_t *bar, void *dst) {
    asm volatile("cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%3}], [%2];"
                 :: "r"(uint32_t(__cvta_generic_to_shared(dst))), "l"(map),
                    "r"(uint32_t(__cvta_generic_to_shared(bar))), "r"(0)
                 : "memory");
  }
};

struct SharedStorage {
  alignas(128) Storage<float, 1024> A;
  alignas(8) uint64_t bar;
  uint32_t tmem_base;
};

__device__ uint32_t sink;

#define PROLOGUE(READ)                                                        \
  extern __shared__ char smem[];                                             \
  SharedStorage &ss = *reinterpret_cast<SharedStorage *>(smem);              \
  sink = READ;                                                               \
  __syncthreads();

__global__ void functor_other_field(const __grid_constant__ CUtensorMap map) {
  PROLOGUE(ss.tmem_base)
  void *dst = ss.A.begin();
  CallCopy<TmaLoad>{}(&map, &ss.bar, dst);
}

__global__ void tuple_other_field(const __grid_constant__ CUtensorMap map) {
  PROLOGUE(ss.tmem_base)
  auto p = make_pair(1, static_cast<void *>(ss.A.begin()));
  TmaLoad::copy(&map, &ss.bar, get_second(p));
}

__global__ void binding_other_field(const __grid_constant__ CUtensorMap map) {
  PROLOGUE(ss.tmem_base)
  auto [coord, dst] = make_pair(1, static_cast<void *>(ss.A.begin()));
  TmaLoad::copy(&map, &ss.bar, dst);
}

__global__ void functor_same_field(const __grid_constant__ CUtensorMap map) {
  PROLOGUE(ss.A.begin()[threadIdx.x])
  void *dst = ss.A.begin();
  CallCopy<TmaLoad>{}(&map, &ss.bar, dst);
}

__global__ void tuple_same_field(const __grid_constant__ CUtensorMap map) {
  PROLOGUE(ss.A.begin()[threadIdx.x])
  auto p = make_pair(1, static_cast<void *>(ss.A.begin()));
  TmaLoad::copy(&map, &ss.bar, get_second(p));
}

__global__ void binding_same_field(const __grid_constant__ CUtensorMap map) {
  PROLOGUE(ss.A.begin()[threadIdx.x])
  auto [coord, dst] = make_pair(1, static_cast<void *>(ss.A.begin()));
  TmaLoad::copy(&map, &ss.bar, dst);
}

// CHECK-NOT: forwarding-and-bindings.cu:{{3[0-9]|4[0-9]}}:{{.*}}warning
// CHECK: forwarding-and-bindings.cu:[[@LINE-16]]:3: warning: TMA load overwrites shared memory 'SharedStorage::A' read through the generic proxy
// CHECK: forwarding-and-bindings.cu:[[@LINE-11]]:3: warning: TMA load overwrites shared memory 'SharedStorage::A' read through the generic proxy
// CHECK: forwarding-and-bindings.cu:[[@LINE-6]]:3: warning: TMA load overwrites shared memory 'SharedStorage::A' read through the generic proxy
// CHECK: proxyfence: 3 findings in 1 file
