#!/usr/bin/env bash
# Full verification of every example by proxyfence itself, on a GPU machine:
# for each examples/<name>/<name>.cu, a copy is fixed with
#   proxyfence --fix --verify --arch=<the example's own target>
# which recompiles the fixed file with nvcc, checks the fence on every PTX
# path (and in SASS), then builds the file's own harness from the original
# and from the fixed text, runs both, and compares results and time per run.
# The target is the `code=sm_XX` of the example's `// Build:` line (sm_90a
# for all but the Blackwell ones), so each is compiled for its own GPU; a
# harness on another GPU exits 77 and is reported as skipped.
#
# Usage: examples/verify_gpu.sh [<example name>...]   (default: every example)
#
# Environment:
#   PROXYFENCE   the tool (default: proxyfence on PATH, else build/proxyfence;
#                on a machine without LLVM 22 use scripts/bundle.sh's build)
#   RUN_TIMEOUT  wall-clock limit per harness run, seconds (default 600)
#   OUT          log directory root (default /tmp); logs in $OUT/proxyfence-verify
#   PROXYFENCE_GPU_PROBE  command that says whether a GPU is present
#                (default `nvidia-smi -L`; proxyfence reads it too)
# Exit: 0 when every example verified (fixed harness passed or skipped), 1
# otherwise, 77 when no GPU is present.
set -u
EX_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(dirname "$EX_DIR")"
PF="${PROXYFENCE:-$(command -v proxyfence || echo "$ROOT/build/proxyfence")}"
LOG_DIR="${OUT:-/tmp}/proxyfence-verify"
RUN_TIMEOUT="${RUN_TIMEOUT:-600}"

if ! sh -c "${PROXYFENCE_GPU_PROBE:-nvidia-smi -L}" >/dev/null 2>&1; then
  echo "SKIP verify_gpu.sh: no GPU found; the harnesses need a Hopper (sm_90a) GPU."
  exit 77
fi
[ -x "$PF" ] || { echo "ERROR verify_gpu.sh: no proxyfence at '$PF' (set PROXYFENCE)"; exit 1; }
mkdir -p "$LOG_DIR"
echo "GPU: $(nvidia-smi -L 2>/dev/null | head -n 1)"
echo "proxyfence: $PF; logs: $LOG_DIR"
overall=0
for dir in "$EX_DIR"/*/; do
  name="$(basename "$dir")"
  [ -f "$dir$name.cu" ] || continue
  if [ "$#" -gt 0 ] && [[ " $* " != *" $name "* ]]; then continue; fi
  arch="$(sed -n 's,^// Build:.*code=\(sm_[0-9]*[af]\?\).*,\1,p' "$dir$name.cu" | head -n 1)"
  work="$LOG_DIR/$name"
  rm -rf "$work" && mkdir -p "$work"
  cp "$dir$name.cu" "$work/"
  start=$SECONDS
  "$PF" --fix --verify --run-timeout="$RUN_TIMEOUT" ${arch:+--arch="$arch"} \
    "$work/$name.cu" >"$work/verify.log" 2>&1
  rc=$?
  echo "== $name (${arch:-default arch}, exit $rc, $((SECONDS - start)) s)"
  grep -E "^(verified|proxyfence: verify: .*(FAILED|original|time per run|SASS|TIMEOUT|skipped|nothing to check))|^proxyfence: [0-9]+ finding" \
    "$work/verify.log" | grep -v "^proxyfence: verify: running" | sed 's/^/   /'
  [ "$rc" = 0 ] || overall=1
done
exit "$overall"
