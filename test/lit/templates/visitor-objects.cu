// Kernel templates that nothing instantiates reach their shared tiles
// through a visitor: a class template whose operator[] returns what a stored
// lambda returns. `tiles[s]` is what the lambda returns for `s` (a pointer
// into dynamic shared memory), `tiles[s]->fill(v)` is Stage::fill, and so is
// `tiles.operator[](s)->fill(v)`, whether the visitor's type is deduced from
// the lambda or written as `Visitor<decltype(at)>`. The tile is written
// through the generic proxy and then stored by TMA: the fence is missing
// unless it is there. A visitor whose operator[] does more than forward to
// its callable is not read through.
// RUN: not %proxyfence --stats %s 2>&1 | FileCheck %s
#include <cuda.h>
#include <cstdint>
#include <utility>

__device__ inline void tma_store(const CUtensorMap *map, const void *src) {
  asm volatile("cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [%0, {%2}], [%1];"
               :: "l"(map), "r"(uint32_t(__cvta_generic_to_shared(src))), "r"(0)
               : "memory");
}
__device__ inline void fence_async() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

struct Stage {
  float data[128];
  __device__ void fill(float v) { data[threadIdx.x % 128] = v; }
};

template <typename Fn>
struct Visitor {
  Fn fn;
  __device__ explicit Visitor(Fn &&f) : fn(std::forward<Fn>(f)) {}
  __device__ auto operator[](const uint32_t &i) const { return fn(i); }
};

template <uint32_t kStages>
__global__ void deduced(const __grid_constant__ CUtensorMap map, float v) {
  extern __shared__ __align__(128) uint8_t smem[];
  auto base = reinterpret_cast<Stage *>(smem);
  auto tiles = Visitor([=](const uint32_t &i) { return base + i; });
  for (uint32_t s = 0; s < kStages; ++s)
    tiles[s]->fill(v);
  __syncthreads();
  if (threadIdx.x == 0)
    tma_store(&map, tiles[0]);
}
// CHECK: visitor-objects.cu:45:5: warning: TMA store reads shared memory 'Stage::data' written through the generic proxy with no fence.proxy.async on the path [proxyfence-tma-store]
// CHECK: visitor-objects.cu:26:35: note: generic-proxy write to 'Stage::data' here
// CHECK: visitor-objects.cu:42:5: note: inside 'fill', called here

template <uint32_t kStages>
__global__ void deduced_fenced(const __grid_constant__ CUtensorMap map, float v) {
  extern __shared__ __align__(128) uint8_t smem[];
  auto base = reinterpret_cast<Stage *>(smem);
  auto tiles = Visitor([=](const uint32_t &i) { return base + i; });
  for (uint32_t s = 0; s < kStages; ++s)
    tiles[s]->fill(v);
  fence_async();
  __syncthreads();
  if (threadIdx.x == 0)
    tma_store(&map, tiles[0]);
}

// The visitor's type written out, the operator called by name.
template <uint32_t kStages>
__global__ void written(const __grid_constant__ CUtensorMap map, float v) {
  extern __shared__ __align__(128) uint8_t smem[];
  auto at = [=](const uint32_t &i) {
    return reinterpret_cast<Stage *>(smem) + i;
  };
  Visitor<decltype(at)> tiles(std::move(at));
  tiles.operator[](1)->fill(v);
  __syncthreads();
  if (threadIdx.x == 0)
    tma_store(&map, tiles.operator[](1)->data);
}
// CHECK: visitor-objects.cu:75:5: warning: TMA store reads shared memory 'Stage::data' written through the generic proxy with no fence.proxy.async on the path [proxyfence-tma-store]
// CHECK: visitor-objects.cu:26:35: note: generic-proxy write to 'Stage::data' here
// CHECK: visitor-objects.cu:72:3: note: inside 'fill', called here

// An operator[] that counts its calls besides: not a plain view of the
// lambda, so what `tiles[0]` points to stays unknown. `fill` is still
// Stage's (the one class that declares a `fill`), but the write it makes is
// to an object no one knows, and nothing is reported across it.
template <typename Fn>
struct CountingVisitor {
  Fn fn;
  int *calls;
  __device__ CountingVisitor(Fn &&f, int *c) : fn(std::forward<Fn>(f)), calls(c) {}
  __device__ auto operator[](const uint32_t &i) const {
    ++*calls;
    return fn(i);
  }
};

template <uint32_t kStages>
__global__ void counting(const __grid_constant__ CUtensorMap map, float v, int *calls) {
  extern __shared__ __align__(128) uint8_t smem[];
  auto base = reinterpret_cast<Stage *>(smem);
  auto tiles = CountingVisitor([=](const uint32_t &i) { return base + i; }, calls);
  tiles[0]->fill(v);
  __syncthreads();
  if (threadIdx.x == 0)
    tma_store(&map, smem);
}
// CHECK-NOT: warning:
// CHECK: proxyfence: 2 findings in 1 file
// CHECK-NOT: unresolved: {{.*}}visitor-objects.cu:101:3: 'fill'
// CHECK: template calls resolved through the classes that declare the member: 1
