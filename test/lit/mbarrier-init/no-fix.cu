// Findings proxyfence reports but does not fix, each with its reason: it
// inserts cluster and CTA barriers only at statements of a kernel body that
// every thread reaches, between the init and its use, and never adds a
// cluster barrier to a kernel that has cluster barriers of its own.
// RUN: cp %s %t.cu
// RUN: not %proxyfence --fix %t.cu 2>&1 | FileCheck %s
// RUN: cmp %s %t.cu
#include <cuda.h>
#include <cstdint>

__device__ inline uint32_t smem(const void *p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ inline void multicast_load(const CUtensorMap *tmap, float *dst, uint64_t *bar) {
  asm volatile("cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes"
               ".multicast::cluster [%0], [%1, {%2}], [%3], %4;"
               :: "r"(smem(dst)), "l"(tmap), "r"(0), "r"(smem(bar)), "h"((uint16_t)0x3)
               : "memory");
}

// The init and the multicast are in one `if`: no point between them is
// reached by every thread, so there is nowhere to put the cluster barrier.
__global__ void __cluster_dims__(2, 1, 1)
same_block(const __grid_constant__ CUtensorMap tmap) {
  __shared__ alignas(128) float tile[64];
  __shared__ alignas(8) uint64_t full;
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem(&full)) : "memory");
    multicast_load(&tmap, tile, &full);
  }
}

// A device function is not known to be entered by every thread.
__device__ void setup_and_load(const CUtensorMap *tmap, float *tile, uint64_t *full) {
  if (threadIdx.x == 0)
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem(full)) : "memory");
  __syncthreads();
  if (threadIdx.x == 0)
    multicast_load(tmap, tile, full);
}

// Threads that returned early never reach a barrier after the init.
__global__ void __cluster_dims__(2, 1, 1)
early_exit(const __grid_constant__ CUtensorMap tmap) {
  __shared__ alignas(128) float tile[64];
  __shared__ alignas(8) uint64_t full;
  if (threadIdx.x >= 64)
    return;
  if (threadIdx.x == 0)
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem(&full)) : "memory");
  __syncthreads();
  if (threadIdx.x == 0)
    multicast_load(&tmap, tile, &full);
}

// The kernel's only cluster barrier comes after the use (teardown): a second
// one before it could break the pairing of arrives and waits.
__global__ void __cluster_dims__(2, 1, 1)
late_cluster_sync(const __grid_constant__ CUtensorMap tmap) {
  __shared__ alignas(128) float tile[64];
  __shared__ alignas(8) uint64_t full;
  if (threadIdx.x == 0)
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem(&full)) : "memory");
  __syncthreads();
  if (threadIdx.x == 0)
    multicast_load(&tmap, tile, &full);
  asm volatile("barrier.cluster.arrive.aligned;" ::: "memory");
  asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
}
// CHECK: no-fix.cu.tmp.cu:29:5: warning: mbarrier 'full' is used by another CTA of the cluster before its initialisation is visible there: no fence.mbarrier_init.release.cluster and no cluster barrier between them [proxyfence-mbarrier-init]
// CHECK: :16:3: note: used by another CTA of the cluster here (multicast TMA load), inside 'multicast_load'
// CHECK: :30:5: note: inside 'multicast_load', called here
// CHECK: :29:5: note: no automatic fix: the init and its use are in one statement of the kernel body: no point between them is reached by every thread
// CHECK: no-fix.cu.tmp.cu:37:5: warning: mbarrier 'full' is used by another CTA
// CHECK: :37:5: note: no automatic fix: the init is not in a kernel body: no statement is known to be reached by every thread of the CTA
// CHECK: no-fix.cu.tmp.cu:51:5: warning: mbarrier 'full' is used by another CTA
// CHECK: :51:5: note: no automatic fix: a return comes before the init: threads that returned would never reach a barrier after it
// CHECK: no-fix.cu.tmp.cu:64:5: warning: mbarrier 'full' is used by another CTA
// CHECK: :64:5: note: no automatic fix: the kernel's own cluster barriers do not order the init before this use; a second barrier could break their pairing
// CHECK: proxyfence: 4 findings in 1 file, 0 fixed, 4 left
