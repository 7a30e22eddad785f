// A task template that nothing instantiates (a JIT-generated kernel calls it)
// takes its TMA object as a template parameter and its output tile as a
// local view object. In the pattern:
// - `out.store_async(tile(0, 0), c)` on an object of template-parameter type
//   calls one of the classes of the translation unit that declare a
//   `store_async` for those arguments; the 2-D and 3-D maps both issue a TMA
//   store of their first argument, so the call is a TMA store (the 4-D map,
//   which only traps here, is set aside);
// - `Tile tile(buf)` runs the one constructor of the view's class template
//   that takes one argument, so `tile.at(r, c)` and `tile(0, 0)` are `buf`.
// The write through the view, then the store with no fence, is reported; a
// write to another buffer is not; a member whose classes differ (one stores,
// one only copies with the generic proxy) stays unresolved, and so does one
// given an address the model cannot place, and one that would be a fence.
// RUN: cp %s %t.cu
// RUN: not %proxyfence --stats %t.cu -- 2>&1 | FileCheck %s
// CHECK: member-of-parameter-type.cu.tmp.cu:[[@LINE+84]]:5: warning: TMA store reads shared memory 'out_buf' written through the generic proxy with no fence.proxy.async on the path [proxyfence-tma-store]
// CHECK: member-of-parameter-type.cu.tmp.cu:[[@LINE+80]]:3: note: generic-proxy write to 'out_buf' here
// CHECK: member-of-parameter-type.cu.tmp.cu:[[@LINE+129]]:5: warning: TMA store reads shared memory 'in_buf' written through the generic proxy with no fence.proxy.async on the path [proxyfence-tma-store]
// CHECK-NOT: warning:
// CHECK: proxyfence: 2 findings in 1 file
// CHECK: proxyfence: stats: template calls left unresolved: 3
// CHECK-NEXT: proxyfence: stats: unresolved: {{.*}}member-of-parameter-type.cu.tmp.cu:[[@LINE+101]]:5: 'flush'
// CHECK-NEXT: proxyfence: stats: unresolved: {{.*}}member-of-parameter-type.cu.tmp.cu:[[@LINE+110]]:5: 'store_async'
// CHECK-NEXT: proxyfence: stats: unresolved: {{.*}}member-of-parameter-type.cu.tmp.cu:[[@LINE+120]]:3: 'publish'
// CHECK-NEXT: proxyfence: stats: template calls resolved through the classes that declare the member: 3
// RUN: %proxyfence --fix --quiet %t.cu --
// RUN: %proxyfence %t.cu -- 2>&1 | FileCheck --check-prefix=CLEAN %s
// CLEAN: proxyfence: 0 findings in 1 file
// RUN: %nvcc-sm90a -cubin -o /dev/null %s
// REQUIRES: nvcc
#include <cstdint>

template <typename T, int kRows> struct Tma2d {
  const void *desc;
  __device__ void launch(const void *smem, int c0, int c1) const {
    unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group "
                 "[%0, {%2, %3}], [%1];"
                 :: "l"(desc), "r"(s), "r"(c0), "r"(c1) : "memory");
  }
  __device__ void store_async(const T *smem, int c) const {
    for (int i = 0; i < kRows; ++i)
      launch(smem + i * 64, c, i);
  }
  // Copies with the generic proxy: not what Tma3d's flush does.
  __device__ void flush(T *smem, T *gmem) const { gmem[0] = smem[0]; }
  // Fences; Tma3d's publish does nothing.
  __device__ void publish() const {
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  }
};

template <typename T> struct Tma3d {
  const void *desc;
  __device__ void store_async(const T *smem, int c) const {
    unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
    asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.bulk_group "
                 "[%0, {%2, %3, %4}], [%1];"
                 :: "l"(desc), "r"(s), "r"(c), "r"(0), "r"(0) : "memory");
  }
  __device__ void publish() const {}
  __device__ void flush(T *smem, T *) const {
    unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
    asm volatile("cp.async.bulk.tensor.1d.global.shared::cta.bulk_group "
                 "[%0, {%2}], [%1];"
                 :: "l"(desc), "r"(s), "r"(0) : "memory");
  }
};

// What this configuration compiles a 4-D map to: a trap. It does nothing
// that a caller passes the class for, so it does not stand in the way.
template <typename T> struct Tma4d {
  const void *desc;
  __device__ void store_async(const T *smem, int c) const {
    int coords[4] = {c, 0, 0, 0};
    if (coords[0] >= 0)
      asm volatile("trap;");
  }
};

// A row-major view of a tile in shared memory.
template <typename T, int kCols> struct TileView {
  T *base;
  __device__ explicit TileView(T *p) : base(p) {}
  __device__ T &at(int r, int c) { return base[r * kCols + c]; }
  __device__ T *operator()(int r, int c) { return &base[r * kCols + c]; }
};

__shared__ float out_buf[64 * 64];
__shared__ float in_buf[64 * 64];

// The view's element writes reach the TMA store: the fence is missing.
template <typename T, typename TmaOut>
__device__ void store_tile(const TmaOut &out, int c) {
  using Tile = TileView<T, 64>;
  Tile tile(reinterpret_cast<T *>(out_buf));
  tile.at(threadIdx.y, threadIdx.x) = T(1);
  __syncthreads();
  if (threadIdx.x == 0 && threadIdx.y == 0)
    out.store_async(tile(0, 0), c);
}

// Writes another buffer than the one stored: nothing to fence.
template <typename T, typename TmaOut>
__device__ void store_other(const TmaOut &out, int c) {
  using Tile = TileView<T, 64>;
  Tile scratch(reinterpret_cast<T *>(in_buf));
  Tile tile(reinterpret_cast<T *>(out_buf));
  scratch.at(threadIdx.y, threadIdx.x) = T(2);
  __syncthreads();
  if (threadIdx.x == 0 && threadIdx.y == 0)
    out.store_async(tile(0, 0), c);
}

// The two `flush` members differ: which one runs is the instantiation's to
// say, so the call stays unresolved (counted, taken as a possible fence).
template <typename T, typename TmaOut>
__device__ void flush_tile(const TmaOut &out, T *gmem) {
  T *tile = reinterpret_cast<T *>(out_buf);
  tile[threadIdx.x] = T(3);
  __syncthreads();
  if (threadIdx.x == 0)
    out.flush(tile, gmem);
}

// An address the model cannot place (loaded from memory): a callee known by
// its name only is not trusted with it, so the call stays unresolved.
template <typename T, typename TmaOut>
__device__ void store_loaded(const TmaOut &out, T *const *where, int c) {
  reinterpret_cast<T *>(out_buf)[threadIdx.x] = T(4);
  __syncthreads();
  if (threadIdx.x == 0)
    out.store_async(*where, c);
}

// `publish` fences in one class and does nothing in the other: a callee known
// by its name only is never taken for the fence. This function fences
// elsewhere itself, so the unresolved call is not taken for it either, and
// the missing fence before the store is reported.
template <typename T, typename TmaOut>
__device__ void store_after_publish(const TmaOut &out, int c) {
  T *tile = reinterpret_cast<T *>(in_buf);
  tile[threadIdx.x] = T(5);
  out.publish();
  __syncthreads();
  if (threadIdx.x == 0)
    out.store_async(tile, c);
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}
