#!/usr/bin/env python3
"""Writes the large hostile inputs at test time (they are not committed).

  generate.py huge OUT      10 MB: a kernel with one fixable finding, then
                            50 000-odd device functions
  generate.py long-line OUT the write, a 1 MB comment and the barrier on one line
  generate.py error-flood OUT  the kernel, then a function that redefines one
                            variable 200 000 times (an error each)
  generate.py deep-expression OUT  the kernel, then a device function whose
                            value is one expression of 20 000 operators
                            and parentheses 200 deep
  generate.py macro-flood OUT  the kernel written through a macro that
                            expands to 4 096 statements
"""
import sys

KERNEL = """#include <cuda.h>
__global__ void store(const __grid_constant__ CUtensorMap tmap, float v) {
  __shared__ alignas(128) float tile[1024];
  tile[threadIdx.x] = v;%s__syncthreads();
  if (threadIdx.x == 0)
    asm volatile("cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [%%0, {%%2}], [%%1];"
                 :: "l"(&tmap), "r"((unsigned)__cvta_generic_to_shared(tile)), "r"(0) : "memory");
}
"""
HELPER = """__device__ void helper{n}(float *out, int i) {{
  __shared__ float s{n}[64];
  s{n}[threadIdx.x % 64] = out[i] * {n}.0f;
  __syncthreads();
  out[i + 1] = s{n}[(threadIdx.x + 1) % 64];
}}
"""

what, out = sys.argv[1], sys.argv[2]
if what == "huge":
    parts, size, n = [KERNEL % "\n  "], 0, 0
    while size < 10 * 1024 * 1024:
        parts.append(HELPER.format(n=n))
        size += len(parts[-1])
        n += 1
    text = "".join(parts)
elif what == "long-line":
    text = KERNEL % (" /*" + "x" * (1024 * 1024) + "*/ ")
elif what == "error-flood":
    text = (KERNEL % "\n  ") + "__device__ void flood() {\n" + \
        "  int x = 0;\n" * 200000 + "}\n"
elif what == "deep-expression":
    text = (KERNEL % "\n  ") + "__device__ int chain(int a) {\n  return " + \
        "(" * 200 + " + ".join(["a"] * 20000) + ")" * 200 + ";\n}\n"
elif what == "macro-flood":
    doubling = ["#define D0(x) x"] + [
        "#define D%d(x) D%d(x) D%d(x)" % (i, i - 1, i - 1) for i in range(1, 13)]
    text = "\n".join(doubling) + "\n" + (KERNEL % "\n  D12(tile[threadIdx.x] += 1.f;)\n  ")
else:
    sys.exit("unknown input kind " + what)
with open(out, "w") as f:
    f.write(text)
