// nvcc (EDG) reads three things more leniently than clang, and each one cost
// the analysis the code it held:
// - a dependent type as a call's template argument without `typename`
//   (`put<C::Elem>(...)`): clang rejects it only in the instantiation and
//   drops the call;
// - a dependent member template without `template` (`SV::sub<N>`);
// - a static member read through a reference parameter in a constant
//   expression (`fill<_dst.length>`): legal only from C++23 on (P2280), so
//   clang drops the call in C++17 and C++20.
// Each is read as nvcc reads it, the file is fully analysed, the findings
// name the instantiated shared variable, and --fix edits the bytes on disk.
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/k.cu
// RUN: not %proxyfence --no-cache --stats %t/k.cu -- -std=c++17 2>&1 | FileCheck %s
// RUN: not %proxyfence --no-cache --stats %t/k.cu -- -std=c++20 2>&1 | FileCheck %s
// RUN: not %proxyfence --no-cache --stats %t/k.cu -- -std=c++20 -DNVCC_SPELLING 2>&1 | FileCheck --check-prefix=SPELLED %s
// A repair with no bytes to spend is counted as left, and the file as not
// fully analysed.
// RUN: not %proxyfence --no-cache --stats %t/k.cu -- -std=c++17 -DTIGHT 2>&1 | FileCheck --check-prefix=TIGHT %s
// RUN: cp %s %t/orig.cu && %proxyfence --no-cache --fix --quiet %t/k.cu -- -std=c++17
// RUN: not diff %t/orig.cu %t/k.cu | FileCheck --check-prefix=DIFF %s
// RUN: %proxyfence --no-cache %t/k.cu -- -std=c++17 2>&1 | FileCheck --check-prefix=FIXED %s

template <class E, int N> struct Vec {
  E data[N];
  static constexpr int length = N;
  template <int M> using sub = Vec<E, M>;
  __device__ E &operator[](int i) { return data[i]; }
};
struct Cfg { using Elem = float; };

__device__ void bulk_store(float *g, void *s, int bytes) {
  unsigned a = (unsigned)__cvta_generic_to_shared(s);
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;"
               :: "l"(g), "r"(a), "r"(bytes) : "memory");
}

template <class E, class T> __device__ void put(T &t, float v) {
  t.data[threadIdx.x] = static_cast<E>(v);
}
template <int N, class T> __device__ void fill(T &t, float v) {
  t[threadIdx.x % N] = v;
}
#ifdef NVCC_SPELLING
#define TYPENAME typename
#define TEMPLATE template
#else
#define TYPENAME
#define TEMPLATE
#endif
template <int L, class SV>
__device__ typename SV::TEMPLATE sub<L> &part(SV &v, int i) {
  return *(typename SV::TEMPLATE sub<L> *)(&v[i * L]);
}
template <class SV> __device__ void fill_part(SV &v, float x) {
  part<32>(v, threadIdx.x / 32)[threadIdx.x % 32] = x;
}
template <class SV> __device__ void fill_all(SV &_dst, float v) {
  fill<_dst.length>(_dst, v);
}

template <class C> __global__ void missing_typename(float *out, float v) {
  __shared__ alignas(128) Vec<float, 256> tile;
  put<TYPENAME C::Elem>(tile, v); // spent on the repair
  __syncthreads();
  if (threadIdx.x == 0) bulk_store(out, tile.data, 1024);
}
template __global__ void missing_typename<Cfg>(float *, float);

__global__ void missing_template(float *out, float v) {
  __shared__ alignas(128) Vec<float, 256> part_buf;
  fill_part(part_buf, v);
  __syncthreads();
  if (threadIdx.x == 0) bulk_store(out, part_buf.data, 1024);
}

__global__ void through_reference(float *out, float v) {
  __shared__ alignas(128) Vec<float, 256> buf;
  fill_all(buf, v);
  __syncthreads();
  if (threadIdx.x == 0) bulk_store(out, buf.data, 1024);
}

// A line with too few blanks of its own spends those of the next lines.
template <class C> __global__ void short_line(float *out, float v) {
  __shared__ alignas(128) Vec<float, 256> row;
  put<TYPENAME C::Elem>(row, v);
  // the issuing thread waits for every writer
  __syncthreads();
  if (threadIdx.x == 0) bulk_store(out, row.data, 1024);
}
template __global__ void short_line<Cfg>(float *, float);

#ifdef TIGHT
template <class C> __device__ void tight(Vec<float, 256> &t, float v) {
put<TYPENAME C::Elem>(t,v);}
template __device__ void tight<Cfg>(Vec<float,256>&,float);
#endif

// CHECK-DAG: k.cu:65:25: warning: bulk async store reads shared memory 'tile' written through the generic proxy {{.*}}[proxyfence-tma-store]
// CHECK-DAG: k.cu:63:3: note: inside 'put', called here
// CHECK-DAG: k.cu:73:25: warning: bulk async store reads shared memory 'part_buf' written through the generic proxy {{.*}}[proxyfence-tma-store]
// CHECK-DAG: k.cu:80:25: warning: bulk async store reads shared memory 'buf' written through the generic proxy {{.*}}[proxyfence-tma-store]
// CHECK-DAG: k.cu:89:25: warning: bulk async store reads shared memory 'row' written through the generic proxy {{.*}}[proxyfence-tma-store]
// CHECK-DAG: k.cu:86:3: note: inside 'put', called here
// CHECK: proxyfence: 4 findings in 1 file
// CHECK-NOT: not fully analysed
// CHECK: stats: nvcc's leniency recovered for clang: 2 missing 'typename', 2 missing 'template', 1 constant read through a reference parameter; 'typename' left missing: 0

// SPELLED: proxyfence: 4 findings in 1 file
// SPELLED-NOT: not fully analysed
// SPELLED: stats: nvcc's leniency recovered for clang: 0 missing 'typename', 0 missing 'template', 1 constant read through a reference parameter;

// TIGHT: rejected part of this file (1 error; first: {{.*}}k.cu:95:14: missing 'typename'
// TIGHT: proxyfence: 4 findings in 1 file
// TIGHT: not fully analysed (front-end errors): {{.*}}k.cu
// TIGHT: stats: nvcc's leniency recovered for clang: 2 missing 'typename', {{.*}}; 'typename' left missing: 1

// DIFF-COUNT-4: > asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
// DIFF-NOT: {{^[<>]}}
// FIXED: proxyfence: 0 findings in 1 file
