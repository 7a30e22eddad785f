#!/usr/bin/env bash
# Build and run every proxyfence example on a Hopper GPU (sm_90a).
#
# For each examples/<name>/<name>.cu and, when present, <name>.fixed.cu:
#   - build with nvcc (flags below), dump SASS with cuobjdump -sass and count
#     FENCE.VIEW.ASYNC.S against the async stores UTMASTG / UBLKCP;
#   - run with a wall-clock timeout and record the PASS/FAIL line and exit code.
# Then print a summary table (also written to $LOG_DIR/summary.txt).
#
# Usage: examples/run_gpu.sh [<example name>...]   (default: every example)
#
# Environment:
#   RUNS       --runs passed to every example (default: each example's own default)
#   TIMEOUT_S  wall-clock limit per run in seconds (default 120)
#   OUT        log directory root (default /tmp); logs go to $OUT/proxyfence-examples
#   NVCC, CUOBJDUMP  tool paths (default: from PATH, else /usr/local/cuda/bin)
#
# Exit: 0 when every build succeeded and every *fixed* variant PASSed (the
# original, buggy variants may PASS or FAIL: the race is timing dependent);
# 1 otherwise; 77 when no GPU is present.
set -u

EX_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
LOG_DIR="${OUT:-/tmp}/proxyfence-examples"
TIMEOUT_S="${TIMEOUT_S:-120}"
RUNS="${RUNS:-}"
# shellcheck disable=SC2054  # commas belong to -gencode
NVCC_FLAGS=(-std=c++17 -gencode arch=compute_90a,code=sm_90a -O3 -lineinfo)

find_tool() {  # $1 = env override, $2 = tool name
  if [ -n "$1" ]; then echo "$1"; return; fi
  if command -v "$2" >/dev/null 2>&1; then command -v "$2"; return; fi
  if [ -x "/usr/local/cuda/bin/$2" ]; then echo "/usr/local/cuda/bin/$2"; return; fi
  echo ""
}
NVCC="$(find_tool "${NVCC:-}" nvcc)"
CUOBJDUMP="$(find_tool "${CUOBJDUMP:-}" cuobjdump)"

if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
  echo "SKIP run_gpu.sh: nvidia-smi finds no GPU; these examples need a Hopper (sm_90a) GPU."
  exit 77
fi
if [ -z "$NVCC" ]; then echo "ERROR run_gpu.sh: nvcc not found (set NVCC)"; exit 1; fi
[ -z "$CUOBJDUMP" ] && echo "WARNING: cuobjdump not found (set CUOBJDUMP); SASS counts skipped"
HAVE_TIMEOUT=1
command -v timeout >/dev/null 2>&1 || { HAVE_TIMEOUT=0; echo "WARNING: no 'timeout'; runs are not time-limited"; }

mkdir -p "$LOG_DIR"
echo "GPU: $(nvidia-smi -L | head -n 1)"
echo "nvcc: $("$NVCC" --version | tail -n 1)"
echo "logs: $LOG_DIR"
echo

# SASS summary: "fences=F stores=S covered=C/S", where a store counts as covered
# when a FENCE.VIEW.ASYNC.S occurs earlier in the same function (linear text order;
# a quick check, not a path analysis).
sass_summary() {
  awk '
    /Function :/ { fenced = 0 }
    /FENCE\.VIEW\.ASYNC\.S/ { fences++; fenced = 1 }
    /UTMASTG|UBLKCP/ { stores++; if (fenced) covered++ }
    END { printf "fences=%d stores=%d covered=%d/%d", fences, stores, covered, stores }' "$1"
}

rows=()
overall=0
for dir in "$EX_DIR"/*/; do
  name="$(basename "$dir")"
  if [ "$#" -gt 0 ] && [[ " $* " != *" $name "* ]]; then continue; fi
  for variant in orig fixed; do
    if [ "$variant" = orig ]; then src="$dir$name.cu"; else src="$dir$name.fixed.cu"; fi
    [ -f "$src" ] || continue
    tag="$name.$variant"
    bin="$LOG_DIR/$tag"
    echo "== $tag: building $src"
    if ! "$NVCC" "${NVCC_FLAGS[@]}" -o "$bin" "$src" >"$LOG_DIR/$tag.build.log" 2>&1; then
      echo "   BUILD FAILED (see $LOG_DIR/$tag.build.log)"
      rows+=("$name|$variant|BUILD FAILED|-|-")
      overall=1
      continue
    fi
    sass="-"
    if [ -n "$CUOBJDUMP" ]; then
      if "$CUOBJDUMP" -sass "$bin" >"$LOG_DIR/$tag.sass" 2>&1; then
        sass="$(sass_summary "$LOG_DIR/$tag.sass")"
      else
        sass="cuobjdump failed"
      fi
    fi
    echo "   SASS: $sass"
    args=()
    [ -n "$RUNS" ] && args=(--runs "$RUNS")
    echo "   running${RUNS:+ --runs $RUNS} (timeout ${TIMEOUT_S}s)"
    if [ "$HAVE_TIMEOUT" = 1 ]; then
      timeout --kill-after=10 "$TIMEOUT_S" "$bin" "${args[@]}" >"$LOG_DIR/$tag.run.log" 2>&1
    else
      "$bin" "${args[@]}" >"$LOG_DIR/$tag.run.log" 2>&1
    fi
    rc=$?
    if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
      result="TIMEOUT after ${TIMEOUT_S}s"
    else
      result="$(grep -E '^(PASS|FAIL|SKIP) ' "$LOG_DIR/$tag.run.log" | tail -n 1)"
      [ -z "$result" ] && result="$(tail -n 1 "$LOG_DIR/$tag.run.log")"
    fi
    echo "   $result (exit $rc)"
    rows+=("$name|$variant|$result|$rc|$sass")
    if [ "$variant" = fixed ] && [ "$rc" != 0 ]; then overall=1; fi
  done
done

{
  echo
  printf '%-22s %-6s %-5s %-40s %s\n' EXAMPLE VARIANT EXIT SASS RESULT
  for r in "${rows[@]}"; do
    IFS='|' read -r name variant result rc sass <<<"$r"
    printf '%-22s %-6s %-5s %-40s %s\n' "$name" "$variant" "$rc" "$sass" "$result"
  done
} | tee "$LOG_DIR/summary.txt"
exit "$overall"
