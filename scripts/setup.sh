#!/usr/bin/env bash
# Installs what proxyfence needs (Debian packages only) and builds it.
# Usage: scripts/setup.sh [build-dir [cmake options...]]   (default: build)
# EXTRA_PKGS: more Debian packages a build needs (scripts/bundle.sh's static one).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
shift || true

PKGS=(clang-22 libclang-22-dev libclang-rt-22-dev llvm-22-dev llvm-22-tools clang-tidy-22
      cmake ninja-build libgtest-dev python3 python3-yaml pre-commit ccache ${EXTRA_PKGS:-})
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q "${missing[@]}"
fi
if [ ! -x /usr/local/cuda/bin/nvcc ] && [ -z "${CUDA_PATH:-}" ]; then
  echo "setup: note: no CUDA at /usr/local/cuda; pass -DPF_CUDA_PATH=... or --cuda-path" >&2
fi

# ccache (installed above) makes a rebuild in a fresh clone on the same machine
# (CI after a session) cost seconds; paths are hashed relative to the clone.
LAUNCHER=()
if command -v ccache >/dev/null 2>&1; then
  LAUNCHER=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
fi
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release "${LAUNCHER[@]}" \
  ${CUDA_PATH:+-DPF_CUDA_PATH="$CUDA_PATH"} "$@" >/dev/null
# Two jobs: the CI machine has 2 cores and clang's headers are heavy.
ninja -C "$BUILD" -j "$(nproc)"
