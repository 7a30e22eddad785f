#!/usr/bin/env bash
# Full verification of every example by proxyfence itself, on a GPU machine:
# for each examples/<name>/<name>.cu, a copy is fixed with
#   proxyfence --fix --verify
# which recompiles the fixed file with nvcc, checks the fence on every PTX
# path (and in SASS), then builds the file's own harness from the original
# and from the fixed text, runs both, and compares results and time per run.
#
# Environment:
#   PROXYFENCE   the tool (default: proxyfence on PATH, else build/proxyfence;
#                on a machine without LLVM 22 use scripts/bundle.sh's build)
#   RUN_TIMEOUT  wall-clock limit per harness run, seconds (default 600)
#   OUT          log directory root (default /tmp); logs in $OUT/proxyfence-verify
# Exit: 0 when every example verified (fixed harness passed), 1 otherwise,
# 77 when no GPU is present.
set -u
EX_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(dirname "$EX_DIR")"
PF="${PROXYFENCE:-$(command -v proxyfence || echo "$ROOT/build/proxyfence")}"
LOG_DIR="${OUT:-/tmp}/proxyfence-verify"
RUN_TIMEOUT="${RUN_TIMEOUT:-600}"

if ! nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
  echo "SKIP verify_gpu.sh: nvidia-smi finds no GPU; the harnesses need a Hopper (sm_90a) GPU."
  exit 77
fi
[ -x "$PF" ] || { echo "ERROR verify_gpu.sh: no proxyfence at '$PF' (set PROXYFENCE)"; exit 1; }
mkdir -p "$LOG_DIR"
echo "GPU: $(nvidia-smi -L | head -n 1)"
echo "proxyfence: $PF; logs: $LOG_DIR"
overall=0
for dir in "$EX_DIR"/*/; do
  name="$(basename "$dir")"
  [ -f "$dir$name.cu" ] || continue
  work="$LOG_DIR/$name"
  rm -rf "$work" && mkdir -p "$work"
  cp "$dir$name.cu" "$work/"
  "$PF" --fix --verify --run-timeout="$RUN_TIMEOUT" "$work/$name.cu" >"$work/verify.log" 2>&1
  rc=$?
  echo "== $name (exit $rc)"
  grep -E "^(verified|proxyfence: verify: .*(FAILED|original|time per run|SASS|TIMEOUT))|^proxyfence: [0-9]+ finding" \
    "$work/verify.log" | grep -v "^proxyfence: verify: running" | sed 's/^/   /'
  [ "$rc" = 0 ] || overall=1
done
exit "$overall"
