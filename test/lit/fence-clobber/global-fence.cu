// fence.proxy.async.global orders the generic proxy's global-memory writes
// before the async proxy's reads of global memory (FlashAttention-3 before
// handing freshly written KV to TMA); no shared-memory access is ordered by
// it, so none the compiler moves across a clobber-less one matters here.
// The same statement with a shared-memory fence is reported.
// RUN: not %proxyfence %s 2>&1 | FileCheck %s
// RUN: %nvcc-sm90a -cubin -o /dev/null %s

__global__ void publish(float *out, float v) {
  __shared__ float tile[128];
  tile[threadIdx.x] = v;
  out[threadIdx.x] = tile[(threadIdx.x + 1) % 128];
  asm volatile("fence.proxy.async.global;");
  asm volatile("bar.arrive 1, 256;" ::: "memory");
}

__global__ void stage(float *out, float v) {
  __shared__ float tile[128];
  tile[threadIdx.x] = v;
  asm volatile("fence.proxy.async.shared::cta;");
  // CHECK: .cu:[[#@LINE-1]]:3: warning: inline asm emits 'fence.proxy.async.shared::cta' without a "memory" clobber{{.*}}[proxyfence-fence-clobber]
  asm volatile("bar.arrive 1, 256;" ::: "memory");
  out[threadIdx.x] = tile[0];
}

// CHECK-NOT: warning:
// CHECK: proxyfence: 1 finding in 1 file
