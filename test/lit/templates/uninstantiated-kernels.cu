// Kernel templates that this file never instantiates (they are instantiated
// in another file, or from generated source) are analysed as written: type
// and non-type parameters, a function object and a function pointer
// parameter, `if constexpr` on a template parameter. Each finding once, one
// fence each, in the template's text.
// REQUIRES: nvcc
// RUN: cp %s %t.cu
// RUN: not %proxyfence --stats %t.cu 2>&1 | FileCheck %s
// RUN: %proxyfence --fix --quiet %t.cu
// RUN: FileCheck --check-prefix=FIXED --input-file=%t.cu %s
// RUN: %proxyfence %t.cu 2>&1 | FileCheck --check-prefix=CLEAN %s
// RUN: %nvcc-sm90a -cubin -o /dev/null %t.cu
#include <cuda.h>
#include <cstdint>

__device__ void tma_store(const CUtensorMap *tmap, const void *src) {
  uint32_t smem = static_cast<uint32_t>(__cvta_generic_to_shared(src));
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];"
               :: "l"(tmap), "r"(smem), "r"(0), "r"(0) : "memory");
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}

template <typename T, int N>
__device__ void store_tile(const CUtensorMap *tmap, const T *tile) {
  tma_store(tmap, tile);
}

// A type and a non-type parameter; the store through a helper template
// that the call resolves to (one candidate).
template <typename T, int kTile>
__global__ void scale(const __grid_constant__ CUtensorMap tmap, const T *in, T s) {
  __shared__ alignas(128) T tile[kTile];
  for (int i = threadIdx.x; i < kTile; i += blockDim.x)
    tile[i] = in[i] * s;
  __syncthreads();
  if (threadIdx.x == 0)
    store_tile<T, kTile>(&tmap, tile);
}
// CHECK: uninstantiated-kernels.cu.tmp.cu:37:5: warning: TMA store reads shared memory 'tile' written through the generic proxy with no fence.proxy.async on the path [proxyfence-tma-store]
// CHECK: :34:5: note: generic-proxy write to 'tile' here
// CHECK: :35:3: note: this barrier orders threads, not proxies; insert the fence before it

// A function object (`Op op`): its call is unknown, the write around it is not.
template <typename T, typename Op>
__global__ void apply(const __grid_constant__ CUtensorMap tmap, const T *in, Op op) {
  __shared__ alignas(128) T tile[256];
  T v = op(in[threadIdx.x]);
  tile[threadIdx.x] = v;
  __syncthreads();
  if (threadIdx.x == 0)
    tma_store(&tmap, tile);
}
// CHECK: uninstantiated-kernels.cu.tmp.cu:51:5: warning: TMA store reads shared memory 'tile'
// CHECK: :48:3: note: generic-proxy write to 'tile' here

// A function pointer as a non-type parameter.
template <float (*Transform)(float), int kTile>
__global__ void transform(const __grid_constant__ CUtensorMap tmap, const float *in) {
  __shared__ alignas(128) float tile[kTile];
  tile[threadIdx.x] = Transform(in[threadIdx.x]);
  __syncthreads();
  if (threadIdx.x == 0)
    tma_store(&tmap, tile);
}
// CHECK: uninstantiated-kernels.cu.tmp.cu:63:5: warning: TMA store reads shared memory 'tile'
// CHECK: :60:3: note: generic-proxy write to 'tile' here

// `if constexpr` on a parameter: both branches are possible; the write is
// only in one of them.
template <bool kZero>
__global__ void maybe_zero(const __grid_constant__ CUtensorMap tmap) {
  __shared__ alignas(128) float tile[256];
  if constexpr (kZero) {
    tile[threadIdx.x] = 0.f;
  }
  __syncthreads();
  if (threadIdx.x == 0)
    tma_store(&tmap, tile);
}
// CHECK: uninstantiated-kernels.cu.tmp.cu:78:5: warning: TMA store reads shared memory 'tile'
// CHECK: :74:5: note: generic-proxy write to 'tile' here

// Negative: fenced as written.
template <typename T>
__global__ void fenced(const __grid_constant__ CUtensorMap tmap, T v) {
  __shared__ alignas(128) T tile[256];
  tile[threadIdx.x] = v;
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (threadIdx.x == 0)
    tma_store(&tmap, tile);
}

// Negative: the fence is in the other `if constexpr` branch only when no
// write happens; with the write it is fenced.
template <bool kWrite>
__global__ void fenced_branch(const __grid_constant__ CUtensorMap tmap) {
  __shared__ alignas(128) float tile[256];
  if constexpr (kWrite) {
    tile[threadIdx.x] = 1.f;
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  }
  __syncthreads();
  if (threadIdx.x == 0)
    tma_store(&tmap, tile);
}

// Negative: a write through a pointer parameter is resolved where the
// device function is called, not guessed to be this kernel's 'tile'.
template <typename T>
__device__ void write_through(T *dst, T v) { dst[threadIdx.x] = v; }

template <typename T>
__global__ void other_buffer(const __grid_constant__ CUtensorMap tmap, T *global, T v) {
  __shared__ alignas(128) T tile[256];
  write_through(global, v);
  __syncthreads();
  if (threadIdx.x == 0)
    tma_store(&tmap, tile);
}
// CHECK-NOT: warning:
// CHECK: proxyfence: 4 findings in 1 file
// CHECK: proxyfence: stats: template calls left unresolved: 1
// CHECK-NEXT: proxyfence: stats: unresolved: {{.*}}uninstantiated-kernels.cu.tmp.cu:47:9: 'op'; its effects are unknown, none assumed

// FIXED:      {{^    }}tile[i] = in[i] * s;
// FIXED-NEXT: {{^  }}asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
// FIXED-NEXT: {{^  }}__syncthreads();
// FIXED:      {{^  }}tile[threadIdx.x] = v;
// FIXED-NEXT: {{^  }}asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
// FIXED-NEXT: {{^  }}__syncthreads();
// FIXED:      {{^  }}tile[threadIdx.x] = Transform(in[threadIdx.x]);
// FIXED-NEXT: {{^  }}asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
// FIXED-NEXT: {{^  }}__syncthreads();
// FIXED:      {{^  }}}
// FIXED-NEXT: {{^  }}asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
// FIXED-NEXT: {{^  }}__syncthreads();

// CLEAN: proxyfence: 0 findings in 1 file
