// Dynamic shared memory carved by a bump allocator, as ThunderKittens'
// shared_allocator does: each `allocate` returns the pointer's value and
// then advances it, so two calls of one allocator object never overlap.
// `distinct` and `distinct_arrays` write one tile and store another with
// TMA: no hazard. `same`
// stores the tile it wrote. `reset` sets the allocator back between its two
// calls and `copied` allocates from a copy: both may hand out the same
// memory twice, so the write may be the stored bytes. A member that moves
// the pointer back (`pop`) is no bump allocator: its tiles may overlap.
// RUN: not %proxyfence %s 2>&1 | FileCheck %s
// RUN: %nvcc-sm90a -cubin -o /dev/null %s
#include <cuda.h>
#include <cstdint>

struct allocator {
  int *ptr;
  __device__ explicit allocator(int *base) : ptr(base) {}
  template <class T> __device__ T &allocate() {
    T *p = reinterpret_cast<T *>(ptr);
    ptr += sizeof(T) / sizeof(int);
    return *p;
  }
};

// ThunderKittens' shape: a class template whose allocations are arrays and
// whose alignment step sets the pointer from a value read from it.
template <int kAlign> struct aligned_allocator {
  int *ptr;
  __device__ explicit aligned_allocator(int *base) : ptr(base) {}
  template <int A> __device__ void align() {
    uint64_t p = reinterpret_cast<uint64_t>(ptr);
    if (p % A != 0)
      ptr = (int *)(p + (A - p % A));
  }
  template <class T, int N> __device__ T (&allocate())[N] {
    align<kAlign>();
    using array = T[N];
    array *p = reinterpret_cast<array *>(ptr);
    ptr += sizeof(array) / sizeof(int);
    return *p;
  }
};

struct stack {
  int *ptr;
  __device__ explicit stack(int *top) : ptr(top) {}
  template <class T> __device__ T &pop() {
    ptr -= sizeof(T) / sizeof(int);
    T *p = reinterpret_cast<T *>(ptr);
    return *p;
  }
};

struct tile {
  float data[1024];
};

__device__ void tma_store(const CUtensorMap *map, const tile &t) {
  uint32_t s = static_cast<uint32_t>(__cvta_generic_to_shared(t.data));
  asm volatile("cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [%0, {%2}], [%1];"
               :: "l"(map), "r"(s), "r"(0) : "memory");
}

__global__ void distinct(const __grid_constant__ CUtensorMap map, float v) {
  extern __shared__ int smem[];
  allocator al(smem);
  tile &a = al.allocate<tile>();
  tile &b = al.allocate<tile>();
  b.data[threadIdx.x] = v;
  __syncthreads();
  if (threadIdx.x == 0)
    tma_store(&map, a);
}

__global__ void distinct_arrays(const __grid_constant__ CUtensorMap map,
                                float v) {
  extern __shared__ int smem[];
  aligned_allocator<1024> al(smem);
  tile (&a)[2] = al.allocate<tile, 2>();
  tile (&b)[2] = al.allocate<tile, 2>();
  for (int s = 0; s < 2; ++s) {
    b[s].data[threadIdx.x] = v;
    __syncthreads();
    if (threadIdx.x == 0)
      tma_store(&map, a[s]);
  }
}

__global__ void same(const __grid_constant__ CUtensorMap map, float v) {
  extern __shared__ int smem[];
  allocator al(smem);
  tile &a = al.allocate<tile>();
  tile &b = al.allocate<tile>();
  a.data[threadIdx.x] = v + b.data[0];
  __syncthreads();
  if (threadIdx.x == 0)
    tma_store(&map, a);
  // CHECK: .cu:[[#@LINE-1]]:5: warning: TMA store reads shared memory 'tile::data' {{.*}}[proxyfence-tma-store]
}

__global__ void reset(const __grid_constant__ CUtensorMap map, float v) {
  extern __shared__ int smem[];
  allocator al(smem);
  tile &a = al.allocate<tile>();
  al = allocator(smem);
  tile &b = al.allocate<tile>();
  b.data[threadIdx.x] = v;
  __syncthreads();
  if (threadIdx.x == 0)
    tma_store(&map, a);
  // CHECK: .cu:[[#@LINE-1]]:5: warning: TMA store reads {{.*}}[proxyfence-tma-store]
}

__global__ void copied(const __grid_constant__ CUtensorMap map, float v) {
  extern __shared__ int smem[];
  allocator al(smem);
  allocator again = al;
  tile &a = al.allocate<tile>();
  tile &b = again.allocate<tile>();
  b.data[threadIdx.x] = v;
  __syncthreads();
  if (threadIdx.x == 0)
    tma_store(&map, a);
  // CHECK: .cu:[[#@LINE-1]]:5: warning: TMA store reads {{.*}}[proxyfence-tma-store]
}

__global__ void popped(const __grid_constant__ CUtensorMap map, float v) {
  extern __shared__ int smem[];
  stack st(smem + 4096);
  tile &a = st.pop<tile>();
  tile &b = st.pop<tile>();
  b.data[threadIdx.x] = v;
  __syncthreads();
  if (threadIdx.x == 0)
    tma_store(&map, a);
  // CHECK: .cu:[[#@LINE-1]]:5: warning: TMA store reads {{.*}}[proxyfence-tma-store]
}

// CHECK-NOT: warning:
// CHECK: proxyfence: 4 findings in 1 file
