#!/usr/bin/env python3
"""The layer check must fail when an include goes up: copy the tree, add one
upward include (and one the plugin may not make), and expect exactly those
to be reported, with the check clean on the untouched copy."""
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
CHECK = os.path.join(HERE, "check_layers.py")


def run(root):
    p = subprocess.run([sys.executable, CHECK, "--root", root],
                       capture_output=True, text=True)
    return p.returncode, p.stdout


def append_include(path, header):
    with open(path, "a", encoding="utf-8") as f:
        f.write(f'\n#include "{header}"\n')


def main():
    with tempfile.TemporaryDirectory() as tmp:
        for d in ("lib", "rules", "include", "tool"):
            shutil.copytree(os.path.join(ROOT, d), os.path.join(tmp, d))
        rc, out = run(tmp)
        if rc != 0:
            print("FAIL: the untouched copy is not clean:\n" + out)
            return 1
        append_include(os.path.join(tmp, "lib", "ptx", "Ptx.cpp"), "proxyfence/Driver.h")
        append_include(os.path.join(tmp, "lib", "model", "Events.h"), "analysis/ProxyDataflow.h")
        append_include(os.path.join(tmp, "tool", "ProxyFenceTidyModule.cpp"), "proxyfence/Driver.h")
        rc, out = run(tmp)
        want = ["lib/ptx/Ptx.cpp:", "ptx may not include driver",
                "lib/model/Events.h:", "model may not include analysis",
                "tool/ProxyFenceTidyModule.cpp:", "it may reach only frontend, report, rules"]
        missing = [w for w in want if w not in out]
        if rc != 1 or missing:
            print(f"FAIL: exit {rc}, missing {missing} in:\n{out}")
            return 1
    print("upward includes are caught: PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
