// The exact text of proxyfence-async-overwrite: which async write, which
// memory, whether the generic access was a read or a write.
// RUN: not %proxyfence --arch=sm_100a %s -- -I%S/Inputs 2>&1 | FileCheck %s --match-full-lines --strict-whitespace
#include <cuda.h>
#include "mbar.h"

// Write-after-write: the buffer is cleared with plain stores, then refilled
// by a TMA tensor load.
__global__ void clear_then_load(const __grid_constant__ CUtensorMap tmap) {
  __shared__ alignas(128) float tile[32 * 32];
  __shared__ alignas(8) uint64_t full;
  for (int i = threadIdx.x; i < 32 * 32; i += blockDim.x)
    tile[i] = 0.f;
  if (threadIdx.x == 0)
    mbar_init(&full, 1);
  __syncthreads();
  if (threadIdx.x == 0) {
    mbar_expect_tx(&full, sizeof(tile));
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                 :: "r"(smem_u32(tile)), "l"(&tmap), "r"(0), "r"(0),
                    "r"(smem_u32(&full))
                 : "memory");
  }
}

// Write-after-read through dynamic shared memory and a non-tensor bulk load.
__global__ void read_then_load(const float *in, float *out) {
  extern __shared__ __align__(128) float dyn[];
  __shared__ alignas(8) uint64_t full;
  out[threadIdx.x] = dyn[threadIdx.x];
  if (threadIdx.x == 0) {
    mbar_init(&full, 1);
    mbar_expect_tx(&full, 4096);
    bulk_load(dyn, in, 4096, &full);
  }
}

// clusterlaunchcontrol.try_cancel writes its response through the async
// proxy: reading the previous response and asking again overwrites it.
__global__ void try_cancel_again(int *out) {
  __shared__ alignas(16) uint4 response;
  __shared__ alignas(8) uint64_t bar;
  out[threadIdx.x] = static_cast<int>(response.x);
  if (threadIdx.x == 0)
    asm volatile("clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128 [%0], [%1];"
                 :: "r"(smem_u32(&response)), "r"(smem_u32(&bar)) : "memory");
}

// Either of two offsets of dynamic shared memory: still named once.
__global__ void read_then_load_either_half(const float *in, float *out,
                                           int half) {
  extern __shared__ __align__(128) float dyn[];
  __shared__ alignas(8) uint64_t full;
  float *buf = half ? dyn + 1024 : dyn;
  out[threadIdx.x] = buf[threadIdx.x];
  if (threadIdx.x == 0) {
    mbar_init(&full, 1);
    mbar_expect_tx(&full, 4096);
    bulk_load(buf, in, 4096, &full);
  }
}

//      CHECK:{{.*}}messages.cu:19:5: warning: TMA load overwrites shared memory 'tile' written through the generic proxy with no fence.proxy.async on the path [proxyfence-async-overwrite]
//      CHECK:{{.*}}messages.cu:13:5: note: generic-proxy write to 'tile' here
//      CHECK:{{.*}}messages.cu:16:3: note: this barrier orders threads, not proxies; insert the fence before it
//      CHECK:{{.*}}messages.cu:16:3: note: insert 'asm volatile("fence.proxy.async.shared::cta;" ::: "memory");' here
//      CHECK:{{.*}}messages.cu:34:5: warning: bulk async load overwrites dynamic shared memory read through the generic proxy with no fence.proxy.async on the path [proxyfence-async-overwrite]
//      CHECK:{{.*}}mbar.h:31:3: note: bulk async load issued here, inside 'bulk_load'
//      CHECK:{{.*}}messages.cu:30:22: note: generic-proxy read of dynamic shared memory here
//      CHECK:{{.*}}messages.cu:33:5: note: this barrier orders threads, not proxies; insert the fence before it
//      CHECK:{{.*}}messages.cu:33:5: note: insert 'asm volatile("fence.proxy.async.shared::cta;" ::: "memory");' here
//      CHECK:{{.*}}messages.cu:45:5: warning: clusterlaunchcontrol.try_cancel overwrites shared memory 'response' read through the generic proxy with no fence.proxy.async on the path [proxyfence-async-overwrite]
//      CHECK:{{.*}}messages.cu:43:39: note: generic-proxy read of 'response' here
//      CHECK:{{.*}}messages.cu:45:5: note: insert 'asm volatile("fence.proxy.async.shared::cta;" ::: "memory");' here
//      CHECK:{{.*}}messages.cu:59:5: warning: bulk async load overwrites dynamic shared memory read through the generic proxy with no fence.proxy.async on the path [proxyfence-async-overwrite]
//      CHECK:proxyfence: 4 findings in 1 file
