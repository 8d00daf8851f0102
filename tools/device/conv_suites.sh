#!/usr/bin/env bash
# On a GPU machine, after a build (gpu_check.sh, or BUILD_DIR with tessel-prof built): the conv
# suites against cuDNN in every direction, one CSV under $OUT, and per suite and direction the
# geometric mean of tessel / cuDNN speed over the grouped and depthwise layers and over the
# others; ROWS=1 also prints every layer (its shape, tessel and cuDNN us, the ratio), which
# survives where the device returns no files. BASELINE=path/to/conv-suites.csv (an earlier
# run's, e.g. of the same build under a switch) also prints the layers whose tessel time moved
# by more than MOVED percent (default 4) against it. Example (the one used for
# docs/PERFORMANCE.md, 2026-11-25):
#   SUITES="resnext50 mobilenetv2 convnext-t" tools/device/conv_suites.sh
# and an A/B of a switch:
#   OUT=/tmp/off TESSEL_DISABLE_X=1 tools/device/conv_suites.sh
#   OUT=/tmp/on BASELINE=/tmp/off/conv-suites.csv tools/device/conv_suites.sh
set -uo pipefail
OUT=${OUT:-$PWD/out}
B=${BUILD_DIR:-/tmp/tessel-build}
[[ -x $B/tools/prof/tessel-prof ]] || { echo "${0##*/}: no tessel-prof in $B (set BUILD_DIR to the build folder)" >&2; exit 1; }
# Before the suites run, not after: BASELINE=$OUT/... beside OUT=... on one command line names
# the new OUT's file, which does not exist yet.
[[ -z ${BASELINE:-} || -f $BASELINE ]] || { echo "${0##*/}: no BASELINE file $BASELINE" >&2; exit 1; }
mkdir -p "$OUT"
csv="$OUT/conv-suites.csv"
: >"$csv"
for suite in ${SUITES:-resnext50 mobilenetv2 convnext-t}; do
  for mode in ${MODES:-fprop dgrad wgrad}; do
    "$B/tools/prof/tessel-prof" conv2d --suite "$suite" --n "${N:-32}" --mode "$mode" --cudnn-plans 3 \
      --iterations 3 --repeats 3 --csv 2>&1 | grep -E "^[0-9]+," | sed "s/^/$suite,/" >>"$csv"
  done
done
python3 - "$csv" "${ROWS:-0}" "${BASELINE:-}" "${MOVED:-4}" <<'PY'
import csv, math, sys
cols = ("suite,n,h,w,c,k,r,s,pad_h,pad_w,stride_h,stride_w,dilation_h,dilation_w,groups,mode,pass,"
        "dtype,out,alpha,beta,bias,activation,copies,cudnn_algo,tessel_us,tessel_tflops,cudnn_us,"
        "cudnn_tflops,cudnn_legacy_us,cudnn_graph_us,ratio,max_err,tolerance,cudnn_err,status,message").split(",")
def read(path):
    return [dict(zip(cols, r)) for r in csv.reader(open(path)) if len(r) >= len(cols) - 1]
rows = read(sys.argv[1])
def geomean(rs):
    xs = [float(r["ratio"]) for r in rs if r["status"] == "PASS"]
    return "%.3f over %d" % (math.exp(sum(map(math.log, xs)) / len(xs)), len(xs)) if xs else "-"
if sys.argv[2] == "1":
    for r in rows:
        print("%-12s %-6s %sx%sx%s->%s %sx%s s%s g%s  %s us  cuDNN %s us  %s %s" % (
            r["suite"], r["pass"], r["h"], r["w"], r["c"], r["k"], r["r"], r["s"], r["stride_h"],
            r["groups"], r["tessel_us"], r["cudnn_us"], r["ratio"], r["status"]))
for key in sorted({(r["suite"], r["pass"]) for r in rows}):
    these = [r for r in rows if (r["suite"], r["pass"]) == key]
    grouped = [r for r in these if int(r["groups"]) > 1]
    print("%-12s %-6s grouped/depthwise %-14s others %-14s not PASS: %d" % (
        key[0], key[1], geomean(grouped), geomean([r for r in these if int(r["groups"]) == 1]),
        sum(r["status"] != "PASS" for r in these)))
if sys.argv[3]:
    key = lambda r: tuple(r[c] for c in cols[:cols.index("activation") + 1])
    before = {key(r): r for r in read(sys.argv[3]) if r["status"] == "PASS"}
    for r in rows:
        b = before.get(key(r))
        if r["status"] != "PASS" or b is None:
            continue
        now, then = float(r["tessel_us"]), float(b["tessel_us"])
        if abs(now / then - 1) * 100 > float(sys.argv[4]):
            print("moved %-12s n%s %-6s %sx%sx%s->%s %sx%s s%s g%s  %s -> %s us  ratio %s -> %s" % (
                r["suite"], r["n"], r["pass"], r["h"], r["w"], r["c"], r["k"], r["r"], r["s"],
                r["stride_h"], r["groups"], b["tessel_us"], r["tessel_us"], b["ratio"], r["ratio"]))
PY
