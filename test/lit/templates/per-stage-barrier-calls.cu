// In a function template that nothing instantiates, the shared storage is
// a template parameter's (`SramT &sram`), so `sram.bar_empty[stage].wait(
// sram.bar_empty[stage].arrive())` stays unresolved. Such a member call on
// a per-stage array element is a barrier operation, not a proxy fence: the
// write before it still reaches the TMA store of the same stage (a finding,
// fixed before the TMA store), and a fence written there is seen (clean).
// RUN: cp %s %t.cu
// RUN: not %proxyfence --stats %t.cu -- 2>&1 | FileCheck %s
// CHECK: per-stage-barrier-calls.cu.tmp.cu:[[@LINE+20]]:7: warning: TMA store reads shared memory 'sram.state' written through the generic proxy with no fence.proxy.async on the path [proxyfence-tma-store]
// CHECK: per-stage-barrier-calls.cu.tmp.cu:[[@LINE+16]]:5: note: generic-proxy write to 'sram.state' here
// CHECK: proxyfence: 1 finding in 1 file
// CHECK: proxyfence: stats: unresolved: {{.*}}per-stage-barrier-calls.cu.tmp.cu:[[@LINE+15]]:5: 'wait'; its effects are unknown, none assumed
// RUN: %proxyfence --fix --quiet %t.cu --
// RUN: FileCheck --check-prefix=FIXED --input-file=%t.cu %s
// FIXED: asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
// FIXED-NEXT: cde::cp_async_bulk_tensor_2d_shared_to_global(
// RUN: %proxyfence %t.cu -- 2>&1 | FileCheck --check-prefix=CLEAN %s
// CLEAN: proxyfence: 0 findings in 1 file
#include <cuda/barrier>

template <typename SramT, bool kWriteBack>
__device__ void drain(SramT &sram, CUtensorMap const &map, int stages) {
  namespace cde = cuda::device::experimental;
  for (int iter = 0; iter < stages; ++iter) {
    auto const stage = iter % 2;
    sram.state[stage][threadIdx.x] = 1.0f;
    sram.bar_empty[stage].wait(sram.bar_empty[stage].arrive());
    if constexpr (kWriteBack) {
      cde::cp_async_bulk_tensor_2d_shared_to_global(&map, 0, iter, &sram.state[stage][0]);
      cde::cp_async_bulk_commit_group();
      cde::cp_async_bulk_wait_group_read<0>();
    }
  }
}
