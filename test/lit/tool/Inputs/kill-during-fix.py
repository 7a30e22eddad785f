#!/usr/bin/env python3
"""Kills `proxyfence --fix` with SIGKILL at random moments and checks that
every file is then either untouched or completely fixed, and that running
--fix again finishes the job.

One input includes N project headers, each with its own fixable finding, so
that a single analysis (about a second) is followed by N writes: the kill
lands in the analysis or, more usefully, among the writes. Half of the kills
wait for the first temporary file to appear (the write phase) and then a
random fraction of the write phase measured on an uninterrupted run.

Exit status 0 when every check held; otherwise the violations are printed.
"""
import argparse
import os
import random
import shutil
import signal
import subprocess
import sys
import time

HEADER = """#pragma once
#include <cuda.h>
__device__ inline void store{n}(const CUtensorMap *tmap, float v) {{
  __shared__ alignas(128) float tile[256];
  tile[threadIdx.x] = v + {n};
  __syncthreads();
  if (threadIdx.x == 0)
    asm volatile("cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [%0, {{%2}}], [%1];"
                 :: "l"(tmap), "r"((unsigned)__cvta_generic_to_shared(tile)), "r"({n}) : "memory");
}}
"""
TMP_MARK = ".proxyfence-"


def read_all(d):
    return {f: open(os.path.join(d, f), "rb").read() for f in sorted(os.listdir(d))}


def temp_files(d):
    return [f for f in os.listdir(d) if TMP_MARK in f]


def start(tool, d):
    return subprocess.Popen([tool, "--fix", "--quiet", os.path.join(d, "k.cu")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def wait_for_writes(proc, d):
    """Seconds from launch until a temporary file appears; None if the run
    ended first."""
    t0 = time.monotonic()
    while proc.poll() is None:
        if temp_files(d):
            return time.monotonic() - t0
        time.sleep(0.0005)
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--proxyfence", required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--files", type=int, default=30)
    ap.add_argument("--iterations", type=int, default=12)
    ap.add_argument("--seed", type=int, default=8)
    a = ap.parse_args()
    rng = random.Random(a.seed)

    orig = os.path.join(a.dir, "orig")
    shutil.rmtree(a.dir, ignore_errors=True)
    os.makedirs(orig)
    with open(os.path.join(orig, "k.cu"), "w") as k:
        for n in range(a.files):
            name = "h%02d.h" % n
            with open(os.path.join(orig, name), "w") as h:
                h.write(HEADER.format(n=n))
            k.write('#include "%s"\n' % name)
    original = read_all(orig)

    # The fully fixed files, from one uninterrupted run; and how long the
    # analysis and the writes take.
    ref = os.path.join(a.dir, "ref")
    shutil.copytree(orig, ref)
    t0 = time.monotonic()
    proc = start(a.proxyfence, ref)
    first_write = wait_for_writes(proc, ref)
    rc = proc.wait()
    total = time.monotonic() - t0
    fixed = read_all(ref)
    changed = [f for f in fixed if fixed[f] != original[f]]
    if rc != 0 or len(changed) != a.files or "k.cu" in changed:
        print("reference run: exit %d, %d of %d headers fixed" % (rc, len(changed), a.files))
        return 1
    write_phase = total - (first_write or total) + 0.005

    errors, partial, none_fixed, all_fixed, leftovers = [], 0, 0, 0, 0
    run = os.path.join(a.dir, "run")
    for it in range(a.iterations):
        shutil.rmtree(run, ignore_errors=True)
        shutil.copytree(orig, run)
        proc = start(a.proxyfence, run)
        if it % 2 == 0:
            time.sleep(rng.uniform(0, total))
        elif wait_for_writes(proc, run) is not None:
            time.sleep(rng.uniform(0, write_phase))
        proc.send_signal(signal.SIGKILL)
        proc.wait()

        # Each file is one of its two versions, never a mix or a truncation.
        tmps = temp_files(run)
        leftovers += len(tmps)
        if len(tmps) > 1:  # files are written one at a time
            errors.append("iteration %d: %d temporary files left" % (it, len(tmps)))
        for f in tmps:
            if not any(f.startswith(h + TMP_MARK) for h in original):
                errors.append("iteration %d: unexpected file %s" % (it, f))
            os.remove(os.path.join(run, f))
        now = read_all(run)
        if sorted(now) != sorted(original):
            errors.append("iteration %d: files %s, expected %s" % (it, sorted(now), sorted(original)))
            continue
        n_fixed = 0
        for f in original:
            if now[f] == fixed[f] and fixed[f] != original[f]:
                n_fixed += 1
            elif now[f] != original[f]:
                errors.append("iteration %d: %s is neither the original nor the fixed file" % (it, f))
        if n_fixed == 0:
            none_fixed += 1
        elif n_fixed == a.files:
            all_fixed += 1
        else:
            partial += 1

        # Running --fix again completes what the kill interrupted.
        rc = subprocess.run([a.proxyfence, "--fix", "--quiet", os.path.join(run, "k.cu")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
        if rc != 0 or read_all(run) != fixed:
            errors.append("iteration %d: a second --fix (exit %d) did not complete the fixes" % (it, rc))

    print("%d kills: %d before any write, %d among the writes, %d after the last; "
          "%d temporary files left by SIGKILL" % (a.iterations, none_fixed, partial, all_fixed, leftovers))
    for e in errors:
        print("error: " + e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
