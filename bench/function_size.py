#!/usr/bin/env python3
"""Cost per function: one kernel of N statements, N = 1k, 2k, 4k, 8k, 16k.

Fully unrolled or macro-expanded kernels reach thousands of statements in
one function, and an analysis that is superlinear in them costs minutes
where clang takes seconds. Each size is one kernel body of N statements:
shared-memory stores into two buffers, a CTA barrier and a TMA store every
25, a proxy fence every 100 (as bench.py's scale-Nx inputs, but counted in
statements). For each size it prints clang -fsyntax-only (the tool's own
parse command, with its nvcc prelude on disk), proxyfence --no-cache, their
ratio, and the ratio relative to the smallest size. Goal: the ratio at 16k
within 1.5x of the ratio at 1k.

Usage: bench/function_size.py [--tool build/proxyfence] [--reps 1]
                              [--sizes 1000,2000,4000,8000,16000]
"""
import argparse
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import FENCE, ROOT, TMA, best_of, clang_command  # noqa: E402


def kernel_of(statements):
    """A kernel whose body has exactly `statements` statements."""
    body, i = [], 0
    while len(body) < statements:
        buf = "a" if i % 3 else "b"
        body.append(f"  {buf}[(threadIdx.x + {i}) % 4096] = v * {i % 97}.0f;")
        if i % 25 == 24:
            body.append("  __syncthreads();")
            body.append("  if (threadIdx.x == 0) " + TMA.format(buf=buf))
        if i % 100 == 99:
            body.append("  " + FENCE)
        i += 1
    return ("__global__ void k(float* out, float v) {\n"
            "  __shared__ alignas(128) float a[4096];\n"
            "  __shared__ alignas(128) float b[4096];\n"
            + "\n".join(body[:statements]) + "\n}\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tool", default=os.path.join(ROOT, "build", "proxyfence"))
    ap.add_argument("--reps", type=int, default=1)
    ap.add_argument("--sizes", default="1000,2000,4000,8000,16000")
    args = ap.parse_args()
    if not os.access(args.tool, os.X_OK):
        sys.exit(f"function_size: no proxyfence at {args.tool}; build first")
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"{'statements':>10} {'clang s':>8} {'tool s':>8} {'ratio':>6} {'vs first':>8}")
    first = None
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            path = os.path.join(tmp, f"k{n}.cu")
            with open(path, "w") as f:
                f.write(kernel_of(n))
            ct, _, crc = best_of(clang_command(args.tool, path, (), tmp), args.reps)
            tt, _, trc = best_of([args.tool, "--quiet", "--no-cache", path], args.reps)
            if crc == 2 or trc == 2:
                print(f"{n:>10} clang exit {crc}, proxyfence exit {trc}")
                continue
            ratio = tt / ct
            first = first or ratio
            print(f"{n:>10} {ct:8.3f} {tt:8.3f} {ratio:6.2f} {ratio / first:8.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
