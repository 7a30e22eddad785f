#!/usr/bin/env python3
"""Writes the large hostile inputs at test time (they are not committed).

  generate.py huge OUT      10 MB: a kernel with one fixable finding, then
                            50 000-odd device functions
  generate.py long-line OUT the write, a 1 MB comment and the barrier on one line
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
else:
    sys.exit("unknown input kind " + what)
with open(out, "w") as f:
    f.write(text)
