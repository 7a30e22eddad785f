// Blackwell (sm_100a) in raw PTX: tcgen05.mma reading A and B through smem
// descriptors, tcgen05.mma with A in tensor memory ([taddr]: not an smem
// read), tcgen05.cp (smem -> TMEM) of scale factors, and their cta_group::2
// forms, issued by one thread after a CTA or cluster barrier.
// REQUIRES: nvcc
// RUN: cp %s %t.cu
// RUN: not %proxyfence --arch=sm_100a %t.cu 2>&1 | FileCheck %s
// RUN: %proxyfence --arch=sm_100a --fix --quiet %t.cu
// RUN: FileCheck --check-prefix=FIXED --input-file=%t.cu %s
// RUN: cp %t.cu %t.again.cu
// RUN: %proxyfence --arch=sm_100a --fix --quiet %t.again.cu
// RUN: cmp %t.cu %t.again.cu
// RUN: %proxyfence --arch=sm_100a %t.cu 2>&1 | FileCheck --check-prefix=CLEAN %s
// RUN: %nvcc-sm100a -cubin -o /dev/null %t.cu
#include <cuda_bf16.h>
#include <cstdint>

// K-major, no swizzle; bit 46 is the descriptor version Blackwell requires.
__device__ __forceinline__ uint64_t smem_desc(const void *smem) {
  uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(smem));
  return ((addr & 0x3FFFF) >> 4) | (uint64_t(128 >> 4) << 16) |
         (uint64_t(256 >> 4) << 32) | (uint64_t(1) << 46);
}

__device__ __forceinline__ void tmem_alloc(uint32_t *dst, uint32_t ncols) {
  uint32_t dst_addr = static_cast<uint32_t>(__cvta_generic_to_shared(dst));
  asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], %1;"
               :: "r"(dst_addr), "r"(ncols) : "memory");
}

__device__ __forceinline__ void commit(uint64_t *bar) {
  uint32_t bar_addr = static_cast<uint32_t>(__cvta_generic_to_shared(bar));
  asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];"
               :: "r"(bar_addr) : "memory");
}

// A and B from shared memory, both staged with C++ stores.
__global__ void mma_ss(const __nv_bfloat16 *A, const __nv_bfloat16 *B,
                       uint32_t idesc) {
  __shared__ alignas(1024) __nv_bfloat16 sA[128 * 16];
  __shared__ alignas(1024) __nv_bfloat16 sB[128 * 16];
  __shared__ uint32_t tmem_base;
  __shared__ alignas(8) uint64_t done;
  if (threadIdx.x < 32)
    tmem_alloc(&tmem_base, 128);
  for (int i = threadIdx.x; i < 128 * 16; i += blockDim.x) {
    sA[i] = A[i];
    sB[i] = B[i];
  }
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  if (threadIdx.x == 0) {
    asm volatile("{\n"
                 ".reg .pred p;\n"
                 "setp.ne.b32 p, %4, 0;\n"
                 "tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, p;\n"
                 "}\n"
                 :: "r"(tmem_base), "l"(smem_desc(sA)), "l"(smem_desc(sB)),
                    "r"(idesc), "r"(0)
                 : "memory");
    commit(&done);
  }
}

// A from tensor memory: only B is read from shared memory. sA (the residual
// tile, read back with plain loads later) is not an operand.
__global__ void mma_ts(const __nv_bfloat16 *A, const __nv_bfloat16 *B,
                       uint32_t idesc, float *Out) {
  __shared__ alignas(1024) __nv_bfloat16 sA[128 * 16];
  __shared__ alignas(1024) __nv_bfloat16 sB[128 * 16];
  __shared__ uint32_t tmem_base;
  __shared__ alignas(8) uint64_t done;
  if (threadIdx.x < 32)
    tmem_alloc(&tmem_base, 256);
  for (int i = threadIdx.x; i < 128 * 16; i += blockDim.x) {
    sA[i] = A[i];
    sB[i] = B[i];
  }
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  if (threadIdx.x == 0) {
    asm volatile("{\n"
                 ".reg .pred p;\n"
                 "setp.ne.b32 p, %4, 0;\n"
                 "tcgen05.mma.cta_group::1.kind::f16 [%0], [%1], %2, %3, p;\n"
                 "}\n"
                 :: "r"(tmem_base), "r"(tmem_base + 128), "l"(smem_desc(sB)),
                    "r"(idesc), "r"(0)
                 : "memory");
    commit(&done);
  }
  Out[threadIdx.x] = __bfloat162float(sA[threadIdx.x]);
}

// Scale factors computed by the threads, copied to tensor memory.
__global__ void cp_scales(const float *amax, uint32_t taddr) {
  __shared__ alignas(128) uint8_t sSF[128 * 32];
  for (int i = threadIdx.x; i < 128 * 32; i += blockDim.x)
    sSF[i] = static_cast<uint8_t>(amax[i] * 0.5f);
  __syncthreads();
  if (threadIdx.x == 0)
    asm volatile("tcgen05.cp.cta_group::1.128x256b [%0], %1;"
                 :: "r"(taddr), "l"(smem_desc(sSF)) : "memory");
}

// One thread writes the scale factors once and copies a slice per k-step:
// no barrier between, so the fence goes right before the copy, hoisted out
// of the loop.
__global__ void cp_scales_loop(const float *amax, uint32_t taddr, int ksteps) {
  __shared__ alignas(128) uint8_t sSF[8][128 * 32];
  if (threadIdx.x == 0) {
    for (int i = 0; i < 8 * 128 * 32; ++i)
      sSF[i / (128 * 32)][i % (128 * 32)] = static_cast<uint8_t>(amax[i]);
    for (int k = 0; k < ksteps; ++k)
      asm volatile("tcgen05.cp.cta_group::1.128x256b [%0], %1;"
                   :: "r"(taddr + k * 8), "l"(smem_desc(sSF[k % 8]))
                   : "memory");
  }
}

// cta_group::2: the pair's MMA (issued by the even CTA) and copy read both
// CTAs' operands; each CTA writes its own halves and the cluster barrier
// hands them over.
__global__ void __cluster_dims__(2, 1, 1)
mma_pair(const __nv_bfloat16 *A, const __nv_bfloat16 *B, const float *amax,
         uint32_t tmem_d, uint32_t idesc) {
  __shared__ alignas(1024) __nv_bfloat16 sA[128 * 16];
  __shared__ alignas(1024) __nv_bfloat16 sB[64 * 16];
  __shared__ alignas(128) uint8_t sSF[128 * 32];
  for (int i = threadIdx.x; i < 128 * 16; i += blockDim.x)
    sA[i] = A[i];
  for (int i = threadIdx.x; i < 64 * 16; i += blockDim.x)
    sB[i] = B[i];
  for (int i = threadIdx.x; i < 128 * 32; i += blockDim.x)
    sSF[i] = static_cast<uint8_t>(amax[i]);
  asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
  asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
  uint32_t rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  if (rank % 2 == 0 && threadIdx.x == 0) {
    asm volatile("tcgen05.cp.cta_group::2.128x256b [%0], %1;"
                 :: "r"(tmem_d + 256), "l"(smem_desc(sSF)) : "memory");
    asm volatile("{\n"
                 ".reg .pred p;\n"
                 "setp.ne.b32 p, %4, 0;\n"
                 "tcgen05.mma.cta_group::2.kind::f16 [%0], %1, %2, %3, p;\n"
                 "}\n"
                 :: "r"(tmem_d), "l"(smem_desc(sA)), "l"(smem_desc(sB)),
                    "r"(idesc), "r"(0)
                 : "memory");
  }
}
// CHECK: tcgen05-raw-ptx.cu.tmp.cu:54:5: warning: tcgen05.mma reads shared memory 'sA' or 'sB' as an operand, written through the generic proxy with no fence.proxy.async on the path [proxyfence-mma-operand]
// CHECK: :47:5: note: generic-proxy write to 'sA' here
// CHECK: :48:5: note: generic-proxy write to 'sB' here
// CHECK: :51:3: note: this barrier orders threads, not proxies; insert the fence before it
// CHECK: :51:3: note: insert 'asm volatile("fence.proxy.async.shared::cta;" ::: "memory");' here
// CHECK: tcgen05-raw-ptx.cu.tmp.cu:84:5: warning: tcgen05.mma reads shared memory 'sB' as an operand, written through the generic proxy with no fence.proxy.async on the path [proxyfence-mma-operand]
// CHECK-NOT: 'sA'
// CHECK: :78:5: note: generic-proxy write to 'sB' here
// CHECK-NOT: 'sA'
// CHECK: :81:3: note: insert 'asm volatile("fence.proxy.async.shared::cta;" ::: "memory");' here
// CHECK: tcgen05-raw-ptx.cu.tmp.cu:104:5: warning: tcgen05.cp reads shared memory 'sSF' as an operand, written through the generic proxy with no fence.proxy.async on the path [proxyfence-mma-operand]
// CHECK: :101:5: note: generic-proxy write to 'sSF' here
// CHECK: :102:3: note: this barrier orders threads, not proxies; insert the fence before it
// CHECK: :102:3: note: insert 'asm volatile("fence.proxy.async.shared::cta;" ::: "memory");' here
// CHECK: tcgen05-raw-ptx.cu.tmp.cu:117:7: warning: tcgen05.cp reads shared memory 'sSF' as an operand
// CHECK: :115:7: note: generic-proxy write to 'sSF' here
// CHECK-NOT: barrier orders threads
// CHECK: :116:5: note: insert 'asm volatile("fence.proxy.async.shared::cta;" ::: "memory");' here, before the loop: no write happens inside it
// CHECK: tcgen05-raw-ptx.cu.tmp.cu:143:5: warning: tcgen05.cp reads shared memory 'sSF' as an operand
// CHECK: :137:5: note: generic-proxy write to 'sSF' here
// CHECK: :138:3: note: this barrier orders threads, not proxies; insert the fence before it
// CHECK: tcgen05-raw-ptx.cu.tmp.cu:145:5: warning: tcgen05.mma reads shared memory 'sA' or 'sB' as an operand
// CHECK: :133:5: note: generic-proxy write to 'sA' here
// CHECK: :135:5: note: generic-proxy write to 'sB' here
// CHECK: :138:3: note: this barrier orders threads, not proxies; insert the fence before it
// CHECK: :138:3: note: insert 'asm volatile("fence.proxy.async.shared::cta;" ::: "memory");' here
// CHECK: proxyfence: 6 findings in 1 file

// mma_ss and mma_ts: before the CTA barrier (after tcgen05.fence, which
// orders tcgen05 operations, not proxies).
// FIXED:      asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
// FIXED-NEXT: {{^  }}asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
// FIXED-NEXT: {{^  }}__syncthreads();
// FIXED:      asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
// FIXED-NEXT: {{^  }}asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
// FIXED-NEXT: {{^  }}__syncthreads();
// cp_scales
// FIXED:      sSF[i] = static_cast<uint8_t>(amax[i] * 0.5f);
// FIXED-NEXT: {{^  }}asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
// FIXED-NEXT: {{^  }}__syncthreads();
// cp_scales_loop: once, between the writes and the k-loop
// FIXED:      sSF[i / (128 * 32)][i % (128 * 32)] = static_cast<uint8_t>(amax[i]);
// FIXED-NEXT: {{^    }}asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
// FIXED-NEXT: {{^    }}for (int k = 0; k < ksteps; ++k)
// mma_pair: one fence for both findings, before the cluster arrive
// FIXED:      sSF[i] = static_cast<uint8_t>(amax[i]);
// FIXED-NEXT: {{^  }}asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
// FIXED-NEXT: {{^  }}asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");

// CLEAN: proxyfence: 0 findings in 1 file
