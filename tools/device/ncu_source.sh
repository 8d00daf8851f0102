#!/usr/bin/env bash
# On a GPU machine, after gpu_check.sh has built tessel-prof: Nsight Compute's warp-stall
# samples per SASS instruction for one launch of tessel's GEMM kernel on one shape, as CSV
# ($OUT/ncu-source-<shape>-<config>.csv: address, SASS, samples, instructions executed, and
# the samples per stall reason). Summing rows between landmarks (the last HGMMA's
# WARPGROUP.DEPBAR.LE gsb0, 0x0 ends the mainloop; the producer's try-wait loops follow the
# epilogue) says where the MMA warps spend a tile.
#   SHAPE=4096x4096x4096 CONFIG=sm90_128x256x64_s4 tools/device/ncu_source.sh [extra tessel-prof args]
set -uo pipefail
OUT=${OUT:-$PWD/out}
B=${BUILD_DIR:-/tmp/tessel-build}
SHAPE=${SHAPE:-4096x4096x4096}
CONFIG=${CONFIG:-auto}
IFS=x read -r m n k <<<"$SHAPE"
args=(gemm --m "$m" --n "$n" --k "$k" --no-verify --warmup 0 --iterations 1 --repeats 1 "$@")
[[ $CONFIG != auto ]] && args+=(--config "$CONFIG")
mkdir -p "$OUT"
report="$OUT/ncu-source-$SHAPE-$CONFIG"
ncu --kernel-name regex:gemm_kernel --launch-count 1 --section SourceCounters --section WarpStateStats \
  -o "$report" -f "$B/tools/prof/tessel-prof" "${args[@]}" >"$report.log" 2>&1 || { tail -5 "$report.log"; exit 1; }
ncu -i "$report.ncu-rep" --page source --csv --print-source sass >"$report.csv"
ncu -i "$report.ncu-rep" --page details >"$report.txt"
grep -E "Warp Cycles Per Issued" "$report.txt"
