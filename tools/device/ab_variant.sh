#!/usr/bin/env bash
# A second libtessel.so that differs from the built one in one header, for A/B timings in one
# build: after gpu_check.sh (or any build in $BUILD_DIR), recompiles the library's objects whose
# source matches TU_REGEX against a copy of include/ with HEADER (a path under include/) replaced
# by REPLACEMENT, and links them with the build's other objects into $VARIANT_DIR/libtessel.so.
# tessel-prof and the tests find libtessel by RUNPATH, which LD_LIBRARY_PATH precedes:
#   git show main:include/tessel/gemm/epilogue.hpp > /tmp/old.hpp
#   tools/device/ab_variant.sh tessel/gemm/epilogue.hpp /tmp/old.hpp 'instance_sm80_kF16_kK_kK'
#   LD_LIBRARY_PATH=/tmp/tessel-variant /tmp/tessel-build/tools/prof/tessel-prof gemm ...
# Only the matching objects change: a header used by other objects is still the built one there.
# Run from the repository root (its include/ is the one the build used).
set -euo pipefail
(($# == 3)) || { echo "usage: $0 HEADER REPLACEMENT TU_REGEX" >&2; exit 2; }
header=$1 replacement=$2 regex=$3
B=${BUILD_DIR:-/tmp/tessel-build}
V=${VARIANT_DIR:-/tmp/tessel-variant}
[ -f "include/$header" ] || { echo "$0: no include/$header" >&2; exit 2; }
rm -rf "$V" && mkdir -p "$V/obj" && cp -r include "$V/include" && cp "$replacement" "$V/include/$header"

commands=$(ninja -C "$B" -t commands src/libtessel.so)
link=$(grep -E -- "-o src/libtessel.so( |$)" <<<"$commands")
compiles=() pids=()
while IFS= read -r c; do compiles+=("$c"); done < <(grep -E -- " -c [^ ]*($regex)[^ ]* -o " <<<"$commands" || true)
((${#compiles[@]})) || { echo "$0: no object of libtessel matches '$regex'" >&2; exit 2; }
for c in "${compiles[@]}"; do
  obj=$(sed -E 's/.* -o ([^ ]+)$/\1/' <<<"$c")
  variant_obj="$V/obj/$(basename "$obj")"
  c=${c//-I$PWD\/include/-I$V\/include}
  c=$(sed -E "s# -MD -MT [^ ]+ -MF [^ ]+##; s# -o [^ ]+\$# -o $variant_obj#" <<<"$c")
  echo "variant: $(basename "$obj")"
  (cd "$B" && eval "$c") &
  pids+=($!)
  link=${link// $obj / $variant_obj }
done
for pid in "${pids[@]}"; do wait "$pid" || { echo "$0: a variant object failed to compile" >&2; exit 1; }; done
link=${link//-o src\/libtessel.so/-o $V\/libtessel.so}
(cd "$B" && eval "$link")
echo "variant: $V/libtessel.so"
