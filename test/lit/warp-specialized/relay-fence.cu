// A proxy fence in another role on the hand-over chain. The epilogue writes
// its output tile, which shares memory with the V tile, and arrives on
// `bar_o`; the producer waits on `bar_o`, rewrites V, fences, and arrives on
// `full`; the consumer waits on `full` and the async proxy reads V. The
// producer's fence lies on the causality path from the epilogue's write to
// that read, which orders the two proxies (PTX ISA 8.9.5, proxy-preserved
// base causality order): no finding, whether the roles are branches of the
// kernel or functions of their own. Without the producer's fence, or when
// the consumer's write was never handed to the fencing role, it is a hazard.
// REQUIRES: nvcc
// RUN: not %proxyfence %s -- -I%S/Inputs 2>&1 | FileCheck %s
// RUN: not %proxyfence --trace=%s:65 %s -- -I%S/Inputs 2>&1 | FileCheck --check-prefix=TRACE %s
// RUN: %nvcc-sm90a -I%S/Inputs -cubin -o /dev/null %s
#include "ws.h"

constexpr int TILE = 2048;

struct Storage {
  union {
    alignas(128) float o[TILE];
    alignas(128) float v[TILE];
  };
  alignas(128) float vt[TILE];
  uint64_t bar_o, full, other;
};

// Roles as branches of one persistent loop.
__global__ void relay_in_kernel(float *out, int tiles) {
  __shared__ Storage s;
  for (int t = 0; t < tiles; ++t) {
    if (threadIdx.x >= 128) { // producer
      mbar_wait(&s.bar_o, t & 1);
      for (int i = threadIdx.x - 128; i < TILE; i += 128)
        s.v[i] = s.vt[i] * 2.0f;
      cutlass::arch::fence_view_async_shared();
      mbar_arrive(&s.full);
    } else { // consumer, then epilogue
      mbar_wait(&s.full, t & 1);
      if (threadIdx.x == 0)
        bulk_store(out + t * TILE, s.v, sizeof(s.v));
      bulk_wait_read();
      for (int i = threadIdx.x; i < TILE; i += 128)
        s.o[i] = float(i + t);
      named_sync(1, 128);
      mbar_arrive(&s.bar_o);
    }
  }
}

// The same roles as functions: the relay is found in the producer's
// callees and lifted to the kernel, where the epilogue's write meets it.
__device__ void transpose_and_commit(Storage &s) {
  for (int i = threadIdx.x - 128; i < TILE; i += 128)
    s.v[i] = s.vt[i] * 2.0f;
  cutlass::arch::fence_view_async_shared();
  mbar_arrive(&s.full);
}
__device__ void produce(Storage &s, int t) {
  mbar_wait(&s.bar_o, t & 1);
  transpose_and_commit(s);
}
__device__ void consume(Storage &s, float *out, int t) {
  mbar_wait(&s.full, t & 1);
  if (threadIdx.x == 0)
    bulk_store(out + t * TILE, s.v, sizeof(s.v));
  bulk_wait_read();
}
__device__ void epilogue(Storage &s, int t) {
  for (int i = threadIdx.x; i < TILE; i += 128)
    s.o[i] = float(i + t);
  named_sync(1, 128);
  mbar_arrive(&s.bar_o);
}
__global__ void relay_in_functions(float *out, int tiles) {
  __shared__ Storage s;
  for (int t = 0; t < tiles; ++t) {
    if (threadIdx.x >= 128) {
      produce(s, t);
    } else {
      consume(s, out, t);
      epilogue(s, t);
    }
  }
}

// The hand-over as pipelines write it: the consumer's barrier is reached
// through a pointer the pipeline holds, and the epilogue arrives on `bar_o`
// once per cluster rank, in a loop that runs at least once.
struct Pipeline {
  uint64_t *full;
};
template <int Ranks>
__global__ void relay_through_pipeline(float *out, int tiles) {
  __shared__ Storage s;
  Pipeline pipe{&s.full};
  for (int t = 0; t < tiles; ++t) {
    if (threadIdx.x >= 128) {
      mbar_wait(&s.bar_o, t & 1);
      for (int i = threadIdx.x - 128; i < TILE; i += 128)
        s.v[i] = s.vt[i] * 2.0f;
      cutlass::arch::fence_view_async_shared();
      mbar_arrive(pipe.full);
    } else {
      mbar_wait(pipe.full, t & 1);
      if (threadIdx.x == 0)
        bulk_store(out + t * TILE, s.v, sizeof(s.v));
      bulk_wait_read();
      for (int i = threadIdx.x; i < TILE; i += 128)
        s.o[i] = float(i + t);
      named_sync(1, 128);
      for (int r = 0; r < Ranks; ++r)
        mbar_arrive(&s.bar_o);
    }
  }
}
template __global__ void relay_through_pipeline<1>(float *, int);

// The producer does not fence: its own write and the epilogue's reach the
// bulk store.
// CHECK: relay-fence.cu:[[@LINE+12]]:{{[0-9]+}}: warning: bulk async store reads shared memory 's' written through the generic proxy
__global__ void no_fence_in_relay(float *out, int tiles) {
  __shared__ Storage s;
  for (int t = 0; t < tiles; ++t) {
    if (threadIdx.x >= 128) {
      mbar_wait(&s.bar_o, t & 1);
      for (int i = threadIdx.x - 128; i < TILE; i += 128)
        s.v[i] = s.vt[i] * 2.0f;
      mbar_arrive(&s.full);
    } else {
      mbar_wait(&s.full, t & 1);
      if (threadIdx.x == 0)
        bulk_store(out + t * TILE, s.v, sizeof(s.v));
      bulk_wait_read();
      for (int i = threadIdx.x; i < TILE; i += 128)
        s.o[i] = float(i + t);
      named_sync(1, 128);
      mbar_arrive(&s.bar_o);
    }
  }
}

// The producer fences after waiting on `other`, which the epilogue never
// arrives on: its fence may run before the epilogue's write.
// CHECK: relay-fence.cu:[[@LINE+13]]:{{[0-9]+}}: warning: bulk async store reads shared memory 's' written through the generic proxy
__global__ void fence_not_on_the_path(float *out, int tiles) {
  __shared__ Storage s;
  for (int t = 0; t < tiles; ++t) {
    if (threadIdx.x >= 128) {
      mbar_wait(&s.other, t & 1);
      for (int i = threadIdx.x - 128; i < TILE; i += 128)
        s.v[i] = s.vt[i] * 2.0f;
      cutlass::arch::fence_view_async_shared();
      mbar_arrive(&s.full);
    } else {
      mbar_wait(&s.full, t & 1);
      if (threadIdx.x == 0)
        bulk_store(out + t * TILE, s.v, sizeof(s.v));
      bulk_wait_read();
      for (int i = threadIdx.x; i < TILE; i += 128)
        s.o[i] = float(i + t);
      named_sync(1, 128);
      mbar_arrive(&s.bar_o);
    }
  }
}
// Every thread reads `o` in a prologue, then the producer refills `v`, which
// shares its memory, by a bulk load once its acquire (a wait on `empty`,
// then an arrive on `full`) passes; the consumer waits on `full`, fences and
// arrives on `empty`. That fence does not order the prologue's reads before
// the first load: the first wait on `empty` passes with no arrive at all.
__device__ __forceinline__ void bulk_load(void *smem, const void *gmem,
                                          uint32_t bytes, uint64_t *bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"
               " [%0], [%1], %2, [%3];"
               :: "r"(smem_u32(smem)), "l"(gmem), "r"(bytes), "r"(smem_u32(bar))
               : "memory");
}
struct Staged {
  union {
    alignas(128) float o[TILE];
    alignas(128) float v[TILE];
  };
  uint64_t full, empty;
};
__device__ void acquire(Staged &s, int t) {
  mbar_wait(&s.empty, (t & 1) ^ 1);
  mbar_arrive(&s.full);
}
// CHECK: relay-fence.cu:[[@LINE+10]]:{{[0-9]+}}: warning: bulk async load overwrites shared memory 's' read through the generic proxy
__global__ void prologue_before_the_relay(const float *in, float *out,
                                          int tiles) {
  __shared__ Staged s;
  float first = s.o[threadIdx.x];
  __syncthreads();
  if (threadIdx.x >= 128) {
    for (int t = 0; t < tiles; ++t) {
      acquire(s, t);
      if (threadIdx.x == 128)
        bulk_load(s.v, in + t * TILE, sizeof(s.v), &s.full);
    }
  } else {
    for (int t = 0; t < tiles; ++t) {
      mbar_wait(&s.full, t & 1);
      out[t * TILE + threadIdx.x] = s.v[threadIdx.x] + first;
      cutlass::arch::fence_view_async_shared();
      mbar_arrive(&s.empty);
    }
  }
}
// CHECK-NOT: warning:
// CHECK: proxyfence: 3 findings in 1 file

// TRACE: trace: bulk async store of shared memory 's' {{.*}} (in 'relay_in_functions'): store of shared memory 's' at relay-fence.cu:70:5 (in 'relay_in_functions'): ended at the wait at relay-fence.cu:80:7 by the proxy fence of the role that waits on the mbarrier.try_wait.shared::cta on 's'.bar_o at relay-fence.cu:59:3, then fences and arrives on the mbarrier.arrive.shared::cta on 's'.full at relay-fence.cu:60:3
