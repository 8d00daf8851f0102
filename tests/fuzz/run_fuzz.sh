#!/usr/bin/env bash
# Bounded libFuzzer run over one target:
#   run_fuzz.sh CLANGXX SOURCE_DIR WORK_DIR SECONDS TARGET [CUDA_INCLUDE_DIR]
#   TARGET expression  the calculator's expression parser and run-time algebra
#          validate    the argument validators and planners of gemm and conv2d (src/); needs
#                      CUDA's headers (CUDA_INCLUDE_DIR) but links no CUDA library
# Exits 77 (ctest: skipped) when CLANGXX is empty or missing, or validate has no CUDA headers;
# otherwise builds tests/fuzz/fuzz_TARGET.cpp with -fsanitize=fuzzer,address,undefined, seeds
# a corpus (tests/fuzz/corpus/ for the parser), and fuzzes for SECONDS. Any crash, leak,
# timeout, out-of-memory or sanitizer report makes it exit non-zero; the failing input is left
# in WORK_DIR/artifacts.
set -euo pipefail

usage="usage: run_fuzz.sh CLANGXX SOURCE_DIR WORK_DIR SECONDS TARGET [CUDA_INCLUDE_DIR]"
clangxx=${1:-}
source_dir=${2:?$usage}
work_dir=${3:?$usage}
seconds=${4:?$usage}
target=${5:?$usage}
cuda_include=${6:-}

if [[ -z "$clangxx" ]] || ! command -v "$clangxx" > /dev/null 2>&1; then
  echo "run_fuzz.sh: no clang++ ('$clangxx'); skipping the $target fuzz test"
  exit 77
fi

mkdir -p "$work_dir/corpus" "$work_dir/artifacts"
binary="$work_dir/fuzz_$target"
flags=(-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -O1 -g -std=c++20 -I "$source_dir/include")
case "$target" in
  expression)
    engine="$source_dir/tools/layout"
    sources=("$engine/runtime_layout.cpp" "$engine/runtime_int_tuple.cpp" "$engine/runtime_algebra.cpp"
             "$engine/runtime_composition.cpp" "$engine/runtime_complement.cpp" "$engine/runtime_divide.cpp"
             "$engine/runtime_product.cpp" "$engine/expression.cpp" "$engine/expression_functions.cpp")
    flags+=(-I "$engine")
    cp "$source_dir"/tests/fuzz/corpus/* "$work_dir/corpus/"
    max_len=512 ;;
  validate)
    if [[ -z "$cuda_include" || ! -f "$cuda_include/cuda_runtime_api.h" ]]; then
      echo "run_fuzz.sh: no CUDA headers ('$cuda_include'); skipping the validate fuzz test"
      exit 77
    fi
    src="$source_dir/src"
    # src/CMakeLists.txt's plan_sources: validation and planning, host code without CUDA calls
    sources=("$src/runtime/status.cpp" "$src/runtime/validate_gemm.cpp" "$src/gemm/gemm_plan.cpp"
             "$src/conv/conv2d_validate.cpp" "$src/conv/conv2d_plan.cpp" "$src/conv/conv_tma_maps.cpp"
             "$src/runtime/tma_map.cpp")
    flags+=(-I "$src" -isystem "$cuda_include")
    max_len=1024 ;;
  *) echo "run_fuzz.sh: unknown target '$target'"; exit 2 ;;
esac

echo "run_fuzz.sh: building $binary"
"$clangxx" "${flags[@]}" "${sources[@]}" "$source_dir/tests/fuzz/fuzz_$target.cpp" -o "$binary"

echo "run_fuzz.sh: fuzzing $target for ${seconds}s"
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export ASAN_OPTIONS=detect_leaks=1
"$binary" "$work_dir/corpus" -max_total_time="$seconds" -timeout=5 -rss_limit_mb=2048 \
  -max_len="$max_len" -artifact_prefix="$work_dir/artifacts/" -print_final_stats=1
