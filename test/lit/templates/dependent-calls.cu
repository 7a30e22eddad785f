// Calls in a never-instantiated kernel template whose callee depends on a
// template parameter. One candidate (or several without effects): the
// callee. Anything else is unknown and counted in --stats: it is neither an
// async op (no finding invented from it) nor, as a statement of its own, a
// place to report a missing fence across (it may be the fence). A callable
// passed in as a value (`op(x)`), or a call whose value is used, computes:
// counted, and the hazard across it is still seen.
// RUN: not %proxyfence --stats %s 2>&1 | FileCheck %s
#include <cuda.h>
#include <cstdint>

__device__ void tma_store(const CUtensorMap *tmap, const void *src) {
  uint32_t smem = static_cast<uint32_t>(__cvta_generic_to_shared(src));
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];"
               :: "l"(tmap), "r"(smem), "r"(0), "r"(0) : "memory");
}

struct Storer {
  template <int kRows>
  __device__ static void store(const CUtensorMap *tmap, const void *src) {
    tma_store(tmap, src);
  }
};

// Overloads without effects: as good as one.
__device__ inline float widen(float x) { return x; }
__device__ inline float widen(int x) { return float(x); }

// Qualified call into a known class with a dependent template argument:
// one candidate, resolved.
template <int kRows>
__global__ void qualified(const __grid_constant__ CUtensorMap tmap, float v) {
  __shared__ alignas(128) float tile[kRows * 32];
  tile[threadIdx.x] = widen(v);
  __syncthreads();
  if (threadIdx.x == 0)
    Storer::store<kRows>(&tmap, tile);
}
// CHECK: dependent-calls.cu:37:5: warning: TMA store reads shared memory 'tile' written through the generic proxy with no fence.proxy.async on the path [proxyfence-tma-store]
// CHECK: dependent-calls.cu:34:3: note: generic-proxy write to 'tile' here

// The async op only behind a policy parameter: unknown, no finding.
template <typename Policy>
__global__ void store_by_policy(const __grid_constant__ CUtensorMap tmap, float v) {
  __shared__ alignas(128) float tile[256];
  tile[threadIdx.x] = v;
  __syncthreads();
  if (threadIdx.x == 0)
    Policy::store(&tmap, tile);
}

// The fence only behind a policy parameter: not reported as missing.
template <typename Fence>
__global__ void fence_by_policy(const __grid_constant__ CUtensorMap tmap, float v) {
  __shared__ alignas(128) float tile[256];
  tile[threadIdx.x] = v;
  Fence::fence();
  __syncthreads();
  if (threadIdx.x == 0)
    tma_store(&tmap, tile);
}

// A callable value: counted, not a fence.
template <typename Op>
__global__ void callable(const __grid_constant__ CUtensorMap tmap, Op op, float v) {
  __shared__ alignas(128) float tile[256];
  tile[threadIdx.x] = v;
  v = op(v);
  __syncthreads();
  if (threadIdx.x == 0)
    tma_store(&tmap, tile);
}
// CHECK: dependent-calls.cu:71:5: warning: TMA store reads shared memory 'tile'
// CHECK: dependent-calls.cu:67:3: note: generic-proxy write to 'tile' here

// A member call on an object of dependent type: unknown too.
template <typename Epilogue>
__global__ void epilogue_object(const __grid_constant__ CUtensorMap tmap, Epilogue epi, float v) {
  __shared__ alignas(128) float tile[256];
  tile[threadIdx.x] = v;
  epi.publish(tile);
  __syncthreads();
  if (threadIdx.x == 0)
    tma_store(&tmap, tile);
}
// A member call on a dependent object whose value is used (a size in a
// condition): a computation, and the hazard across it is reported.
template <typename Shape>
__global__ void sized(const __grid_constant__ CUtensorMap tmap, Shape shape, float v) {
  __shared__ alignas(128) float tile[256];
  tile[threadIdx.x] = v;
  if (shape.size() > 1)
    v = 0.f;
  __syncthreads();
  if (threadIdx.x == 0)
    tma_store(&tmap, tile);
}
// CHECK: dependent-calls.cu:96:5: warning: TMA store reads shared memory 'tile'
// CHECK-NOT: warning:
// CHECK: proxyfence: 3 findings in 1 file
// CHECK: proxyfence: stats: template calls left unresolved: 5
// CHECK-NEXT: proxyfence: stats: unresolved: {{.*}}dependent-calls.cu:49:5: 'store'; its effects are unknown, none assumed
// CHECK-NEXT: proxyfence: stats: unresolved: {{.*}}dependent-calls.cu:57:3: 'fence'; its effects are unknown, none assumed
// CHECK-NEXT: proxyfence: stats: unresolved: {{.*}}dependent-calls.cu:68:7: 'op'; its effects are unknown, none assumed
// CHECK-NEXT: proxyfence: stats: unresolved: {{.*}}dependent-calls.cu:81:3: 'publish'; its effects are unknown, none assumed
// CHECK-NEXT: proxyfence: stats: unresolved: {{.*}}dependent-calls.cu:92:7: 'size'; its effects are unknown, none assumed
