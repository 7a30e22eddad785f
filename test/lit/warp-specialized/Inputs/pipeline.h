// A reduced stand-in for CUTLASS's pipelines (cutlass/pipeline/
// sm90_pipeline.hpp), written for these tests: the same shape, not the same
// code. Barrier objects wrap one mbarrier word; a pipeline holds pointers to
// arrays of them (one per stage) in shared storage; a state object holds the
// stage index and phase. Which barrier each method uses is in its body:
//   producer_acquire: wait on empty[stage], arrive (expect_tx) on full[stage]
//   producer_commit:  arrive on full[stage] (PipelineAsync; no-op for TMA)
//   consumer_wait:    wait on full[stage]
//   consumer_release: arrive on empty[stage]
#pragma once
#include "ws.h"

namespace pipe {

struct ClusterBarrier {
  uint64_t barrier_;
  __device__ void init(uint32_t count) { mbar_init(&barrier_, count); }
  __device__ void wait(uint32_t phase) { mbar_wait(&barrier_, phase); }
  __device__ void arrive() { mbar_arrive(&barrier_); }
};

struct ClusterTransactionBarrier : ClusterBarrier {
  __device__ void arrive_and_expect_tx(uint32_t bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"
                 :: "r"(smem_u32(&barrier_)), "r"(bytes) : "memory");
  }
};

template <int Stages> struct PipelineState {
  int index_ = 0;
  uint32_t phase_ = 0;
  __device__ int index() const { return index_; }
  __device__ uint32_t phase() const { return phase_; }
  __device__ void operator++() {
    if (++index_ == Stages) {
      index_ = 0;
      phase_ ^= 1;
    }
  }
};

template <int Stages> class PipelineTmaAsync {
public:
  struct SharedStorage {
    ClusterTransactionBarrier full_barrier_[Stages];
    ClusterBarrier empty_barrier_[Stages];
  };
  using State = PipelineState<Stages>;

  __device__ PipelineTmaAsync(SharedStorage &storage, uint32_t bytes,
                              uint32_t consumers)
      : full_barrier_ptr_(&storage.full_barrier_[0]),
        empty_barrier_ptr_(&storage.empty_barrier_[0]), bytes_(bytes) {
    if (threadIdx.x == 0)
      for (int s = 0; s < Stages; ++s) {
        full_barrier_ptr_[s].init(1);
        empty_barrier_ptr_[s].init(consumers);
      }
    __syncthreads();
  }
  __device__ void producer_acquire(State state) {
    producer_acquire(state.index(), state.phase());
  }
  __device__ void producer_commit(State) {} // the TMA completes the stage
  __device__ uint64_t *producer_get_barrier(State state) {
    return &full_barrier_ptr_[state.index()].barrier_;
  }
  __device__ void consumer_wait(State state) {
    full_barrier_ptr_[state.index()].wait(state.phase());
  }
  __device__ void consumer_release(State state) {
    empty_barrier_ptr_[state.index()].arrive();
  }

private:
  __device__ void producer_acquire(int stage, uint32_t phase) {
    empty_barrier_ptr_[stage].wait(phase ^ 1);
    full_barrier_ptr_[stage].arrive_and_expect_tx(bytes_);
  }
  ClusterTransactionBarrier *full_barrier_ptr_;
  ClusterBarrier *empty_barrier_ptr_;
  uint32_t bytes_;
};

/// Producers write the stage with the threads; commit arrives on full.
template <int Stages> class PipelineAsync {
public:
  struct SharedStorage {
    ClusterBarrier full_barrier_[Stages];
    ClusterBarrier empty_barrier_[Stages];
  };
  using State = PipelineState<Stages>;

  __device__ PipelineAsync(SharedStorage &storage, uint32_t producers,
                           uint32_t consumers)
      : full_barrier_ptr_(storage.full_barrier_),
        empty_barrier_ptr_(storage.empty_barrier_) {
    if (threadIdx.x == 0)
      for (int s = 0; s < Stages; ++s) {
        full_barrier_ptr_[s].init(producers);
        empty_barrier_ptr_[s].init(consumers);
      }
    __syncthreads();
  }
  __device__ void producer_acquire(State state) {
    empty_barrier_ptr_[state.index()].wait(state.phase() ^ 1);
  }
  __device__ void producer_commit(State state) {
    full_barrier_ptr_[state.index()].arrive();
  }
  __device__ void consumer_wait(State state) {
    full_barrier_ptr_[state.index()].wait(state.phase());
  }
  __device__ void consumer_release(State state) {
    empty_barrier_ptr_[state.index()].arrive();
  }

private:
  ClusterBarrier *full_barrier_ptr_;
  ClusterBarrier *empty_barrier_ptr_;
};

/// Ping-pong ordering between math warp groups: group g waits on its own
/// barrier of the current stage and signals the next group's.
template <int Stages, int Groups> class OrderedSequenceBarrier {
public:
  struct SharedStorage {
    ClusterBarrier barrier_[Stages][Groups];
  };
  __device__ OrderedSequenceBarrier(SharedStorage &storage, int group)
      : barrier_ptr_(&storage.barrier_[0][0]), group_(group) {}
  __device__ void wait() { barrier_ptr_[stage_ * Groups + group_].wait(phase_); }
  __device__ void arrive() {
    int next = (group_ + 1) % Groups;
    barrier_ptr_[stage_ * Groups + next].arrive();
    if (++stage_ == Stages) {
      stage_ = 0;
      phase_ ^= 1;
    }
  }

private:
  ClusterBarrier *barrier_ptr_;
  int group_;
  int stage_ = 0;
  uint32_t phase_ = 0;
};

} // namespace pipe

__device__ __forceinline__ void tma_load_2d(void *smem, const void *tmap,
                                            uint64_t *bar, int x, int y) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::"
               "complete_tx::bytes [%0], [%1, {%3, %4}], [%2];"
               :: "r"(smem_u32(smem)), "l"(tmap), "r"(smem_u32(bar)), "r"(x),
                  "r"(y) : "memory");
}
