// Producer, consumer and epilogue roles as member functions of collectives
// built on a CUTLASS-like pipeline class (Inputs/pipeline.h): stage arrays
// of barriers reached through the pipeline's pointers, a state object with
// the stage index and phase, an ordered sequence barrier. The kernel passes
// the same objects to every role; method bodies say which barrier they use.
// REQUIRES: nvcc
// RUN: cp %s %t.cu
// RUN: not %proxyfence --stats %t.cu -- -I%S/Inputs 2>&1 | FileCheck %s
// RUN: %proxyfence --fix --quiet --fence-style=ptx %t.cu -- -I%S/Inputs
// RUN: FileCheck --check-prefix=FIXED --input-file=%t.cu %s
// RUN: cp %t.cu %t.again.cu
// RUN: %proxyfence --fix --quiet --fence-style=ptx %t.again.cu -- -I%S/Inputs
// RUN: cmp %t.cu %t.again.cu
// RUN: %proxyfence %t.cu -- -I%S/Inputs 2>&1 | FileCheck --check-prefix=CLEAN %s
// RUN: %nvcc-sm90a -I%S/Inputs -cubin -o /dev/null %t.cu
#include "pipeline.h"

constexpr int STAGES = 2;
constexpr int TILE = 64 * 32;
using Pipeline = pipe::PipelineTmaAsync<STAGES>;
using State = Pipeline::State;

struct Storage {
  alignas(128) float stage[STAGES][TILE];
  Pipeline::SharedStorage pipeline;
};

// Write-after-read: the consumer reads the stage with loads and releases
// it; the producer's acquire of that stage lets the refilling TMA load
// overwrite it.
struct Mainloop {
  __device__ void load(Pipeline pipeline, State state, Storage &s,
                       const CUtensorMap *tmap, int tiles) {
    for (int t = 0; t < tiles; ++t) {
      pipeline.producer_acquire(state);
      if (threadIdx.x == 0)
        tma_load_2d(s.stage[state.index()], tmap,
                    pipeline.producer_get_barrier(state), 0, t * 32);
      pipeline.producer_commit(state);
      ++state;
    }
  }
  __device__ float consume(Pipeline pipeline, State state, Storage &s,
                           int tiles) {
    float acc = 0.0f;
    for (int t = 0; t < tiles; ++t) {
      pipeline.consumer_wait(state);
      for (int i = threadIdx.x % 128; i < TILE; i += 128)
        acc += s.stage[state.index()][i];
      pipeline.consumer_release(state);
      ++state;
    }
    return acc;
  }
};

__global__ void war_through_release(const __grid_constant__ CUtensorMap tmap,
                                    float *out, int tiles) {
  __shared__ Storage storage;
  Pipeline pipeline(storage.pipeline, TILE * sizeof(float), 128);
  State state;
  Mainloop mainloop;
  if (threadIdx.x < 128) {
    mainloop.load(pipeline, state, storage, &tmap, tiles);
  } else {
    float acc = mainloop.consume(pipeline, state, storage, tiles);
    out[threadIdx.x] = acc;
  }
}

// Ping-pong consumers: two math warp groups run the same consumer role on
// alternate tiles; each one's release feeds the producer.
__global__ void ping_pong(const __grid_constant__ CUtensorMap tmap, float *out,
                          int tiles) {
  __shared__ Storage storage;
  Pipeline pipeline(storage.pipeline, TILE * sizeof(float), 128);
  State state;
  Mainloop mainloop;
  int group = threadIdx.x / 128;
  if (group == 0) {
    mainloop.load(pipeline, state, storage, &tmap, tiles);
  } else if (group == 1) {
    out[threadIdx.x] = mainloop.consume(pipeline, state, storage, tiles);
  } else {
    ++state;
    out[threadIdx.x] = mainloop.consume(pipeline, state, storage, tiles);
  }
}

// The consumer fences before it releases: nothing to report.
struct FencedMainloop : Mainloop {
  __device__ float consume(Pipeline pipeline, State state, Storage &s,
                           int tiles) {
    float acc = 0.0f;
    for (int t = 0; t < tiles; ++t) {
      pipeline.consumer_wait(state);
      for (int i = threadIdx.x % 128; i < TILE; i += 128)
        acc += s.stage[state.index()][i];
      cutlass::arch::fence_view_async_shared();
      pipeline.consumer_release(state);
      ++state;
    }
    return acc;
  }
};

__global__ void fenced_release(const __grid_constant__ CUtensorMap tmap,
                               float *out, int tiles) {
  __shared__ Storage storage;
  Pipeline pipeline(storage.pipeline, TILE * sizeof(float), 128);
  State state;
  FencedMainloop mainloop;
  if (threadIdx.x < 128)
    mainloop.load(pipeline, state, storage, &tmap, tiles);
  else
    out[threadIdx.x] = mainloop.consume(pipeline, state, storage, tiles);
}

// A generic producer (PipelineAsync): writes the stage, commits (arrive on
// full); the epilogue waits on full and TMA-stores the stage.
using AsyncPipeline = pipe::PipelineAsync<STAGES>;
struct StoreStorage {
  alignas(128) float stage[STAGES][TILE];
  AsyncPipeline::SharedStorage pipeline;
};

struct Epilogue {
  __device__ void produce(AsyncPipeline &pipeline, AsyncPipeline::State state,
                          StoreStorage &s, int tiles) {
    for (int t = 0; t < tiles; ++t) {
      pipeline.producer_acquire(state);
      for (int i = threadIdx.x; i < TILE; i += 128)
        s.stage[state.index()][i] = float(t + i);
      pipeline.producer_commit(state);
      ++state;
    }
  }
  __device__ void store(AsyncPipeline &pipeline, AsyncPipeline::State state,
                        StoreStorage &s, const CUtensorMap *tmap, int tiles) {
    for (int t = 0; t < tiles; ++t) {
      pipeline.consumer_wait(state);
      if (threadIdx.x == 128) {
        tma_store_2d(tmap, s.stage[state.index()], 0, t * 32);
        bulk_wait_read();
      }
      pipeline.consumer_release(state);
      ++state;
    }
  }
};

__global__ void generic_producer(const __grid_constant__ CUtensorMap tmap,
                                 int tiles) {
  __shared__ StoreStorage storage;
  AsyncPipeline pipeline(storage.pipeline, 128, 1);
  AsyncPipeline::State state;
  Epilogue epi;
  if (threadIdx.x < 128)
    epi.produce(pipeline, state, storage, tiles);
  else
    epi.store(pipeline, state, storage, &tmap, tiles);
}

// Hand-written full/empty arrays in a struct: the producer arrives on
// full[s]; this consumer waits on empty[s] only, which orders nothing
// against those writes: a different barrier, no pair.
struct Bars {
  uint64_t full[STAGES];
  uint64_t empty[STAGES];
};

__device__ void write_stage(float *stage, Bars &bars, int s) {
  for (int i = threadIdx.x; i < TILE; i += 32)
    stage[i] = float(i);
  mbar_arrive(&bars.full[s]);
}
__device__ void store_after_empty(const CUtensorMap *tmap, float *stage,
                                  Bars &bars, int s) {
  mbar_wait(&bars.empty[s], 0);
  tma_store_2d(tmap, stage, 0, 0);
}
__device__ void store_after_full(const CUtensorMap *tmap, float *stage,
                                 Bars &bars, int s) {
  mbar_wait(&bars.full[s], 0);
  tma_store_2d(tmap, stage, 0, 0);
}

__global__ void struct_bars(const __grid_constant__ CUtensorMap tmap, int s) {
  __shared__ alignas(128) float stage[STAGES][TILE];
  __shared__ Bars bars;
  if (threadIdx.x < 32)
    write_stage(stage[s], bars, s);
  else if (threadIdx.x == 32)
    store_after_empty(&tmap, stage[s], bars, s);
  else if (threadIdx.x == 64)
    store_after_full(&tmap, stage[s], bars, s);
}

// Stage 0's full barrier is not stage 1's.
__global__ void other_stage(const __grid_constant__ CUtensorMap tmap) {
  __shared__ alignas(128) float stage[STAGES][TILE];
  __shared__ Bars bars;
  if (threadIdx.x < 32)
    write_stage(stage[0], bars, 0);
  else if (threadIdx.x == 32)
    store_after_full(&tmap, stage[0], bars, 1);
}

// Ping-pong epilogues ordered by an OrderedSequenceBarrier: math group 0
// writes the tile and signals group 1, which waits for its turn and
// TMA-stores the tile.
using Order = pipe::OrderedSequenceBarrier<1, 2>;
__device__ void epilogue_write(Order &order, float *tile) {
  for (int i = threadIdx.x; i < TILE; i += 128)
    tile[i] = float(i);
  order.arrive();
}
__device__ void epilogue_store(Order &order, const CUtensorMap *tmap,
                               float *tile) {
  order.wait();
  if (threadIdx.x == 128)
    tma_store_2d(tmap, tile, 0, 0);
}

__global__ void ordered_ping_pong(const __grid_constant__ CUtensorMap tmap) {
  __shared__ alignas(128) float tile[TILE];
  __shared__ Order::SharedStorage order_storage;
  Order order(order_storage, threadIdx.x / 128);
  if (threadIdx.x < 128)
    epilogue_write(order, tile);
  else
    epilogue_store(order, &tmap, tile);
}

// CHECK: :37:9: warning: TMA load overwrites shared memory 'storage' read through the generic proxy with no fence.proxy.async on the path [proxyfence-async-overwrite]
// CHECK: :49:16: note: generic-proxy read of 'storage' here
// CHECK: :50:7: note: this barrier orders threads, not proxies; insert the fence before it
// CHECK: :143:9: warning: TMA store reads shared memory 'storage' written through the generic proxy
// CHECK: :133:9: note: generic-proxy write to 'storage' here
// CHECK: :134:7: note: this barrier orders threads, not proxies; insert the fence before it
// CHECK: :185:3: warning: TMA store reads shared memory 'stage' written through the generic proxy
// CHECK: :174:5: note: generic-proxy write to 'stage' here
// CHECK: :175:3: note: this barrier orders threads, not proxies; insert the fence before it
// CHECK: :222:5: warning: TMA store reads shared memory 'tile' written through the generic proxy
// CHECK: :215:5: note: generic-proxy write to 'tile' here
// CHECK: :216:3: note: this barrier orders threads, not proxies; insert the fence before it
// CHECK-NOT: warning:
// CHECK: proxyfence: 4 findings in 1 file
// CHECK-NEXT: proxyfence: stats: {{[0-9]+}} functions analysed
// CHECK-NEXT: proxyfence: stats: role synchronisations matched: 0 named barrier, 10 mbarrier; unmatched: 0

// FIXED:      acc += s.stage[state.index()][i];
// FIXED-NEXT: {{^      }}asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
// FIXED-NEXT: {{^      }}pipeline.consumer_release(state);
// FIXED:      s.stage[state.index()][i] = float(t + i);
// FIXED-NEXT: {{^      }}asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
// FIXED-NEXT: {{^      }}pipeline.producer_commit(state);
// FIXED:      stage[i] = float(i);
// FIXED-NEXT: {{^  }}asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
// FIXED-NEXT: {{^  }}mbar_arrive(&bars.full[s]);
// FIXED:      tile[i] = float(i);
// FIXED-NEXT: {{^  }}asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
// FIXED-NEXT: {{^  }}order.arrive();

// CLEAN: proxyfence: 0 findings in 1 file
