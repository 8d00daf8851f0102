#!/usr/bin/env bash
# On a GPU machine: configure, build everything, then run the requested steps, writing logs
# under $OUT (default ./out). Steps: test (ctest -L gpu), sanitize (compute-sanitizer memcheck
# and racecheck on a subset), random (the long randomized API run), python (pip install the
# package, kernels for ARCHS, and run pytest), prof (tessel-prof's default suite, CSV), or a
# tessel-prof command line after "prof-args". Example (the lent H100, googletest and the CLI11 /
# nlohmann-json packages carried in .deps/):
#   tools/device/gpu_check.sh test sanitize prof
# To measure the same build in later calls without rebuilding, bring its executables back with
# tools/device/build_bundle.sh (pack BUILD_DIR "$OUT" here, unpack in the next call).
set -uo pipefail
OUT=${OUT:-$PWD/out}
B=${BUILD_DIR:-/tmp/tessel-build}
mkdir -p "$OUT"
# The lent machine sends back at most 8 files from $OUT: with more (the sanitize step writes
# 12 logs), every log goes back as one tarball, $OUT/gpu-check-logs.tgz.
pack_logs() {
  local files=("$OUT"/*)
  ((${#files[@]} > 8)) || return 0
  tar -czf /tmp/gpu-check-logs.tgz -C "$OUT" . && rm -rf "${OUT:?}"/* && mv /tmp/gpu-check-logs.tgz "$OUT/"
}
trap pack_logs EXIT
cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="${ARCHS:-90a}" \
  -DTESSEL_GTEST_SOURCE_DIR="$PWD/.deps/googletest" -DCMAKE_PREFIX_PATH="$PWD/.deps/prefix" \
  ${CMAKE_ARGS:-} >"$OUT/configure.log" 2>&1 || { tail -30 "$OUT/configure.log"; exit 1; }
# Keep going past a failing target: the other targets' tests still run.
if ! cmake --build "$B" -j"$(nproc)" -- -k 0 >"$OUT/build.log" 2>&1; then
  echo "BUILD FAILED (some targets):"
  grep -E "error|FAILED" "$OUT/build.log" | head -30
fi
status=0
while (($#)); do
  case "$1" in
    test)
      ctest --test-dir "$B" -L gpu -j2 --output-on-failure >"$OUT/ctest-gpu.log" 2>&1 || status=1
      tail -25 "$OUT/ctest-gpu.log" ;;
    sanitize)
      for tool in memcheck racecheck; do
        compute-sanitizer --tool $tool --error-exitcode 9 "$B/tests/device/gemm_api_device_test" \
          --gtest_filter='GemmApi.AlphaBetaBiasRelu:GemmApi.DeepKIsSplitAndSummed:GemmApi.OddKTakesTheNarrowPath:GemmApi.NarrowTileLoadsTheWidestVectorsTheOperandsAllow:GemmApi.EveryConfigurationRunsANarrowProblem:GemmApi.StridedBatches:GemmApi.UnalignedLeadingDimensionsAndPointers:AllLayoutsAndTypes/GemmCombination.InteriorAndEdgeProblems/A_col_B_row_bf16_to_f16:Sm90/GemmSm90Config.EdgeSizes/*:Sm90/GemmSm90Config.EpilogueAndBatches/*:Sm90/GemmSm90Config.StreamKShapes/*:Sm90/GemmSm90Config.StagesOperandsWithoutSixteenByteRows/*' \
          >"$OUT/sanitize-$tool.log" 2>&1 || status=1
        tail -4 "$OUT/sanitize-$tool.log"
        compute-sanitizer --tool $tool --error-exitcode 9 "$B/tests/device/gemm_sm90_device_test" \
          --gtest_filter='GemmSm90.MnMajorBoth:GemmSm90.EdgesPrimes:GemmSm90.NarrowTileN64:GemmSm90.ShortTileM64:GemmSm90.SplitK' \
          >"$OUT/sanitize-sm90-$tool.log" 2>&1 || status=1
        tail -4 "$OUT/sanitize-sm90-$tool.log"
        compute-sanitizer --tool $tool --error-exitcode 9 "$B/tests/device/conv2d_device_test" \
          --gtest_filter='Conv2dFprop.StrideDilationAndTrueConvolution:Conv2dFprop.StemSevenBySevenStrideTwoWithThreeChannels:Conv2dFprop.GroupedAndDepthwise:Conv2dFprop.EpilogueAndTypes:Conv2dFprop.FewTilesAndDeepReductionAreSplit:Conv2dFprop.TmaKernel*' \
          >"$OUT/sanitize-conv-$tool.log" 2>&1 || status=1
        tail -4 "$OUT/sanitize-conv-$tool.log"
        compute-sanitizer --tool $tool --error-exitcode 9 "$B/tests/device/conv2d_backward_device_test" \
          --gtest_filter='Conv2dDgrad.StrideTwo:Conv2dDgrad.OddChannelsAndFilters:Conv2dDgrad.GroupedAndDepthwise:Conv2dDgrad.FewTilesAndDeepReductionAreSplit:Conv2dDgrad.StemSevenBySevenStrideTwoWithThreeChannels:Conv2dWgrad.LongReductionIsSplitAndDeterministic:Conv2dWgrad.StemSevenBySevenStrideTwoWithThreeChannels:Conv2dDgrad.TmaKernel*:Conv2dWgrad.TmaKernel*:Conv2dWgrad.ManyFiltersRunAsAGemmOverAnIm2colCopy:Conv2dWgrad.GroupsInLessThanAWaveAreSplit' \
          >"$OUT/sanitize-conv-backward-$tool.log" 2>&1 || status=1
        tail -4 "$OUT/sanitize-conv-backward-$tool.log"
        compute-sanitizer --tool $tool --error-exitcode 9 "$B/tests/device/pad_rows_device_test" \
          >"$OUT/sanitize-pad-rows-$tool.log" 2>&1 || status=1
        tail -4 "$OUT/sanitize-pad-rows-$tool.log"
        TESSEL_RANDOM_PROBLEMS=30 compute-sanitizer --tool $tool --error-exitcode 9 \
          "$B/tests/device/api_random_device_test" >"$OUT/sanitize-random-$tool.log" 2>&1 || status=1
        tail -4 "$OUT/sanitize-random-$tool.log"
      done ;;
    random)
      # The long randomized run of the public API (tests/device/api_random_device_test.cpp):
      # 5000 problems per entry point, 20000 in all, on the default kernels.
      TESSEL_RANDOM_PROBLEMS=${RANDOM_PROBLEMS:-5000} "$B/tests/device/api_random_device_test" \
        >"$OUT/random-long.log" 2>&1 || status=1
      grep -E "seed|OK|FAILED|PASSED" "$OUT/random-long.log" | tail -12 ;;
    python)
      TESSEL_CUDA_ARCHITECTURES="${ARCHS:-90a}" python -m pip install --no-build-isolation --no-deps . \
        >"$OUT/pip.log" 2>&1 || { status=1; tail -20 "$OUT/pip.log"; }
      python -m pytest python/tests -q -rs -p no:logging >"$OUT/pytest.log" 2>&1 || status=1
      tail -5 "$OUT/pytest.log" ;;
    prof)
      "$B/tools/prof/tessel-prof" gemm --csv >"$OUT/prof-suite.csv" 2>"$OUT/prof-suite.err" || status=1
      cat "$OUT/prof-suite.csv"; tail -5 "$OUT/prof-suite.err" ;;
    prof-args)
      shift
      "$B/tools/prof/tessel-prof" "$@" 2>&1 | tee "$OUT/prof-args.log" || status=1
      break ;;
    *) echo "unknown step $1"; exit 2 ;;
  esac
  shift
done
exit $status
