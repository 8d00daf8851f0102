#!/usr/bin/env bash
# Bounded libFuzzer run over the expression parser and the run-time algebra.
#   run_fuzz.sh CLANGXX SOURCE_DIR WORK_DIR SECONDS
# Exits 77 (ctest: skipped) when CLANGXX is empty or missing; otherwise builds the engine and
# tests/fuzz/fuzz_expression.cpp with -fsanitize=fuzzer,address,undefined, seeds a corpus from
# tests/fuzz/corpus/, and fuzzes for SECONDS. Any crash, leak, timeout, out-of-memory or
# sanitizer report makes it exit non-zero; the failing input is left in WORK_DIR.
set -euo pipefail

clangxx=${1:-}
source_dir=${2:?usage: run_fuzz.sh CLANGXX SOURCE_DIR WORK_DIR SECONDS}
work_dir=${3:?usage: run_fuzz.sh CLANGXX SOURCE_DIR WORK_DIR SECONDS}
seconds=${4:?usage: run_fuzz.sh CLANGXX SOURCE_DIR WORK_DIR SECONDS}

if [[ -z "$clangxx" ]] || ! command -v "$clangxx" > /dev/null 2>&1; then
  echo "run_fuzz.sh: no clang++ ('$clangxx'); skipping the parser fuzz test"
  exit 77
fi

engine="$source_dir/tools/layout"
mkdir -p "$work_dir/corpus" "$work_dir/artifacts"
binary="$work_dir/fuzz_expression"

echo "run_fuzz.sh: building $binary"
"$clangxx" -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -O1 -g -std=c++20 \
  -I "$source_dir/include" -I "$engine" \
  "$engine/runtime_layout.cpp" "$engine/runtime_int_tuple.cpp" "$engine/runtime_algebra.cpp" \
  "$engine/runtime_composition.cpp" "$engine/runtime_complement.cpp" \
  "$engine/runtime_divide.cpp" "$engine/runtime_product.cpp" \
  "$engine/expression.cpp" "$engine/expression_functions.cpp" \
  "$source_dir/tests/fuzz/fuzz_expression.cpp" -o "$binary"

cp "$source_dir"/tests/fuzz/corpus/* "$work_dir/corpus/"

echo "run_fuzz.sh: fuzzing for ${seconds}s"
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export ASAN_OPTIONS=detect_leaks=1
"$binary" "$work_dir/corpus" -max_total_time="$seconds" -timeout=5 -rss_limit_mb=2048 \
  -max_len=512 -artifact_prefix="$work_dir/artifacts/" -print_final_stats=1
