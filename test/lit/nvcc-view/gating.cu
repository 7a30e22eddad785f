// Library code gated on nvcc's macros, as CUTLASS/CuTe gate it
// (Inputs/mini_cutlass_config.h), on tma-store/cutlass-wrapper.cu: with the
// nvcc view the TMA store atom has its asm and the missing fence is found;
// without it the atoms are stubs, nothing is found, and the blind spots say
// why.
// RUN: not %proxyfence --stats %S/../tma-store/cutlass-wrapper.cu -- -I%S/../tma-store/Inputs 2>&1 | FileCheck %s
// RUN: %proxyfence --stats --no-nvcc-view %S/../tma-store/cutlass-wrapper.cu -- -I%S/../tma-store/Inputs 2>&1 | FileCheck --check-prefix=OFF %s
// SM100 is off under clang unless CUTLASS_CLANG_CUDA is undone: the UTCCP
// atom (spelled without its operand comma) is a stub for sm_100a then.
// RUN: not %proxyfence --arch=sm_100a --stats %S/utccp.cu -- -I%S/../mma-operand/Inputs 2>&1 | FileCheck --check-prefix=SM100 %s
// RUN: %proxyfence --arch=sm_100a --stats --no-nvcc-view %S/utccp.cu -- -I%S/../mma-operand/Inputs 2>&1 | FileCheck --check-prefix=SM100-OFF %s
// CHECK: cutlass-wrapper.cu:23:5: warning: {{.*}}[proxyfence-tma-store]
// CHECK: proxyfence: 1 finding in 1 file
// CHECK-NOT: not seen:
// CHECK: stats: device functions: 5, stubs: 0,
// CHECK: stats: asm in that code: TMA 1, proxy fence 1

// OFF-NOT: warning:
// OFF: note: '{{.*}}cutlass-wrapper.cu': 3 of 5 device functions are stubs for sm_90a
// OFF: proxyfence: 0 findings in 1 file
// OFF-NEXT: proxyfence: not seen: 3 stub device functions, 0 with code dropped by front-end errors, of 5 (see --stats)
// OFF: stats: device functions: 5, stubs: 3,
// OFF: stats: asm in that code: none
// OFF-DAG: stats: stub: {{.*}}mini_cutlass.h:{{[0-9]+}}:{{[0-9]+}}: cutlass::arch::fence_view_async_shared: empty once preprocessed
// OFF-DAG: stats: stub: {{.*}}mini_cutlass.h:{{[0-9]+}}:{{[0-9]+}}: cute::SM90_TMA_STORE_2D::copy: only traps
// OFF-DAG: stats: stub: {{.*}}mini_cutlass.h:{{[0-9]+}}:{{[0-9]+}}: cute::tma_store_arrive: only traps

// SM100: utccp.cu:{{[0-9]+}}:{{[0-9]+}}: warning: {{.*}}[proxyfence-mma-operand]
// SM100-NOT: stub: {{.*}}UTCCP
// SM100: asm rejections repaired for clang: 1
// SM100-OFF-NOT: warning: {{.*}}[proxyfence-mma-operand]
// SM100-OFF: stub: {{.*}}mini_cute.h:{{[0-9]+}}:{{[0-9]+}}: cute::SM100_UTCCP_128dp256bit_1cta::copy: only traps
