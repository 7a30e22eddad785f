#!/usr/bin/env bash
# Builds a self-contained proxyfence for a machine without LLVM 22 (a GPU
# box where `proxyfence --fix --verify` should also run the harnesses):
# Clang, LLVM and the C library linked statically (any x86-64 Linux, whatever
# its glibc), plus Clang's own headers beside it.
#   scripts/bundle.sh [OUT.tar.xz [cmake options...]]
#     (default: dist/proxyfence-linux-x86_64.tar.xz; build dir build-static)
# Unpack anywhere and run <dir>/bin/proxyfence; it needs CUDA (nvcc) there.
set -euo pipefail
cd "$(dirname "$0")/.."
OUTPUT="${1:-dist/proxyfence-linux-x86_64.tar.xz}"
shift || true
# The static link needs libzstd.a and libz.a.
EXTRA_PKGS="libzstd-dev zlib1g-dev" \
  scripts/setup.sh build-static -DPROXYFENCE_STATIC=ON -DBUILD_TESTING=OFF "$@"
major="$(llvm-config-22 --version | cut -d. -f1)"
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/proxyfence/bin" "$stage/proxyfence/lib/clang/$major"
cp build-static/proxyfence "$stage/proxyfence/bin/"
strip "$stage/proxyfence/bin/proxyfence"
cp -rL "/usr/lib/llvm-22/lib/clang/$major/include" "$stage/proxyfence/lib/clang/$major/"
mkdir -p "$(dirname "$OUTPUT")"
tar -C "$stage" -cJf "$OUTPUT.tmp" proxyfence
mv "$OUTPUT.tmp" "$OUTPUT"
echo "wrote $OUTPUT ($(du -h "$OUTPUT" | cut -f1)): unpack and run proxyfence/bin/proxyfence"
