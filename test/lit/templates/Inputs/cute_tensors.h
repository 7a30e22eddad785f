// The CuTe tensor API a CUTLASS collective is written in, reduced to what a
// class template that nothing instantiates needs: its calls stay unresolved
// in the pattern, as CuTe's do when the copy operations are template
// parameters. (NamedBarrier and fence_view_async_shared: ws.h.)
#pragma once
#include <cstdint>

namespace cute {
struct Underscore {};
constexpr Underscore _{};
template <int N> struct Int { static constexpr int value = N; };

template <class T, int N> struct array_aligned {
  alignas(128) T storage[N];
  __device__ T *begin() { return storage; }
};
template <class T> struct smem_ptr { T *ptr; };
template <class T> struct gmem_ptr { T *ptr; };
template <class T> __device__ smem_ptr<T> make_smem_ptr(T *p) { return {p}; }
template <class T> __device__ gmem_ptr<T> make_gmem_ptr(T *p) { return {p}; }
template <class T> __device__ T *raw_pointer_cast(T *p) { return p; }
template <class T> __device__ T *raw_pointer_cast(smem_ptr<T> p) { return p.ptr; }
template <class T> __device__ T *raw_pointer_cast(gmem_ptr<T> p) { return p.ptr; }

template <class Shape> struct Layout { Shape shape; };
template <class Shape> __device__ Layout<Shape> make_layout(Shape s) { return {s}; }

template <class Engine, class L> struct Tensor {
  Engine engine;
  L layout;
  template <class... Coord> __device__ Tensor operator()(Coord...) const { return *this; }
  __device__ Engine data() const { return engine; }
};
template <class Engine, class L> Tensor(Engine, L) -> Tensor<Engine, L>;
// A view of memory, and a tensor that owns its elements (registers).
template <class Ptr, class L> __device__ Tensor<Ptr, L> make_tensor(Ptr p, L l) { return {p, l}; }
template <class T, class L> __device__ Tensor<T *, L> make_tensor(L l);

template <class Op> struct ThrCopy {
  template <class T> __device__ T partition_S(T t) const { return t; }
  template <class T> __device__ T partition_D(T t) const { return t; }
  template <class T> __device__ T retile_S(T t) const { return t; }
  template <class T> __device__ T retile_D(T t) const { return t; }
};
template <class Op> struct TiledCopy {
  __device__ ThrCopy<Op> get_slice(int) const { return {}; }
  template <class... Args> __device__ TiledCopy with(Args...) const { return *this; }
  template <class Shape> __device__ Tensor<int, Layout<Shape>> get_tma_tensor(Shape) const;
};
template <class Op, class... Args> TiledCopy<Op> make_tma_copy(Op, Args...);
template <class Op, class... Args> __device__ TiledCopy<Op> make_tiled_copy(Op, Args...) { return {}; }

template <class Op, class S, class D> __device__ void copy(TiledCopy<Op> const &, S const &, D &&);
template <class Op, class S, class D> __device__ void copy(ThrCopy<Op> const &, S const &, D &&);
template <class T, class Tile, class Coord> __device__ T local_tile(T t, Tile, Coord) { return t; }
template <class... Ts> struct Coord {};
template <class... Ts> __device__ Coord<Ts...> make_coord(Ts...) { return {}; }
// The tensor comes second: a view of it, moved to the coordinate.
template <class C, class T> __device__ T domain_offset(C, T t) { return t; }

// A TiledMMA's thread slice partitions the operands: of a shared-memory
// tensor, a warpgroup MMA makes descriptors (an SM80 MMA, register copies).
template <class Atom> struct ThrMMA {
  template <class T> __device__ T partition_fragment_A(T t) const { return t; }
  template <class T> __device__ T partition_fragment_B(T t) const { return t; }
  template <class T> __device__ T partition_fragment_C(T t) const { return t; }
};
template <class Atom> struct TiledMMA {
  __device__ ThrMMA<Atom> get_thread_slice(int) const { return {}; }
};
template <class Atom, class A, class B, class C>
__device__ void gemm(TiledMMA<Atom> const &, A const &, B const &, C &);
template <class Atom, class D, class A, class B, class C>
__device__ void gemm(TiledMMA<Atom> const &, D &, A const &, B const &, C const &);
template <bool B, class T, class F>
__device__ auto conditional_return(T const &t, F const &f) {
  if constexpr (B) return t; else return f;
}
__device__ inline void warpgroup_arrive() {
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}
__device__ inline void warpgroup_commit_batch() {
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}
} // namespace cute
