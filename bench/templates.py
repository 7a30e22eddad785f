#!/usr/bin/env python3
"""Template-heavy inputs: proxyfence against `clang -fsyntax-only`.

Analysing uninstantiated templates as written adds work per template, on
top of the parse. This times both on the same front-end command
(`proxyfence --print-command`), fastest of --reps runs, for:
  - a generated header of many never-instantiated kernel templates (type,
    non-type and function-object parameters, dependent helper calls);
  - with --corpus DIR (a materialised ../shared/realworld), the cases whose
    ids match --only (default: TransformerEngine, CCCL, DeepGEMM headers),
    each run as the score script runs it (`TOOL file -- args` in its dir).
Goal: ratio <= 1.25.

Usage: bench/templates.py [--tool build/proxyfence] [--reps 3] [--corpus /tmp/rw] [--only REGEX]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLANG = "/usr/lib/llvm-22/bin/clang++"
GOAL = 1.25
FENCE = 'asm volatile("fence.proxy.async.shared::cta;" ::: "memory");'


def best_of(cmd, reps, cwd=None):
    best = None
    for _ in range(reps):
        start = time.perf_counter()
        subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wall = time.perf_counter() - start
        best = wall if best is None else min(best, wall)
    return best


def clang_command(tool, path, args, cwd=None):
    cmd = [tool, "--print-command", path] + (["--"] + args if args else [])
    out = subprocess.run(cmd, capture_output=True, check=True, cwd=cwd).stdout
    argv = [a.decode() for a in out.rstrip(b"\n").split(b"\0") if a]
    argv[0] = CLANG
    return argv


def gen_templates(count=80):
    """`count` kernel templates that nothing instantiates."""
    out = ["#include <cuda.h>", "#include <cstdint>",
           "__device__ inline void tma_store(const CUtensorMap *m, const void *s) {",
           '  asm volatile("cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [%0, {%2}], [%1];"',
           '               :: "l"(m), "r"((unsigned)__cvta_generic_to_shared(s)), "r"(0) : "memory");',
           "}",
           "template <typename T, int N> __device__ void fill(T *p, T v) {",
           "  for (int i = threadIdx.x; i < N; i += blockDim.x) p[i] = v;",
           "}"]
    for i in range(count):
        out += [f"template <typename T, int kTile, typename Op>",
                f"__global__ void k{i}(const __grid_constant__ CUtensorMap m, const T *in, Op op) {{",
                f"  __shared__ alignas(128) T tile[kTile];",
                f"  for (int j = threadIdx.x; j < kTile; j += blockDim.x)",
                f"    tile[j] = op(in[j]) + T({i});",
                f"  fill<T, kTile>(tile, tile[0]);",
                "  " + (FENCE if i % 2 else ""),
                f"  __syncthreads();",
                f"  if constexpr (kTile > {i}) {{ if (threadIdx.x == 0) tma_store(&m, tile); }}",
                f"}}"]
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tool", default=os.path.join(ROOT, "build", "proxyfence"))
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--corpus")
    ap.add_argument("--only", default=r"^(te|cccl|dg)-")
    a = ap.parse_args()
    tool = os.path.abspath(a.tool)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        gen = os.path.join(tmp, "templates.cuh")
        with open(gen, "w") as f:
            f.write(gen_templates())
        rows.append(("generated: 80 uninstantiated kernel templates", gen, [], None))
        if a.corpus:
            seen = set()
            for case in sorted(os.listdir(a.corpus)):
                d = os.path.join(a.corpus, case)
                if not re.search(a.only, case) or not os.path.isfile(os.path.join(d, "args")):
                    continue
                args = open(os.path.join(d, "args")).read().splitlines()
                key = open(os.path.join(d, "file")).read().strip()
                # One row per distinct file (mutations of one header cost alike).
                name = os.path.basename(key)
                if name in seen:
                    continue
                seen.add(name)
                rows.append((case, key, args, d))
        worst = 0.0
        print(f"{'input':52} {'clang s':>8} {'tool s':>8} {'ratio':>6}")
        for label, path, args, cwd in rows:
            ccmd = clang_command(tool, path, args, cwd) + ["-fsyntax-only"]
            tcmd = [tool, "--quiet", path] + (["--"] + args if args else [])
            tc = best_of(ccmd, a.reps, cwd)
            tt = best_of(tcmd, a.reps, cwd)
            ratio = tt / tc if tc else float("inf")
            worst = max(worst, ratio)
            print(f"{label[:52]:52} {tc:8.2f} {tt:8.2f} {ratio:6.2f}")
        print(f"worst ratio {worst:.2f} (goal <= {GOAL})")
        return 0 if worst <= GOAL else 1


if __name__ == "__main__":
    sys.exit(main())
