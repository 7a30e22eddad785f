// The run step (layer 3): skipped with a message when no GPU is present,
// else the harness runs under a wall-clock limit; a hang is killed (the whole
// process group) and reported as TIMEOUT. PROXYFENCE_GPU_PROBE replaces the
// `nvidia-smi -L` probe.
// REQUIRES: nvcc
// RUN: env PROXYFENCE_GPU_PROBE=false %proxyfence verify --run "exit 1" %s 2>&1 | FileCheck --check-prefix=NOGPU %s
// RUN: env PROXYFENCE_GPU_PROBE=true %proxyfence verify --run "echo harness-ran" %s 2>&1 | FileCheck --check-prefix=PASS %s
// RUN: env PROXYFENCE_GPU_PROBE=true not %proxyfence verify --run "exit 3" %s 2>&1 | FileCheck --check-prefix=FAIL %s
// RUN: env PROXYFENCE_GPU_PROBE=true %proxyfence verify --run "exit 77" %s 2>&1 | FileCheck --check-prefix=SKIP %s
// RUN: env PROXYFENCE_GPU_PROBE=true timeout 60 %proxyfence verify --run-timeout=1 --run "sleep 100; echo not-killed" %s > %t.hang 2>&1 || test $? -eq 1
// RUN: FileCheck --check-prefix=TIMEOUT --input-file=%t.hang %s
// RUN: not %proxyfence --run "true" %s 2>&1 | FileCheck --check-prefix=NEEDS-VERIFY %s
// RUN: not %proxyfence --verify %s 2>&1 | FileCheck --check-prefix=NEEDS-FIX %s
// RUN: not %proxyfence verify --fix %s 2>&1 | FileCheck --check-prefix=NO-FIX %s
#include <cstdint>

__global__ void fenced(float *out) {
  __shared__ alignas(128) float buf[256];
  buf[threadIdx.x] = 2.0f * threadIdx.x;
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (threadIdx.x == 0)
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], 1024;"
                 :: "l"(out), "r"(static_cast<uint32_t>(__cvta_generic_to_shared(buf)))
                 : "memory");
}
// NOGPU: verified: {{.*}}run-step.cu: fence present on every path in PTX (1 async-proxy operation checked)
// NOGPU: proxyfence: verify: no GPU present; run step skipped (compile and PTX checks still ran)

// PASS: verified:
// PASS: harness-ran
// PASS: proxyfence: verify: run passed (exit 0, {{.*}}): echo harness-ran

// FAIL: proxyfence: verify: run FAILED (exit 3, {{.*}}): exit 3

// SKIP: proxyfence: verify: run skipped by the harness (exit 77, {{.*}}): exit 77

// TIMEOUT: proxyfence: verify: run TIMEOUT after 1 s (process group killed): sleep 100; echo not-killed
// TIMEOUT-NOT: not-killed

// NEEDS-VERIFY: proxyfence: error: --run and --run-timeout need --fix --verify or 'proxyfence verify'
// NEEDS-FIX: proxyfence: error: --verify checks the fixes of --fix; to verify files already fixed, use 'proxyfence verify <file>...'
// NO-FIX: proxyfence: error: 'verify' checks files as they are; to fix and verify, use 'proxyfence --fix --verify <file>...'
