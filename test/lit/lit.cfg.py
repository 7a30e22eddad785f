# lit configuration for proxyfence's FileCheck tests.
import os
import shutil
import subprocess
import sys

import lit.formats

config.name = "proxyfence"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".cu", ".test"]
config.excludes = ["Inputs", "lit.cfg.py", "lit.site.cfg.py.in"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.binary_root, "test", "lit-out")

config.environment["PATH"] = os.pathsep.join(
    [config.llvm_tools_dir, os.path.join(config.cuda_path, "bin"),
     config.environment.get("PATH", os.environ.get("PATH", ""))])
# Colours and terminal detection must not change what FileCheck sees.
config.environment["TERM"] = "dumb"
# The result cache of the tests' runs stays in the build tree.
config.environment["XDG_CACHE_HOME"] = os.path.join(config.test_exec_root, "xdg-cache")

config.substitutions.append(("%proxyfence", config.proxyfence))
config.substitutions.append(("%cuda_path", config.cuda_path))
# The Python running lit, for the checkers under test/lit/*/Inputs.
config.substitutions.append(("%python", sys.executable))
config.substitutions.append(("%source_root", config.source_root))
config.substitutions.append(("%examples", os.path.join(config.source_root, "examples")))
# Compile a (fixed) file for Hopper with nvcc, the compiler of record.
nvcc = os.path.join(config.cuda_path, "bin", "nvcc")
config.substitutions.append(
    ("%nvcc-sm90a", nvcc + " -std=c++17 -gencode arch=compute_90a,code=sm_90a"))
config.substitutions.append(
    ("%nvcc-sm100a", nvcc + " -std=c++17 -gencode arch=compute_100a,code=sm_100a"))

# The clang-tidy plugin and the clang-tidy it is built for.
if config.tidy_plugin and config.clang_tidy and not config.clang_tidy.endswith("NOTFOUND"):
    config.available_features.add("tidy-plugin")
    config.substitutions.append(("%clang-tidy", config.clang_tidy))
    config.substitutions.append(("%tidy-plugin", config.tidy_plugin))
    config.substitutions.append(("%clangxx", os.path.join(config.llvm_tools_dir, "clang++")))
else:
    lit_config.note("clang-tidy plugin not built: tests marked 'REQUIRES: tidy-plugin' are UNSUPPORTED")

# The clang proxyfence is built with: nvcc-view/ runs its commands.
if not any(sub[0] == "%clangxx" for sub in config.substitutions):
    config.substitutions.append(("%clangxx", os.path.join(config.llvm_tools_dir, "clang++")))

# The toolkit's version (cuda-13.0): tests with data a given nvcc printed.
try:
    with open(os.path.join(config.cuda_path, "include", "cuda.h")) as f:
        for line in f:
            if line.startswith("#define CUDA_VERSION "):
                v = int(line.split()[2])
                config.available_features.add("cuda-%d.%d" % (v // 1000, v % 1000 // 10))
except (OSError, ValueError, IndexError):
    pass

# Root reads files whatever their mode: permission tests need another user.
if hasattr(os, "geteuid") and os.geteuid() != 0:
    config.available_features.add("non-root-user")

if shutil.which("ccache"):
    config.available_features.add("ccache")
if shutil.which("pre-commit"):
    config.available_features.add("pre-commit")

if os.path.exists(nvcc):
    config.available_features.add("nvcc")
else:
    lit_config.note("nvcc not found at %s: tests that compile fixed output are UNSUPPORTED" % nvcc)


def gpu_present():
    smi = shutil.which("nvidia-smi")
    if not smi:
        return False
    try:
        out = subprocess.run([smi, "-L"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return False
    return out.returncode == 0 and "GPU" in out.stdout


if gpu_present():
    config.available_features.add("gpu")
else:
    lit_config.note("no GPU present: tests marked 'REQUIRES: gpu' are reported UNSUPPORTED (skipped, not passed)")

# A scratch CMake + Ninja project builds through the launcher.
if shutil.which("cmake") and shutil.which("ninja"):
    config.available_features.add("cmake-ninja")
else:
    lit_config.note("cmake or ninja not found: tests marked 'REQUIRES: cmake-ninja' are UNSUPPORTED")
