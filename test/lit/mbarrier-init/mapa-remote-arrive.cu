// Thread 0 initialises and fences, but only __syncthreads() follows: the
// init fence publishes nothing until a cluster barrier completes, and the
// peer CTA arrives on this barrier through a `mapa` address computed in a
// separate asm statement. The fix: a relaxed cluster arrive + wait after the
// init block (the fence is already there).
// RUN: cp %s %t.cu
// RUN: not %proxyfence %t.cu 2>&1 | FileCheck %s
// RUN: %proxyfence --fix --quiet %t.cu
// RUN: FileCheck --check-prefix=FIXED --input-file=%t.cu %s
// RUN: %proxyfence %t.cu 2>&1 | FileCheck --check-prefix=CLEAN %s
// RUN: %nvcc-sm90a -cubin -o /dev/null %t.cu
#include <cstdint>

__device__ inline uint32_t smem(const void *p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ inline uint32_t peer_address(uint32_t local, uint32_t cta) {
  uint32_t remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(local), "r"(cta));
  return remote;
}

__global__ void __cluster_dims__(2, 1, 1) ping(int *out) {
  __shared__ alignas(8) uint64_t ready;
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem(&ready)) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    uint32_t rank;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
    uint32_t remote = peer_address(smem(&ready), rank ^ 1);
    asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];"
                 :: "r"(remote) : "memory");
  }
  asm volatile("{\n\t.reg .pred p;\n\tWAIT:\n\t"
               "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%0], 0;\n\t"
               "@!p bra WAIT;\n\t}" :: "r"(smem(&ready)) : "memory");
  out[blockIdx.x] = 1;
}
// CHECK: mapa-remote-arrive.cu.tmp.cu:27:5: warning: mbarrier 'ready' is used by another CTA of the cluster before its initialisation is visible there: no cluster barrier after the init fence [proxyfence-mbarrier-init]
// CHECK: :35:5: note: used by another CTA of the cluster here (mbarrier.arrive.shared::cluster)
// CHECK: :29:4: note: insert 'asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory"); asm volatile("barrier.cluster.wait.aligned;" ::: "memory");' here
// CHECK: proxyfence: 1 finding in 1 file

// FIXED:      {{^    }}asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
// FIXED-NEXT: {{^  [}]$}}
// FIXED-NEXT: {{^  }}asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
// FIXED-NEXT: {{^  }}asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
// FIXED-NEXT: {{^  }}__syncthreads();

// CLEAN: proxyfence: 0 findings in 1 file
