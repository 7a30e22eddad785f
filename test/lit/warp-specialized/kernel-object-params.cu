// The CUTLASS kernel shape: a kernel template constructs the kernel class
// and calls its operator() with the kernel parameter by reference and the
// dynamic shared memory. The roles meet inside operator(), through what its
// parameters designate: whether they share memory is the kernel's to say.
// A read of `params` (kernel parameter space, never shared memory) before a
// release is no hazard for the TMA load that refills the stage; a read of
// the stage itself is.
// RUN: cp %s %t.cu
// RUN: not %proxyfence %t.cu -- -I%S/Inputs > %t.out 2>&1
// RUN: FileCheck --input-file=%t.out %s
// REQUIRES: nvcc
// RUN: %nvcc-sm90a -I%S/Inputs -cubin -o /dev/null %s
#include "pipeline.h"

constexpr int STAGES = 2;
constexpr int TILE = 64 * 32;
using Pipeline = pipe::PipelineTmaAsync<STAGES>;
using State = Pipeline::State;

struct Storage {
  alignas(128) float stage[STAGES][TILE];
  Pipeline::SharedStorage pipeline;
};

struct Params {
  CUtensorMap tmap;
  float alpha;
  int tiles;
};

template <class Operator>
__global__ void device_kernel(const __grid_constant__ typename Operator::Params params) {
  extern __shared__ char smem[];
  Operator op;
  op(params, smem);
}

// The roles are members the kernel class calls, as CUTLASS's collectives.
struct Mainloop {
  __device__ void load(Params const &params, Pipeline pipeline, State state,
                       Storage &s) {
    for (int t = 0; t < params.tiles; ++t) {
      pipeline.producer_acquire(state);
      if (threadIdx.x == 0)
        tma_load_2d(s.stage[state.index()], &params.tmap,
                    pipeline.producer_get_barrier(state), 0, t * 32);
      pipeline.producer_commit(state);
      ++state;
    }
  }
  // Reads only the parameters before it releases.
  __device__ float scale(Params const &params, Pipeline pipeline, State state) {
    float acc = 0.0f;
    for (int t = 0; t < params.tiles; ++t) {
      pipeline.consumer_wait(state);
      acc += params.alpha * t;
      pipeline.consumer_release(state);
      ++state;
    }
    return acc;
  }
  // Reads the stage in shared memory before it releases.
  __device__ float consume(Params const &params, Pipeline pipeline,
                           State state, Storage &s) {
    float acc = 0.0f;
    for (int t = 0; t < params.tiles; ++t) {
      pipeline.consumer_wait(state);
      acc += params.alpha * s.stage[state.index()][threadIdx.x % 128];
      pipeline.consumer_release(state);
      ++state;
    }
    return acc;
  }
};

template <bool ReadStage> struct Kernel {
  using Params = ::Params;
  __device__ void operator()(Params const &params, char *smem_buf) {
    Storage &s = *reinterpret_cast<Storage *>(smem_buf);
    Pipeline pipeline(s.pipeline, TILE * sizeof(float), 128);
    State state;
    Mainloop mainloop;
    float acc = 0.0f;
    if (threadIdx.x < 128)
      mainloop.load(params, pipeline, state, s);
    else if (ReadStage)
      acc = mainloop.consume(params, pipeline, state, s);
    else
      acc = mainloop.scale(params, pipeline, state);
    if (acc < 0.0f)
      __trap();
  }
};
void launch(const Params &params, int smem_bytes) {
  device_kernel<Kernel<false>><<<1, 256, smem_bytes>>>(params);
  device_kernel<Kernel<true>><<<1, 256, smem_bytes>>>(params);
}

// CHECK-NOT: 'params'
// CHECK-NOT: 'Params::
// The warning is at the producer role's load, not at the kernel's one call
// of operator() that brings the roles together.
// CHECK:     {{.*}}.cu:45:9: warning: TMA load overwrites shared memory 'Storage::stage' read through the generic proxy {{.*}}[proxyfence-async-overwrite]
// CHECK:     {{.*}}.cu:35:3: note: both sides meet through this call, with its arguments
// CHECK:     pipeline.h:{{[0-9]+}}:3: note: TMA load issued here, inside 'tma_load_2d'
// CHECK:     {{.*}}.cu:68:29: note: generic-proxy read of 'Storage::stage' here
// CHECK:     {{.*}}.cu:69:7: note: this barrier orders threads
// CHECK:     {{.*}}.cu:69:7: note: insert '{{.*}}' here
// CHECK-NOT: 'params'
// CHECK-NOT: 'Params::
// CHECK:     proxyfence: 1 finding in 1 file
