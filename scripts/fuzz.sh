#!/usr/bin/env bash
# Builds the libFuzzer targets in fuzz/ (ASan + UBSan, clang++-22) and runs
# each for a bounded time from its seed corpus in fuzz/corpus/<target>/.
# The fuzzer works on a copy: the corpus in the repository is never written.
#
# Usage: scripts/fuzz.sh [-t SECONDS_PER_TARGET] [-o OUT_DIR] [TARGET...]
#   TARGET: PtxFuzzer, PtxModuleFuzzer (default: both)
#   OUT_DIR (default build/fuzz): binaries, the working corpus, and
#   crash-*/timeout-*/leak-* reproducers, which the run prints.
# Exit status: 0 nothing found, 1 a crash, hang, leak or sanitizer report,
# 2 the fuzzers could not be built.
# Reproduce a finding: OUT_DIR/TARGET OUT_DIR/artifacts/crash-...
set -euo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
SECONDS_PER_TARGET=30
OUT="$SRC/build/fuzz"
while getopts "t:o:" opt; do
  case $opt in
    t) SECONDS_PER_TARGET=$OPTARG ;;
    o) OUT=$OPTARG ;;
    *) echo "usage: $0 [-t SECONDS] [-o OUT_DIR] [TARGET...]" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
TARGETS=("$@")
((${#TARGETS[@]})) || TARGETS=(PtxFuzzer PtxModuleFuzzer)

CXX=${FUZZ_CXX:-clang++-22}
LLVM_CONFIG=${FUZZ_LLVM_CONFIG:-llvm-config-22}
for tool in "$CXX" "$LLVM_CONFIG"; do
  command -v "$tool" >/dev/null || { echo "fuzz: error: '$tool' not found" >&2; exit 2; }
done

# Only the parser sources: the build stays a few seconds.
declare -A SOURCES=(
  [PtxFuzzer]="lib/ptx/Ptx.cpp"
  [PtxModuleFuzzer]="lib/ptx/Ptx.cpp lib/ptx/PtxModule.cpp"
)
mkdir -p "$OUT/artifacts"
LLVM_LIBDIR=$("$LLVM_CONFIG" --libdir)
status=0
for t in "${TARGETS[@]}"; do
  [[ -n ${SOURCES[$t]+x} ]] || { echo "fuzz: error: unknown target '$t'" >&2; exit 2; }
  inputs=("fuzz/$t.cpp")
  for s in ${SOURCES[$t]}; do inputs+=("$s"); done
  bin="$OUT/$t"
  # Rebuilt when a source or header is newer than the binary.
  if [[ ! -x $bin ]] || [[ -n $(cd "$SRC" && find "${inputs[@]}" include/proxyfence lib/ptx -newer "$bin" | head -1) ]]; then
    echo "fuzz: building $t"
    # shellcheck disable=SC2046 # word splitting of llvm-config output is intended
    (cd "$SRC" && "$CXX" -g -O1 -fsanitize=fuzzer,address,undefined \
      -fno-sanitize-recover=undefined -Iinclude -Ilib \
      $("$LLVM_CONFIG" --cxxflags | sed 's/-I/-isystem /') "${inputs[@]}" \
      $("$LLVM_CONFIG" --ldflags --libs support) -Wl,-rpath,"$LLVM_LIBDIR" \
      -o "$bin") || { echo "fuzz: error: cannot build $t" >&2; exit 2; }
  fi
  work="$OUT/corpus/$t"
  rm -rf "$work" && mkdir -p "$work"
  cp "$SRC/fuzz/corpus/$t/"* "$work/"
  echo "fuzz: running $t for ${SECONDS_PER_TARGET}s from $(ls "$work" | wc -l) seeds"
  # One worker: CI has 2 cores. -timeout: a single input taking over 10 s is
  # a hang; -rss_limit_mb: runaway memory is a finding too.
  if ! "$bin" -max_total_time="$SECONDS_PER_TARGET" -timeout=10 \
      -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
      -artifact_prefix="$OUT/artifacts/$t-" "$work" >"$OUT/$t.log" 2>&1; then
    echo "fuzz: $t found a problem; last lines of $OUT/$t.log:" >&2
    tail -40 "$OUT/$t.log" >&2
    status=1
  else
    grep -E "^stat::number_of_executed_units|^#[0-9]+.*DONE" "$OUT/$t.log" | tail -2
  fi
done
exit $status
