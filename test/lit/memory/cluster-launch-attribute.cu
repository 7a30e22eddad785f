// A kernel handed to cudaLaunchKernelEx runs in the cluster its launch
// attribute names. Where host code sets `clusterDim` from constants, in the
// launching function or in a launcher helper that receives the dimensions
// as a dim3 (`dim3 const cluster(Cfg::cluster_size(), 1, 1)` of an
// instantiation), a cluster of one CTA is known: its "remote" arrive (mapa
// to rank 0) reaches its own barrier, ordered by the __syncthreads() after
// the init. A cluster of two, a dimension computed at run time, or one
// changed after it was set keeps the finding. So does one the launcher
// changes (its parameter reassigned, `.x *= n`) or takes from a class that
// is not dim3. An init and its use in a device function that kernels call
// (a kernel class's `operator()` behind a generic `device_kernel<Op>`, or
// through a lambda) run in the clusters of those kernels: of one CTA only
// if all of them are.
// RUN: not %proxyfence %s 2>&1 | FileCheck %s
#include <cstdint>

__device__ inline uint32_t smem(const void *p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ inline void arrive_rank0(uint64_t *bar) {
  asm volatile("{\n\t.reg .b32 r;\n\t"
               "mapa.shared::cluster.u32 r, %0, 0;\n\t"
               "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [r];\n\t}"
               :: "r"(smem(bar)) : "memory");
}

#define BODY                                                                   \
  __shared__ alignas(8) uint64_t ready;                                        \
  if (threadIdx.x == 0)                                                        \
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem(&ready))  \
                 : "memory");                                                  \
  __syncthreads();                                                             \
  if (threadIdx.x == 0)                                                        \
    arrive_rank0(&ready);                                                      \
  out[blockIdx.x] = 1;

template <int Cluster> struct Config {
  static constexpr int cluster_size() { return Cluster; }
};

template <class Cfg> __global__ void one_cta_through_launcher(int *out) { BODY }
template <class Cfg> __global__ void two_ctas_through_launcher(int *out) { BODY }
__global__ void one_cta_direct(int *out) { BODY }
__global__ void runtime_cluster(int *out) { BODY }
__global__ void changed_after_set(int *out) { BODY }

template <class Cfg> struct OneCtaOp {
  __device__ void operator()(int *out) { BODY }
};
template <class Cfg> struct TwoCtaOp {
  __device__ void operator()(int *out) { BODY }
};
template <class Op> __global__ void device_kernel(int *out) { Op{}(out); }

__device__ void shared_body(int *out) { BODY }
__global__ void shared_one(int *out) { shared_body(out); }
__global__ void shared_two(int *out) { shared_body(out); }
__global__ void parameter_changed(int *out) { BODY }
__global__ void compound_store(int *out) { BODY }
__global__ void other_class(int *out) { BODY }
__device__ void lambda_body(int *out) { BODY }
__global__ void lambda_one(int *out) { lambda_body(out); }
__global__ void lambda_two(int *out) {
  auto run = [&] { lambda_body(out); };
  run();
}

struct Launcher {
  static cudaLaunchConfig_t config(dim3 grid, dim3 cluster, dim3 block,
                                   cudaLaunchAttribute *attrs) {
    cudaLaunchConfig_t c = {};
    attrs[0].id = cudaLaunchAttributeClusterDimension;
    attrs[0].val.clusterDim = {cluster.x, cluster.y, cluster.z};
    c.gridDim = grid;
    c.blockDim = block;
    c.attrs = attrs;
    c.numAttrs = 1;
    return c;
  }
  static cudaError_t launch(dim3 grid, dim3 cluster, dim3 block,
                            const void *kernel, void **args) {
    cudaLaunchAttribute attrs[1];
    cudaLaunchConfig_t c = config(grid, cluster, block, attrs);
    return cudaLaunchKernelExC(&c, kernel, args);
  }
};

// The launching function is where the kernel's address is taken.
template <class Cfg> void run_one(int *out) {
  dim3 const cluster(Cfg::cluster_size(), 1, 1);
  void const *kernel = (void const *)one_cta_through_launcher<Cfg>;
  void *args[] = {&out};
  Launcher::launch(dim3(4), cluster, dim3(128), kernel, args);
}

template <class Cfg> void run_two(int *out) {
  dim3 const cluster(Cfg::cluster_size(), 1, 1);
  void const *kernel = (void const *)two_ctas_through_launcher<Cfg>;
  void *args[] = {&out};
  Launcher::launch(dim3(4), cluster, dim3(128), kernel, args);
}

template <class Op, class Cfg> void run_op(int *out) {
  dim3 const cluster(Cfg::cluster_size(), 1, 1);
  void const *kernel = (void const *)device_kernel<Op>;
  void *args[] = {&out};
  Launcher::launch(dim3(4), cluster, dim3(128), kernel, args);
}

void host(int *out) {
  run_one<Config<1>>(out);
  run_two<Config<2>>(out);
  run_op<OneCtaOp<Config<1>>, Config<1>>(out);
}

void host_two(int *out) { run_op<TwoCtaOp<Config<2>>, Config<2>>(out); }

void host_direct(int *out) {
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = 1;
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  cudaLaunchConfig_t config = {};
  config.attrs = attr;
  config.numAttrs = 1;
  cudaLaunchKernelEx(&config, one_cta_direct, out);
}

void host_runtime(int *out, unsigned n) {
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim = {n, 1, 1};
  cudaLaunchConfig_t config = {};
  config.attrs = attr;
  config.numAttrs = 1;
  cudaLaunchKernelEx(&config, runtime_cluster, out);
}

void host_changed(int *out, unsigned n) {
  dim3 cluster(1, 1, 1);
  if (n > 1)
    cluster.x = n;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim = {cluster.x, cluster.y, cluster.z};
  cudaLaunchConfig_t config = {};
  config.attrs = attr;
  config.numAttrs = 1;
  cudaLaunchKernelEx(&config, changed_after_set, out);
}

void host_lambda(int *out) {
  void *args[] = {&out};
  Launcher::launch(dim3(4), dim3(1, 1, 1), dim3(128), (void const *)lambda_one,
                   args);
}
void host_lambda_two(int *out) {
  void *args[] = {&out};
  Launcher::launch(dim3(4), dim3(2, 1, 1), dim3(128), (void const *)lambda_two,
                   args);
}

// CHECK-NOT: cluster-launch-attribute.cu:42:{{.*}}warning
// CHECK: cluster-launch-attribute.cu:43:76: warning: mbarrier 'ready' is used by another CTA of the cluster before its initialisation is visible there
// CHECK-NOT: cluster-launch-attribute.cu:44:{{.*}}warning
// CHECK: cluster-launch-attribute.cu:45:45: warning: mbarrier 'ready' is used by another CTA of the cluster before its initialisation is visible there
// CHECK: cluster-launch-attribute.cu:46:47: warning: mbarrier 'ready' is used by another CTA of the cluster before its initialisation is visible there
// CHECK-NOT: cluster-launch-attribute.cu:49:{{.*}}warning
// CHECK: cluster-launch-attribute.cu:52:42: warning: mbarrier 'ready' is used by another CTA of the cluster before its initialisation is visible there
// CHECK: cluster-launch-attribute.cu:56:41: warning: mbarrier 'ready' is used by another CTA of the cluster before its initialisation is visible there
// CHECK: cluster-launch-attribute.cu:59:47: warning: mbarrier 'ready' is used by another CTA of the cluster before its initialisation is visible there
// CHECK: cluster-launch-attribute.cu:60:44: warning: mbarrier 'ready' is used by another CTA of the cluster before its initialisation is visible there
// CHECK: cluster-launch-attribute.cu:61:41: warning: mbarrier 'ready' is used by another CTA of the cluster before its initialisation is visible there
// CHECK: cluster-launch-attribute.cu:62:41: warning: mbarrier 'ready' is used by another CTA of the cluster before its initialisation is visible there
// CHECK: proxyfence: 9 findings in 1 file
