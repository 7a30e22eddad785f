#!/usr/bin/env python3
"""The result cache and the launcher: what a repeated run and a build cost.

1. Cold against warm: `proxyfence -p DB` over a generated compile database,
   first with an empty cache, then again on the unchanged tree (every result
   from the cache), then after editing the one header that a single unit
   includes (that unit alone is analysed again). The stretch goal of issue 17
   is warm <= 0.2x cold.
2. The launcher's overhead on a build step: `nvcc -c` alone against
   `proxyfence --launch nvcc -c` (cold cache, so the analysis runs), and the
   analysis's share of the step.

Each command runs --reps times and the fastest run counts (shared machine).
Usage: bench/cache_and_launcher.py [--tool build/proxyfence] [--files 8] [--reps 2]
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NVCC = "/usr/local/cuda/bin/nvcc"

KERNEL = """#include <cuda.h>
#include "%(header)s"
__global__ void k%(n)d(const __grid_constant__ CUtensorMap tmap, float v) {
  __shared__ alignas(128) float tile[1024];
  for (int i = 0; i < %(n)d + 1; ++i)
    tile[(threadIdx.x + i) %% 1024] = v * SCALE;
  __syncthreads();
  if (threadIdx.x == 0)
    asm volatile("cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [%%0, {%%2}], [%%1];"
                 :: "l"(&tmap), "r"((unsigned)__cvta_generic_to_shared(tile)), "r"(0) : "memory");
}
"""


def timed(cmd, env, reps, prepare=None):
    best = None
    for _ in range(reps):
        if prepare:
            prepare()
        start = time.perf_counter()
        subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wall = time.perf_counter() - start
        best = wall if best is None else min(best, wall)
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tool", default=os.path.join(ROOT, "build", "proxyfence"))
    ap.add_argument("--files", type=int, default=8)
    ap.add_argument("--reps", type=int, default=2)
    args = ap.parse_args()
    tool = os.path.abspath(args.tool)
    if not os.access(tool, os.X_OK):
        sys.exit(f"bench: no proxyfence at {tool}; build first")
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "src")
        os.makedirs(src)
        entries = []
        for n in range(args.files):
            header = "edited.h" if n == 0 else "shared.h"
            with open(os.path.join(src, f"unit{n}.cu"), "w") as f:
                f.write(KERNEL % {"n": n, "header": header})
            entries.append({"directory": src, "file": f"unit{n}.cu",
                            "arguments": ["nvcc", "-arch=sm_90a", "-c", f"unit{n}.cu"]})
        for h in ("edited.h", "shared.h"):
            with open(os.path.join(src, h), "w") as f:
                f.write("#define SCALE 2.f\n")
        with open(os.path.join(src, "compile_commands.json"), "w") as f:
            json.dump(entries, f)
        env = dict(os.environ, XDG_CACHE_HOME=os.path.join(tmp, "cache"))
        cmd = [tool, "--quiet", "-j", "1", "-p", src]
        clear = lambda: shutil.rmtree(env["XDG_CACHE_HOME"], ignore_errors=True)
        cold = timed(cmd, env, args.reps, prepare=clear)
        subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        warm = timed(cmd, env, args.reps)
        edits = iter(range(1000))

        def edit():
            with open(os.path.join(src, "edited.h"), "a") as f:
                f.write(f"// edit {next(edits)}\n")
        edited = timed(cmd, env, args.reps, prepare=edit)
        print(f"cache over {args.files} units (-j 1): cold {cold:.2f} s, warm {warm:.2f} s "
              f"({warm / cold:.2f}x cold), one header edited {edited:.2f} s ({edited / cold:.2f}x cold)")

        unit = os.path.join(src, "unit1.cu")
        obj = os.path.join(tmp, "unit1.o")
        step = [NVCC, "-arch=sm_90a", "-I", src, "-c", unit, "-o", obj]
        plain = timed(step, env, args.reps)
        launched = timed([tool, "--no-cache", "--launch"] + step, env, args.reps)
        cached = timed([tool, "--launch"] + step, env, args.reps)
        print(f"launcher on one nvcc -c step: nvcc {plain:.2f} s, with the analysis "
              f"{launched:.2f} s ({launched / plain:.2f}x), with a cache hit {cached:.2f} s "
              f"({cached / plain:.2f}x)")


if __name__ == "__main__":
    main()
