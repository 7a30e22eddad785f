// Layer 3 compares the original with the fixed code. With --fix --verify
// --run, the harness runs once before the fixes are written and once after;
// a file with its own main() is built from its original and its fixed text
// and both are run. PROXYFENCE_GPU_PROBE=true stands in for a GPU: the
// harnesses here need none.
// REQUIRES: nvcc
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/k.cu
// RUN: env PROXYFENCE_GPU_PROBE=true %proxyfence --fix --verify --run "sh %S/Inputs/fence-harness.sh %t/k.cu" %t/k.cu > %t/out 2>&1
// RUN: FileCheck --check-prefix=CMP --input-file=%t/out %s
//
// Its own harness: main() below prints a "/run" figure and exits 0.
// RUN: cp %s %t/own.cu
// RUN: env PROXYFENCE_GPU_PROBE=true %proxyfence --fix --verify %t/own.cu > %t/own.out 2>&1
// RUN: FileCheck --check-prefix=OWN --input-file=%t/own.out %s
// Already fixed: no original to compare with, the fixed file still runs.
// RUN: env PROXYFENCE_GPU_PROBE=true %proxyfence verify %t/own.cu > %t/again.out 2>&1
// RUN: FileCheck --check-prefix=AGAIN --input-file=%t/again.out %s
// No main() and no --run: nothing to run, said so.
// RUN: sed -e '/^int main/,$d' %t/own.cu > %t/nomain.cu
// RUN: env PROXYFENCE_GPU_PROBE=true %proxyfence verify %t/nomain.cu > %t/nomain.out 2>&1
// RUN: FileCheck --check-prefix=NOMAIN --input-file=%t/nomain.out %s
// No GPU: layer 3 is skipped with a message, layers 1-2 still run.
// RUN: cp %s %t/nogpu.cu
// RUN: env PROXYFENCE_GPU_PROBE=false %proxyfence --fix --verify %t/nogpu.cu > %t/nogpu.out 2>&1
// RUN: FileCheck --check-prefix=NOGPU --input-file=%t/nogpu.out %s
#include <cstdint>
#include <cstdio>

__global__ void stage(float *out) {
  __shared__ alignas(128) float buf[256];
  buf[threadIdx.x] = 2.0f * threadIdx.x;
  __syncthreads();
  if (threadIdx.x == 0)
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], 1024;"
                 :: "l"(out), "r"(static_cast<uint32_t>(__cvta_generic_to_shared(buf)))
                 : "memory");
}

int main() {
  std::printf("PASS own-harness: 4.0 us/run\n");
  return 0;
}
// CMP: proxyfence: verify: running 'sh {{.*}}fence-harness.sh {{.*}}k.cu' on the original code, before the fixes are written
// CMP: FAIL stand-in: 7 stale elements, 12.0 us/run
// CMP: proxyfence: verify: original: run FAILED (exit 1, {{.*}}, 12.00 us/run): sh
// CMP: verified: {{.*}}k.cu: 1 finding, fence present on every path in PTX
// CMP: PASS stand-in: 0 stale elements, 12.5 us/run
// CMP: proxyfence: verify: fixed: run passed (exit 0, {{.*}}, 12.50 us/run): sh
// CMP: proxyfence: verify: harness: original FAILED, fixed passed: the harness saw the bug in the original and not after the fix
// CMP: proxyfence: verify: harness: time per run: original 12.00 us, fixed 12.50 us, fixed/original 1.04 (the harness's own '/run' figures)
// CMP: proxyfence: 1 finding in 1 file, 1 fixed, 0 left

// OWN: verified: {{.*}}own.cu: 1 finding, fence present on every path in PTX
// OWN: proxyfence: verify: running '{{.*}}own.cu (main(), original)'
// OWN: PASS own-harness: 4.0 us/run
// OWN: proxyfence: verify: original: run passed (exit 0, {{.*}}, 4.00 us/run): {{.*}}own.cu (main(), original)
// OWN: PASS own-harness: 4.0 us/run
// OWN: proxyfence: verify: fixed: run passed (exit 0, {{.*}}, 4.00 us/run): {{.*}}own.cu (main(), fixed)
// OWN: proxyfence: verify: {{.*}}own.cu: original passed, fixed passed (a missing proxy fence corrupts results only now and then: a passing original proves little; the PTX check is the proof)
// OWN: time per run: original 4.00 us, fixed 4.00 us, fixed/original 1.00

// AGAIN: verified: {{.*}}own.cu: fence present on every path in PTX
// AGAIN-NOT: original
// AGAIN: proxyfence: verify: run passed (exit 0, {{.*}}, 4.00 us/run): {{.*}}own.cu (main())

// NOMAIN: proxyfence: verify: {{.*}}nomain.cu: no harness to run (the file has no main()); give one with --run

// NOGPU: verified: {{.*}}nogpu.cu: 1 finding
// NOGPU-NOT: running
// NOGPU: proxyfence: verify: no GPU present; run step skipped (compile and PTX checks still ran)
