#!/usr/bin/env bash
# On a GPU machine, after gpu_check.sh has built tessel-prof: Nsight Compute on one GEMM shape,
# tessel's kernel and cuBLAS's side by side (one launch each, no warm-up, no verification), with
# the numbers that say where a tensor-core GEMM's time goes: duration, SM clock, tensor pipe
# activity, L2 and DRAM throughput, shared-memory wavefronts, registers, shared memory, grid
# and cluster. The full report is written to $OUT/ncu-<shape>-<config>.txt.
#   SHAPE=4096x4096x4096 CONFIG=sm90_128x128x64_s5 tools/device/ncu_gemm.sh [extra tessel-prof args]
# CONV="tessel-prof conv2d options" profiles one conv layer instead, tessel's kernels and cuDNN's
# (one plan) side by side, in every mode below; the report names take the options' words:
#   CONV="--n 32 --h 14 --w 14 --c 256 --k 256 --r 3 --s 3 --pad 1 --mode dgrad" tools/device/ncu_gemm.sh
# DETAIL=1 writes Nsight Compute's own sections instead (speed of light, memory workload, warp
# state and scheduler statistics, occupancy, launch) to $OUT/ncu-detail-<shape>-<config>.txt,
# for where a kernel stalls, and prints its headline lines. SOURCE=1 writes the warp-stall
# samples per SASS instruction of tessel's kernel as CSV instead ($OUT/ncu-source-<shape>-
# <config>.csv: address, SASS, samples, instructions executed, samples per stall reason);
# summed between landmarks (the last HGMMA's WARPGROUP.DEPBAR.LE gsb0, 0x0 ends the mainloop,
# the producer's try-wait loops follow the epilogue) they say where the MMA warps spend a tile;
# tools/sass/ncu_source_summary.py, run on it here, prints the stall reasons, the busiest
# instructions and the copies, wgmmas and barrier waits with how often each ran.
# SOURCE_KERNEL (a regex, default gemm_kernel) picks another kernel, e.g. cuDNN's: xmma.
set -uo pipefail
OUT=${OUT:-$PWD/out}
B=${BUILD_DIR:-/tmp/tessel-build}
[[ -x $B/tools/prof/tessel-prof ]] || { echo "${0##*/}: no tessel-prof in $B (set BUILD_DIR to the build folder)" >&2; exit 1; }
SHAPE=${SHAPE:-4096x4096x4096}
CONFIG=${CONFIG:-auto}
if [[ -n ${CONV:-} ]]; then
  read -ra conv <<<"$CONV"
  args=(conv2d "${conv[@]}" --no-verify --warmup 0 --iterations 1 --repeats 1 --no-graph --cudnn-plans 1 "$@")
  SHAPE=conv$(tr -d ' -' <<<"$CONV")  # the report names: "--n 32 --h 14 ..." -> convn32h14...
else
  IFS=x read -r m n k <<<"$SHAPE"
  args=(gemm --m "$m" --n "$n" --k "$k" --no-verify --warmup 0 --iterations 1 --repeats 1 "$@")
fi
[[ $CONFIG != auto ]] && args+=(--config "$CONFIG")
metrics=gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active
metrics+=,lts__t_bytes.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum
metrics+=,dram__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum
metrics+=,launch__registers_per_thread,launch__shared_mem_per_block_dynamic,launch__grid_size,launch__block_size
metrics+=,launch__cluster_dim_x,launch__cluster_dim_y
kernels='regex:gemm|nvjet|cutlass|xmma|reduce|im2col|space_to_depth|depthwise'
mkdir -p "$OUT"
if [[ ${SOURCE:-0} == 1 ]]; then
  report="$OUT/ncu-source-$SHAPE-$CONFIG${SOURCE_KERNEL:+-$SOURCE_KERNEL}"
  ncu --kernel-name "regex:${SOURCE_KERNEL:-gemm_kernel}" --launch-count 1 --section SourceCounters --section WarpStateStats \
    -o "$report" -f "$B/tools/prof/tessel-prof" "${args[@]}" >"$report.log" 2>&1 || { tail -5 "$report.log"; exit 1; }
  ncu -i "$report.ncu-rep" --page source --csv --print-source sass >"$report.csv"
  ncu -i "$report.ncu-rep" --page details >"$report.txt"
  grep -E "Warp Cycles Per Issued" "$report.txt"
  python3 "$(dirname "$0")/../sass/ncu_source_summary.py" "$report.csv"
  exit 0
fi
if [[ ${DETAIL:-0} == 1 ]]; then
  report="$OUT/ncu-detail-$SHAPE-$CONFIG.txt"
  sections=(--section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats
            --section Occupancy --section LaunchStats)
  ncu --kernel-name "$kernels" "${sections[@]}" "$B/tools/prof/tessel-prof" "${args[@]}" >"$report" 2>&1
  grep -E "^  [A-Za-z_].*\(|Duration|DRAM Throughput|Memory Throughput|L2 Cache Throughput|Compute \(SM\)|Warp Cycles Per Issued|Issued Warp|No Eligible|Achieved Occupancy|Registers Per|Grid Size" "$report"
  exit 0
fi
report="$OUT/ncu-$SHAPE-$CONFIG.txt"
ncu --kernel-name "$kernels" --metrics "$metrics" "$B/tools/prof/tessel-prof" "${args[@]}" \
  >"$report" 2>&1
# One line per kernel: its name (shortened), then each metric's value.
awk '/^  [A-Za-z_].*\(/ { name = substr($1, 1, 70) } / (gpu__|sm__|lts__|dram__|l1tex__|launch__)/ {
       v[name] = v[name] " " $1 "=" $NF } END { for (k in v) print k ":" v[k] "\n" }' "$report"
