#!/usr/bin/env python3
"""proxyfence against `clang -fsyntax-only`: time and peak memory ratios.

For every input the clang command is the one proxyfence itself uses
(`proxyfence --print-command`), so both parse exactly the same thing; the
ratio is therefore the price of the analysis on top of the parse. Each
command runs --reps times and the fastest run counts (the machine is shared).

Inputs: the examples, the lit test inputs, generated stress kernels (many
shared-memory accesses, many device functions, deep templates, long asm
blocks, a scaling series of 1x/2x/4x/8x the code) and a translation unit
that pulls in the heaviest CUDA headers available here.

Then `-p <db> -j 1` against `-j 2` over a generated compile database of
several files: the speed-up of analysing files on threads.

With --corpus DIR (a corpus extracted by ../shared/realworld/extract.sh),
real translation units too: CUTLASS/CuTe GEMMs and DeepGEMM's attention-like
kernels, each with its case's arguments. They get real bodies from the nvcc
view, so they are the heavy end (10 to 45 s of parse); the goal is a ratio
of 1.25 or less. Nothing of the corpus is kept here.

The clang command includes the nvcc view's prelude, which proxyfence keeps in
memory: it is written to a temporary file for clang (--print-nvcc-prelude).

Usage: bench/bench.py [--tool build/proxyfence] [--reps 3] [--quick] [--db-files 8]
                      [--corpus DIR [--cases id,id,...] [--corpus-only]]
"""
import json
import argparse
import glob
import math
import os
import resource  # noqa: F401  (os.wait4 returns its rusage)
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLANG = "/usr/lib/llvm-22/bin/clang++"


def run_measured(cmd):
    """Wall seconds and peak RSS (MiB) of one run of cmd; output discarded."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    return wall, usage.ru_maxrss / 1024.0, os.waitstatus_to_exitcode(status)


def best_of(cmd, reps):
    runs = [run_measured(cmd) for _ in range(reps)]
    return min(r[0] for r in runs), max(r[1] for r in runs), runs[-1][2]


PRELUDE_DIR = "/proxyfence-nvcc-view/"


def clang_command(tool, path, extra=(), tmp=None):
    """proxyfence's own clang command for path; the in-memory prelude is
    written under tmp for clang to read."""
    out = subprocess.run([tool, "--print-command", path, "--"] + list(extra),
                         capture_output=True, check=True).stdout
    args = out.rstrip(b"\n").split(b"\0")
    args = [a.decode() for a in args if a]
    args[0] = CLANG
    if tmp and any(a.startswith(PRELUDE_DIR) for a in args):
        local = os.path.join(tmp, "nvcc-prelude.cuh")
        with open(local, "wb") as f:
            f.write(subprocess.run([tool, "--print-nvcc-prelude"], capture_output=True,
                                   check=True).stdout)
        args = [local if a.startswith(PRELUDE_DIR) else a for a in args]
    return args


# Corpus cases that make heavy translation units: CuTe/CUTLASS GEMMs
# (Hopper, Blackwell, a warp-specialized epilogue) and DeepGEMM's kernels.
CORPUS_CASES = ["cutlass-hopper-tut-neg", "cutlass-epi-neg", "cutlass-bw05-mbar",
                "dg-mqa-neg", "dg-fp8fp4-neg"]


def corpus_inputs(corpus, cases):
    """(name, file, args, cwd) of each case directory that exists."""
    found = []
    for case in cases:
        d = os.path.join(corpus, case)
        try:
            with open(os.path.join(d, "file")) as f:
                path = f.read().strip()
            with open(os.path.join(d, "args")) as f:
                args = [a for a in f.read().split("\n") if a]
        except OSError:
            print(f"bench: corpus case {case} not found in {corpus}; skipped", file=sys.stderr)
            continue
        found.append((case, path, args, d))
    return found


# ---- generated stress inputs -------------------------------------------------

TMA = ('asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" '
       ':: "l"(out), "r"((unsigned)__cvta_generic_to_shared({buf})), "r"(1024) : "memory");')
FENCE = 'asm volatile("fence.proxy.async.shared::cta;" ::: "memory");'


def gen_accesses(scale):
    """One kernel body with 500*scale smem accesses, barriers and TMA stores."""
    lines = ["__global__ void k(float* out, float v) {",
             "  __shared__ alignas(128) float a[4096];",
             "  __shared__ alignas(128) float b[4096];"]
    for i in range(500 * scale):
        buf = "a" if i % 3 else "b"
        lines.append(f"  {buf}[(threadIdx.x + {i}) % 4096] = v * {i % 97}.0f;")
        if i % 25 == 24:
            lines.append("  __syncthreads();")
            lines.append("  if (threadIdx.x == 0) " + TMA.format(buf=buf))
        if i % 100 == 99:
            lines.append("  " + FENCE)
    lines.append("}")
    return "\n".join(lines) + "\n"


def gen_functions(count=60):
    """A chain of device helpers, each writing smem, some fencing."""
    out = ["__shared__ alignas(128) float g_tile[1024];"]
    for i in range(count):
        body = [f"  p[threadIdx.x % 1024] += {i}.0f;"]
        if i % 7 == 0:
            body.append("  " + FENCE)
        if i:
            body.append(f"  helper{i - 1}(p);")
        out.append(f"__device__ __noinline__ void helper{i}(float* p) {{\n" + "\n".join(body) + "\n}")
    out.append("__global__ void k(float* out) {\n"
               f"  helper{count - 1}(g_tile);\n  __syncthreads();\n"
               "  if (threadIdx.x == 0) " + TMA.format(buf="g_tile") + "\n}")
    return "\n".join(out) + "\n"


def gen_templates(depth=40):
    """Deep recursive template helpers, as in CuTe-style code."""
    return f"""
template <int N> struct Stage {{
  __device__ static void write(float* p, float v) {{
    p[(threadIdx.x + N) % 1024] = v;
    Stage<N - 1>::write(p, v * 0.5f);
  }}
}};
template <> struct Stage<0> {{ __device__ static void write(float*, float) {{}} }};
template <typename T, int D> __device__ void epilogue(T* out, T* smem) {{
  Stage<D>::write(smem, 1.0f);
  __syncthreads();
  if (threadIdx.x == 0) {TMA.format(buf="smem")}
}}
__global__ void k(float* out) {{
  __shared__ alignas(128) float tile[1024];
  epilogue<float, {depth}>(out, tile);
}}
"""


def gen_asm(blocks=20, length=400):
    """Long raw-PTX asm blocks with labels, predicates and scopes."""
    body = []
    for b in range(blocks):
        instrs = ["{", ".reg .pred p;", ".reg .b32 r<4>;"]
        for i in range(length):
            if i % 50 == 0:
                instrs.append(f"L{b}_{i}:")
            instrs.append(f"add.u32 r{i % 4}, r{(i + 1) % 4}, {i};")
            if i % 40 == 39:
                instrs.append(f"setp.ne.u32 p, r0, {i}; @p bra L{b}_{(i // 50) * 50};")
        instrs.append("st.shared.v4.b32 [%0], {r0, r1, r2, r3};")
        instrs.append("}")
        text = "\\n\\t".join(instrs)
        body.append(f'  asm volatile("{text}" :: "r"((unsigned)__cvta_generic_to_shared(tile)) : "memory");')
    return ("__global__ void k(float* out) {\n  __shared__ alignas(128) float tile[1024];\n"
            + "\n".join(body) + "\n  __syncthreads();\n  if (threadIdx.x == 0) "
            + TMA.format(buf="tile") + "\n}\n")


HEAVY = """#include <cuda/ptx>
#include <cuda/barrier>
#include <cuda_bf16.h>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void k(float* out) {
  __shared__ alignas(128) float tile[1024];
  tile[threadIdx.x] = __bfloat162float(__float2bfloat16(1.0f));
  cg::this_thread_block().sync();
  if (threadIdx.x == 0)
    cuda::ptx::cp_async_bulk(cuda::ptx::space_global, cuda::ptx::space_shared, out, tile, 4096);
}
"""


def inputs(tmp, quick):
    found = []
    for p in sorted(glob.glob(os.path.join(ROOT, "examples", "*", "*.cu"))):
        if not p.endswith(".fixed.cu"):
            found.append(("example", p))
    if not quick:
        for p in sorted(glob.glob(os.path.join(ROOT, "test", "lit", "**", "*.cu"), recursive=True)):
            if "/Inputs/" not in p:
                found.append(("test", p))
    generated = {"stress-functions": gen_functions(), "stress-templates": gen_templates(),
                 "stress-asm": gen_asm(), "heavy-headers": HEAVY}
    for scale in (1, 2, 4, 8):
        generated[f"scale-{scale}x"] = gen_accesses(scale)
    for name, text in generated.items():
        path = os.path.join(tmp, name + ".cu")
        with open(path, "w") as f:
            f.write(text)
        found.append(("generated", path))
    return found


def jobs_scaling(tool, tmp, reps, count):
    """Wall time of -p DB -j 1 and -j 2 over `count` generated files."""
    src = os.path.join(tmp, "db")
    os.makedirs(src, exist_ok=True)
    entries = []
    for i in range(count):
        path = os.path.join(src, f"unit{i}.cu")
        with open(path, "w") as f:
            # Different sizes, as in a real project; each a separate kernel.
            f.write(gen_accesses(1 + i % 3).replace("void k(", f"void k{i}("))
        entries.append({"directory": src, "file": path,
                        "arguments": ["nvcc", "-arch=sm_90a", "-c", path, "-o", path + ".o"]})
    with open(os.path.join(src, "compile_commands.json"), "w") as f:
        json.dump(entries, f)
    times = {}
    for jobs in (1, 2):
        wall, _, rc = best_of([tool, "--quiet", "--no-cache", "-p", src, "-j", str(jobs)], reps)
        if rc == 2:
            return None
        times[jobs] = wall
    return times


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tool", default=os.path.join(ROOT, "build", "proxyfence"))
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="examples and generated inputs only")
    ap.add_argument("--db-files", type=int, default=8, help="files in the -j database (default 8)")
    ap.add_argument("--corpus", help="an extracted real-world corpus: time its heavy TUs too")
    ap.add_argument("--cases", default=",".join(CORPUS_CASES),
                    help="corpus case ids to time (default: %(default)s)")
    ap.add_argument("--corpus-only", action="store_true",
                    help="with --corpus: only its translation units")
    args = ap.parse_args()
    if not os.access(args.tool, os.X_OK):
        sys.exit(f"bench: no proxyfence at {args.tool}; build first (scripts/setup.sh)")

    ratios, rows = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for name, path, extra, cwd in corpus_inputs(args.corpus, args.cases.split(",")) \
                if args.corpus else []:
            clang = clang_command(args.tool, path, extra, tmp)
            ct, cm, crc = best_of(clang, args.reps)
            tt, tm, trc = best_of([args.tool, "--quiet", path, "--"] + extra, args.reps)
            if crc == 2 or trc == 2:
                print(f"bench: {name}: clang exit {crc}, proxyfence exit {trc}; skipped",
                      file=sys.stderr)
                continue
            ratios.append(tt / ct)
            rows.append(("corpus:" + name, ct, tt, tt / ct, cm, tm))
        inputs_list = [] if args.corpus_only else inputs(tmp, args.quick)
        for kind, path in inputs_list:
            try:
                clang = clang_command(args.tool, path, (), tmp)
            except subprocess.CalledProcessError:
                continue
            ct, cm, crc = best_of(clang, args.reps)
            tt, tm, trc = best_of([args.tool, "--quiet", "--no-cache", path], args.reps)
            if trc == 2:
                continue  # inputs that are bad on purpose
            ratio = tt / ct
            ratios.append(ratio)
            name = os.path.relpath(path, ROOT) if kind != "generated" else os.path.basename(path)
            rows.append((name, ct, tt, ratio, cm, tm))
        scaling = None if args.corpus_only else jobs_scaling(args.tool, tmp, args.reps,
                                                              args.db_files)

    print(f"{'input':58} {'clang s':>8} {'tool s':>8} {'ratio':>6} {'clang MiB':>9} {'tool MiB':>9}")
    for name, ct, tt, ratio, cm, tm in rows:
        limit = 1.25 if name.startswith("corpus:") else 1.10
        flag = f"  > {limit:.2f}" if ratio > limit else ""
        print(f"{name[-58:]:58} {ct:8.3f} {tt:8.3f} {ratio:6.2f} {cm:9.1f} {tm:9.1f}{flag}")
    if ratios:
        geo = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
        print(f"\ngeometric mean time ratio (proxyfence / clang -fsyntax-only): {geo:.3f} over {len(ratios)} inputs")
        scale = [r for r in rows if r[0].startswith("scale-")]
        if scale:
            base = scale[0][2] - scale[0][1]
            print("scaling (analysis time = tool - clang, relative to 1x): " +
                  ", ".join(f"{r[0][6:-3]}: {(r[2] - r[1]) / base if base > 0 else float('nan'):.2f}"
                            for r in scale))
    if scaling:
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
        print(f"\n-p <db of {args.db_files} files>: -j 1 {scaling[1]:.3f} s, -j 2 {scaling[2]:.3f} s, "
              f"speed-up {scaling[1] / scaling[2]:.2f}x ({cores} cores available)")


if __name__ == "__main__":
    main()
