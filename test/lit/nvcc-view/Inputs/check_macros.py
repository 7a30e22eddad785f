#!/usr/bin/env python3
"""Compares the macros proxyfence's clang command defines with nvcc's.

Usage: check_macros.py PROXYFENCE CLANG NVCC_MACROS_FILE ARCH [proxyfence options]

Runs `PROXYFENCE --print-command --arch ARCH` on an empty file, writes the
in-memory prelude (--print-nvcc-prelude) where the command includes it, runs
the command with -E -dM, and checks every macro of NVCC_MACROS_FILE (the
output of nvcc -E -dM for the device pass) for the same value. Prints one
line per macro: "same NAME", "differs NAME: nvcc V, clang W", "missing NAME",
or "not defined on purpose NAME" for the documented exceptions.
"""
import os
import subprocess
import sys
import tempfile

# nvcc's own identity and builtins the prelude does not provide: defining
# them would send CCCL down code paths only nvcc can compile (README).
ON_PURPOSE = {"__NVCC__", "__CUDACC_DEVICE_ATOMIC_BUILTINS__",
              "__NVCC_DIAG_PRAGMA_SUPPORT__", "__CUDACC__"}


def macros(lines):
    out = {}
    for line in lines:
        if not line.startswith("#define "):
            continue
        name, _, value = line[len("#define "):].partition(" ")
        out[name] = value.strip()
    return out


def main():
    tool, clang, data, arch = sys.argv[1:5]
    extra = sys.argv[5:]
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "empty.cu")
        open(src, "w").close()
        cmd = subprocess.run([tool, "--print-command", "--arch", arch] + extra + [src],
                             capture_output=True, check=True).stdout
        args = [a.decode() for a in cmd.rstrip(b"\n").split(b"\0") if a]
        prelude = subprocess.run([tool, "--print-nvcc-prelude"], capture_output=True,
                                 check=True).stdout
        local = os.path.join(tmp, "prelude.cuh")
        with open(local, "wb") as f:
            f.write(prelude)
        args = [local if a.startswith("/proxyfence-nvcc-view/") else a for a in args]
        args[0] = clang
        args = [a for a in args if a != "-fsyntax-only"] + ["-E", "-dM", "-o", "-"]
        got = macros(subprocess.run(args, capture_output=True, check=True,
                                    text=True).stdout.splitlines())
    want = macros(open(data).read().splitlines())
    for name in sorted(want):
        if name in ON_PURPOSE:
            print("not defined on purpose", name)
        elif name not in got:
            print("missing", name)
        elif got[name] != want[name]:
            print(f"differs {name}: nvcc {want[name]}, clang {got[name]}")
        else:
            print("same", name)


if __name__ == "__main__":
    main()
