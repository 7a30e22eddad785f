// A CuTe-like tensor keeps its shared-memory pointer through an aggregate
// (`ViewEngine{iter}`), an inherited constructor (`smem_ptr`) and accessors
// that return references (`begin()`, `engine()`, `get<I>`): writing
// `view(r, c) = x`, or copying registers into it, is a generic write of that
// buffer, which a TMA store of the same buffer must be fenced after. A view
// of another buffer, or of registers, is not.
// RUN: not %proxyfence %s 2>&1 | FileCheck %s
#include <cuda.h>
#include <cstdint>

template <class T> struct ptr_base {
  T *ptr_;
  __device__ explicit ptr_base(T *p) : ptr_(p) {}
};
template <class T> struct smem_ptr : ptr_base<T> {
  using ptr_base<T>::ptr_base;
  __device__ T &operator[](int i) const { return this->ptr_[i]; }
  __device__ T *get() const { return this->ptr_; }
};
template <class Iter> struct ViewEngine {
  Iter iter_;
  __device__ Iter const &begin() const { return iter_; }
};
template <class A, class B> struct pair {
  A first;
  B second;
};
template <int I, class A, class B> __device__ A const &get(pair<A, B> const &p) { return p.first; }
template <class Engine> struct Tensor {
  pair<Engine, int> rep_;
  __device__ Engine const &engine() const { return get<0>(rep_); }
  __device__ auto data() const { return engine().begin(); }
  __device__ auto &operator()(int r, int c) const { return data()[r * 32 + c]; }
};
template <class T> __device__ Tensor<ViewEngine<smem_ptr<T>>> make_smem_tensor(T *p) {
  return {{ViewEngine<smem_ptr<T>>{smem_ptr<T>(p)}, 32}};
}
template <class T> struct Registers {
  T v[4];
  __device__ T const &operator[](int i) const { return v[i]; }
};
template <class Src, class Dst> __device__ void copy(Src const &src, Dst const &dst) {
  for (int i = 0; i < 4; ++i)
    dst(threadIdx.x / 32, i) = src[i];
}
__device__ __forceinline__ void tma_store(const CUtensorMap *map, const float *src) {
  uint32_t s = static_cast<uint32_t>(__cvta_generic_to_shared(src));
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %2}], [%1];"
               :: "l"(map), "r"(s), "r"(0) : "memory");
}

__global__ void views(const __grid_constant__ CUtensorMap map, float x) {
  __shared__ alignas(128) float tileC[1024];
  __shared__ alignas(128) float tileD[1024];
  auto sC = make_smem_tensor(tileC);
  auto sD = make_smem_tensor(tileD);
  Registers<float> r{{x, x, x, x}};
  sC(threadIdx.x / 32, threadIdx.x % 32) = x;
  copy(r, sD);
  __syncthreads();
  if (threadIdx.x == 0) {
    tma_store(&map, sC.data().get());
    tma_store(&map, sD.data().get());
  }
}

// Only registers are written: nothing to fence.
__global__ void registers_only(const __grid_constant__ CUtensorMap map, float x) {
  __shared__ alignas(128) float tileC[1024];
  auto sC = make_smem_tensor(tileC);
  Registers<float> r{{x, x, x, x}};
  Registers<float> s = r;
  s.v[0] = x;
  __syncthreads();
  if (threadIdx.x == 0)
    tma_store(&map, sC.data().get());
}

// CHECK: cute-like-view.cu:62:5: warning: TMA store reads shared memory 'tileC' written through the generic proxy
// CHECK: :58:3: note: generic-proxy write to 'tileC' here
// CHECK: cute-like-view.cu:63:5: warning: TMA store reads shared memory 'tileD' written through the generic proxy
// CHECK: :44:5: note: generic-proxy write to 'tileD' here
// CHECK: :59:3: note: inside 'copy', called here
// CHECK-NOT: warning:
// CHECK: proxyfence: 2 findings in 1 file
