// One role waits on two mbarriers through the same helper (its asm is one
// statement): a pipeline stage's "empty" barrier, then an output barrier
// that the epilogue role arrives on, remotely, once it has written the
// output tile that the next load overwrites. Lifted to the kernel, both
// waits come through one call and one asm statement, and are still two
// barriers: the write reaches the load through the second.
// RUN: not %proxyfence %s -- 2>&1 | FileCheck %s
// CHECK: two-waits-one-helper.cu:45:7: warning: TMA load overwrites shared memory 'Storage::tensors.out.out' written through the generic proxy with no fence.proxy.async on the path [proxyfence-async-overwrite]
// CHECK: proxyfence: 1 finding in 1 file
// The writers' fence before the arrive: clean.
// RUN: sed 's|^    asm volatile("bar.sync 1, 256;" ::: "memory");|    asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); asm volatile("bar.sync 1, 256;" ::: "memory");|' %s > %t.cu
// RUN: %proxyfence %t.cu -- 2>&1 | FileCheck --check-prefix=FENCED %s
// FENCED: proxyfence: 0 findings in 1 file
#include <cuda.h>
#include <cstdint>
struct Barrier {
  uint64_t word;
  __device__ static unsigned addr(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }
  __device__ static void wait(const uint64_t *bar, uint32_t phase) {
    asm volatile("{\n\t.reg .pred P1;\n\tW:\n\t"
                 "mbarrier.try_wait.parity.shared::cta.b64 P1, [%0], %1;\n\t"
                 "@P1 bra D;\n\tbra W;\n\tD:\n\t}" :: "r"(addr(bar)), "r"(phase));
  }
  __device__ static void arrive(const uint64_t *bar, uint32_t cta_id) {
    asm volatile("{\n\t.reg .b32 remAddr32;\n\t"
                 "mapa.shared::cluster.u32  remAddr32, %0, %1;\n\t"
                 "mbarrier.arrive.shared::cluster.b64  _, [remAddr32];\n\t}"
                 :: "r"(addr(bar)), "r"(cta_id) : "memory");
  }
  __device__ void wait(uint32_t phase) const { wait(&word, phase); }
  __device__ void arrive(uint32_t cta_id) const { arrive(&word, cta_id); }
};
struct Storage {
  union {
    struct { alignas(128) float v[1024]; } in;
    struct { alignas(128) float out[1024]; } out;
  } tensors;
  Barrier empty, full, out_done;
};
struct Producer {
  __device__ void load(Storage &s, const CUtensorMap *tmap, int phase) {
    s.empty.wait(phase);
    s.out_done.wait(phase);
    if (threadIdx.x == 0)
      asm volatile("cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3}], [%2];"
                   :: "r"(Barrier::addr(s.tensors.in.v)), "l"(tmap), "r"(Barrier::addr(&s.full)), "r"(0) : "memory");
  }
};
struct Epilogue {
  __device__ void store(Storage &s, float v) {
    s.tensors.out.out[threadIdx.x % 1024] = v;
    asm volatile("bar.sync 1, 256;" ::: "memory");
    for (uint32_t cta = 0; cta < 2; ++cta)
      s.out_done.arrive(cta);
  }
};
__global__ void __cluster_dims__(2, 1, 1)
kernel(const __grid_constant__ CUtensorMap tmap, const float *in, int tiles) {
  extern __shared__ char smem[];
  Storage &s = *reinterpret_cast<Storage *>(smem);
  Producer producer;
  Epilogue epilogue;
  if (threadIdx.x < 128) {
    for (int t = 0; t < tiles; ++t)
      producer.load(s, &tmap, t & 1);
  } else {
    for (int t = 0; t < tiles; ++t)
      epilogue.store(s, in[t]);
  }
}
