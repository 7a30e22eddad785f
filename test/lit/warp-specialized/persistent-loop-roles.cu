// A persistent kernel dispatches its roles inside the tile loop. The loop's
// back edge joins the two arms in the CFG, but no thread takes both: the
// condition reads only the thread's identity. The writer warpgroup hands
// the tile to the other one by a named barrier, which then reads it with a
// bulk store; without a fence in the writers, that is a hazard.
// The iteration, not the thread, picks the arm in alternating(): each
// thread fences its own writes before it stores, so no role pairs there.
// RUN: not %proxyfence %s -- 2>&1 | FileCheck %s
// CHECK: persistent-loop-roles.cu:45:9: warning: bulk async store reads shared memory 'tile' written through the generic proxy with no fence.proxy.async on the path [proxyfence-tma-store]
// CHECK: persistent-loop-roles.cu:38:7: note: insert 'asm volatile("fence.proxy.async.shared::cta;" ::: "memory");' here
// CHECK-NOT: warning:
// CHECK: proxyfence: 1 finding in 1 file
// The writers' fence before their hand-over: clean.
// RUN: sed 's|^      hand_over();|      asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); hand_over();|' %s > %t.cu
// RUN: %proxyfence %t.cu -- 2>&1 | FileCheck --check-prefix=FENCED %s
// FENCED: proxyfence: 0 findings in 1 file
#include <cstdint>
__device__ void bulk_store(float *g, const float *s) {
  unsigned a = (unsigned)__cvta_generic_to_shared(s);
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], 1024;"
               :: "l"(g), "r"(a) : "memory");
}
__device__ int warp_group() { return __shfl_sync(0xffffffff, threadIdx.x / 128, 0); }
__device__ void hand_over() { asm volatile("bar.arrive 1, 256;" ::: "memory"); }
__device__ void take_over() { asm volatile("bar.sync 1, 256;" ::: "memory"); }

template <int Tiles> __device__ void write_tile(float *tile, int t) {
  for (int i = threadIdx.x; i < 256; i += 128) tile[i] = float(t * i);
}

__global__ void persistent(float *out, int tiles) {
  __shared__ alignas(128) float tile[256];
  __shared__ alignas(128) float stats[256];
  const int role = warp_group();
  for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
    if (role == 0) {
      write_tile<4>(tile, t);
      hand_over();
      write_tile<4>(stats, t); // read by this role's own bulk store
      asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
      if (threadIdx.x == 0) bulk_store(out, stats);
    } else {
      take_over();
      if (threadIdx.x == 128)
        bulk_store(out + t * 256, tile);
      asm volatile("cp.async.bulk.commit_group;\ncp.async.bulk.wait_group.read 0;" ::: "memory");
    }
  }
}

// The same arms chosen by the iteration, not by the thread: every thread
// writes, fences its own writes and then stores in turn; no hazard.
__global__ void alternating(float *out, int tiles) {
  __shared__ alignas(128) float tile[256];
  for (int t = 0; t < tiles; ++t) {
    if (t % 2 == 0) {
      write_tile<4>(tile, t);
      hand_over();
    } else {
      asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
      take_over();
      if (threadIdx.x == 0)
        bulk_store(out + t * 256, tile);
      asm volatile("cp.async.bulk.commit_group;\ncp.async.bulk.wait_group.read 0;" ::: "memory");
    }
  }
}
