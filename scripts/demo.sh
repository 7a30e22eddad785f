#!/usr/bin/env bash
# Sets everything up, then shows proxyfence on the bundled examples: the
# findings, and each fix as a diff (on copies; examples/ is left as it is).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh build
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for src in examples/*/*.cu; do
  case "$src" in *.fixed.cu) continue ;; esac
  name=$(basename "$src")
  echo "=== proxyfence $src"
  ./build/proxyfence "$src" || true
  cp "$src" "$work/$name"
  ./build/proxyfence --fix --quiet "$work/$name" >/dev/null || true
  echo "--- fix:"
  diff -u --label "a/$src" --label "b/$src" "$src" "$work/$name" || true
  echo
done
