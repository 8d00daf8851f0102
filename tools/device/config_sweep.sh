#!/usr/bin/env bash
# On a GPU machine, after gpu_check.sh has built tessel-prof: every configuration in CONFIGS on
# every shape in SHAPES, each row against cuBLAS in the same process (tessel-prof gemm --csv),
# then a table of tessel / cuBLAS speed per shape and configuration. "auto" is the planner's
# choice. EXTRA is passed to every tessel-prof call (e.g. "--out-dtype f16 --no-verify").
#   CONFIGS="auto sm90_128x256x64_s4" SHAPES="4096x4096x4096 8192x8192x8192" \
#     tools/device/config_sweep.sh
set -uo pipefail
OUT=${OUT:-$PWD/out}
B=${BUILD_DIR:-/tmp/tessel-build}
PROF="$B/tools/prof/tessel-prof"
[[ -x $PROF ]] || { echo "${0##*/}: no tessel-prof in $B (set BUILD_DIR to the build folder)" >&2; exit 1; }
CONFIGS=${CONFIGS:-auto}
SHAPES=${SHAPES:-4096x4096x4096}
mkdir -p "$OUT"
csv="$OUT/sweep.csv"
: >"$csv"
for shape in $SHAPES; do
  IFS=x read -r m n k <<<"$shape"
  for config in $CONFIGS; do
    args=(gemm --m "$m" --n "$n" --k "$k" --csv ${EXTRA:-})
    [[ $config != auto ]] && args+=(--config "$config")
    "$PROF" "${args[@]}" 2>>"$OUT/sweep.err" | tail -n +2 | sed "s/^/$config,/" >>"$csv"
  done
done
# The row as config (prepended), then tessel-prof's CSV columns: m n k (2-4), out (8), variant
# (14), tessel_us (18), cublas_us (20), ratio (22), status (26).
awk -F, '{ printf "%-36s %6sx%sx%s %-4s %-14s %9s us  cuBLAS %9s us  %6s  %s\n", $1, $2, $3, $4, $8, $14, $18, $20, $22, $26 }' "$csv"
