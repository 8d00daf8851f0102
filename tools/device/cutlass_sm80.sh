#!/usr/bin/env bash
# On a GPU machine: builds tools/device/cutlass_sm80_bench.cu (CUTLASS 2.x's own sm80 GEMM
# kernels, the reference of issue 15) against CUTLASS's headers and runs it on the shapes given
# (MxNxK; default 2048^3 4096^3 8192^3), writing $OUT/cutlass_sm80.txt. CUTLASS is not a
# dependency of tessel and the lent machine has no network: carry its include directory, e.g.
#   git -C <a clone of github.com/NVIDIA/cutlass> archive HEAD include | tar -x -C .deps/cutlass
# (CUTLASS_INCLUDE, default .deps/cutlass/include). Time tessel's sm80 kernel in the same call:
#   TESSEL_DISABLE_SM90=1 $BUILD_DIR/tools/prof/tessel-prof gemm --m 4096 --n 4096 --k 4096 --out-dtype f16
# tessel-prof times sustained runs: pass --sustained here to time CUTLASS the same way, or
# --iterations 20 --repeats 5 to tessel-prof to time it in bursts as this bench does by default.
set -euo pipefail
OUT=${OUT:-$PWD/out}
INC=${CUTLASS_INCLUDE:-$PWD/.deps/cutlass/include}
ARCH=${ARCH:-90a}
BIN=${BIN:-/tmp/cutlass_sm80_bench}
mkdir -p "$OUT"
if [ ! -f "$INC/cutlass/gemm/device/gemm.h" ]; then
  echo "cutlass_sm80.sh: no CUTLASS headers under $INC (set CUTLASS_INCLUDE)" >&2
  exit 2
fi
nvcc -std=c++17 -O3 --expt-relaxed-constexpr -I"$INC" -gencode "arch=compute_$ARCH,code=sm_$ARCH" \
  tools/device/cutlass_sm80_bench.cu -o "$BIN"
"$BIN" "$@" | tee "$OUT/cutlass_sm80.txt"
