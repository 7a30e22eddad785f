#!/usr/bin/env python3
"""--fix on every lit test input and example, checking for each:
  - the fix is idempotent: a second --fix changes no byte;
  - a fixed file still compiles with nvcc, for the arch its own test
    compiles it for (examples: sm_100a where they use tcgen05 or cta_group,
    else sm_90a), with the include paths its test uses;
  - nothing outside the header filter changes: only the input and the
    project headers next to it (Inputs/) may; the CUDA headers never.

Inputs are sharded (--shard I/N) so that lit runs the shards in parallel.
Each input is fixed in a fresh copy of the source tree, so one input's
header fix does not hide another's. Exit status 0 when every check held.
"""
import argparse
import glob
import hashlib
import os
import re
import shlex
import shutil
import subprocess
import sys


def digest_tree(root):
    out = {}
    for d, _, files in os.walk(root):
        for f in files:
            p = os.path.join(d, f)
            with open(p, "rb") as fh:
                out[os.path.relpath(p, root)] = hashlib.sha1(fh.read()).hexdigest()
    return out


def stat_tree(root):
    """Size, mtime and inode of every file: cheap enough for the CUDA tree."""
    out = {}
    for d, _, files in os.walk(root):
        for f in files:
            p = os.path.join(d, f)
            s = os.lstat(p)
            out[p] = (s.st_size, s.st_mtime_ns, s.st_ino)
    return out


def test_arguments(text, directory):
    """--arch and the compiler arguments after `--` of the input's first
    proxyfence RUN line (style and verify options are left out: the default
    fix is what is checked)."""
    for line in text.splitlines():
        m = re.search(r"RUN:.*%proxyfence(?! verify)(.*)", line)
        if not m:
            continue
        rest = re.split(r"[|>]|2>&1", m.group(1))[0].replace("%S", directory)
        words = shlex.split(rest)
        opts = [w for w in words if w.startswith("--arch=")]
        extra = words[words.index("--") + 1:] if "--" in words else []
        return opts, extra
    return [], []


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--proxyfence", required=True)
    ap.add_argument("--nvcc", required=True)
    ap.add_argument("--cuda-path", required=True)
    ap.add_argument("--source", required=True, help="repository root")
    ap.add_argument("--dir", required=True)
    ap.add_argument("--shard", default="0/1")
    a = ap.parse_args()
    shard, shards = map(int, a.shard.split("/"))

    inputs = sorted(os.path.relpath(p, a.source) for p in
                    glob.glob(os.path.join(a.source, "test", "lit", "*", "*.cu")) +
                    glob.glob(os.path.join(a.source, "examples", "*", "*.cu"))
                    if not p.endswith(".fixed.cu"))
    mine = inputs[shard::shards]
    cuda_before = stat_tree(os.path.join(a.cuda_path, "include"))

    errors, fixed_count, compiled = [], 0, 0
    for rel in mine:
        work = os.path.join(a.dir, "tree")
        shutil.rmtree(work, ignore_errors=True)
        # Only the input's own folder (and Inputs/ beside it) is needed.
        top = os.path.dirname(os.path.dirname(rel))
        shutil.copytree(os.path.join(a.source, top), os.path.join(work, top))
        path = os.path.join(work, rel)
        text = open(path, encoding="utf-8", errors="replace").read()
        opts, extra = test_arguments(text, os.path.dirname(path))
        before = digest_tree(work)
        cmd = [a.proxyfence, "--fix", "--quiet"] + opts + [path]
        if extra:
            cmd += ["--"] + extra
        first = subprocess.run(cmd, capture_output=True, text=True)
        if first.returncode not in (0, 1):
            errors.append("%s: --fix exited %d: %s" % (rel, first.returncode, first.stderr.strip()))
            continue
        after = digest_tree(work)
        changed = sorted(f for f in after if after[f] != before.get(f))
        allowed = {os.path.relpath(path, work)}
        outside = [f for f in changed if f not in allowed and "/Inputs/" not in "/" + f]
        if outside or len(after) != len(before):
            errors.append("%s: --fix changed files outside its input and project headers: %s"
                          % (rel, sorted(set(after) ^ set(before)) + outside))
        second = subprocess.run(cmd, capture_output=True, text=True)
        if digest_tree(work) != after:
            errors.append("%s: a second --fix changed the files again" % rel)
        if second.returncode not in (0, 1):
            errors.append("%s: second --fix exited %d" % (rel, second.returncode))
        if not changed:
            continue
        fixed_count += 1
        # Compiled as its own test compiles it (some inputs mix Hopper and
        # Blackwell instructions and are never compiled); examples by arch.
        nvcc_arch = re.findall(r"%nvcc-sm(\d+a)", text)
        if rel.startswith("examples/"):
            nvcc_arch = ["100a" if re.search(r"tcgen05|cta_group", text) else "90a"]
        if not nvcc_arch:
            continue
        arch = nvcc_arch[0]
        for f in changed:
            if not f.endswith(".cu"):
                continue  # headers are compiled through their includer
            # Device code only (-cubin: front end, cicc, ptxas): a fix
            # changes only device functions, and the host compiler's pass
            # over the same file is most of the time of -c.
            nvcc = [a.nvcc, "-std=c++17", "-gencode", "arch=compute_%s,code=sm_%s" % (arch, arch),
                    "-cubin", "-o", os.devnull, os.path.join(work, f)] + \
                   [x for x in extra if x.startswith(("-I", "-D", "-ftemplate-depth"))]
            r = subprocess.run(nvcc, capture_output=True, text=True)
            if r.returncode != 0:
                errors.append("%s: the fixed file does not compile with nvcc for sm_%s:\n%s"
                              % (rel, arch, r.stderr.strip()[-2000:]))
            else:
                compiled += 1

    if stat_tree(os.path.join(a.cuda_path, "include")) != cuda_before:
        errors.append("files under %s/include changed" % a.cuda_path)
    print("shard %d/%d: %d inputs, %d changed by --fix, %d of them compiled with nvcc"
          % (shard, shards, len(mine), fixed_count, compiled))
    for e in errors:
        print("error: " + e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
