// A kernel without __cluster_dims__, launched in this file with <<<...>>>
// only, runs as a cluster of one CTA: its "remote" arrive (mapa to rank 0)
// reaches its own barrier, ordered by the __syncthreads() after the init.
// So is one launched through a variable that holds it (`auto k = kernel;
// k<<<...>>>`). The same kernel body with __cluster_dims__(2, 1, 1), launched
// where the tool cannot see it, or through a variable that escapes to
// cudaLaunchKernelEx (which may set a cluster dimension), may have a peer
// CTA and is reported.
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

__global__ void launched_without_cluster(int *out) { BODY }
__global__ void __cluster_dims__(2, 1, 1) with_cluster(int *out) { BODY }
__global__ void launch_not_visible(int *out) { BODY }
__global__ void through_variable(int *out) { BODY }
__global__ void through_escaping_variable(int *out) { BODY }

void host(int *out) {
  cudaFuncSetAttribute(launched_without_cluster,
                       cudaFuncAttributeMaxDynamicSharedMemorySize, 0);
  launched_without_cluster<<<4, 128>>>(out);
  with_cluster<<<4, 128>>>(out);
  auto kernel = through_variable;
  cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 0);
  kernel<<<4, 128>>>(out);
  auto escaping = &through_escaping_variable;
  cudaLaunchConfig_t config = {};
  cudaLaunchKernelEx(&config, escaping, out);
}

// CHECK-NOT: cluster-shape.cu:33:{{.*}}warning
// CHECK: cluster-shape.cu:34:68: warning: mbarrier 'ready' is used by another CTA of the cluster before its initialisation is visible there
// CHECK: cluster-shape.cu:35:48: warning: mbarrier 'ready' is used by another CTA of the cluster before its initialisation is visible there
// CHECK-NOT: cluster-shape.cu:36:{{.*}}warning
// CHECK: cluster-shape.cu:37:55: warning: mbarrier 'ready' is used by another CTA of the cluster before its initialisation is visible there
// CHECK: proxyfence: 3 findings in 1 file
