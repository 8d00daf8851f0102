#!/usr/bin/env bash
# Carry a device machine's build to the next machine, so that a later call measures without
# rebuilding (a fresh machine builds tessel-prof and two test targets in 230-430 s; unpacking
# takes seconds).
#   pack BUILD_DIR DEST [executables...]   libtessel and the executables (default: tessel-prof
#       and every built tests/device/*_test) as DEST/bundle.tar.xz.aa, .ab, ...: xz parts of
#       15 MiB, under the device tool's 16 MiB a file; with their absolute paths, which the
#       executables' rpaths name
#   unpack DIR [ROOT]   the parts DIR/bundle.tar.xz.* back under ROOT (default /), at those paths
# Round trip (the device tool returns the parts; a folder that .git/info/exclude ignores carries
# them to the next call):
#   call 1:  gpu_check.sh ...; tools/device/build_bundle.sh pack /tmp/tessel-build "$OUT"
#   here:    mkdir -p .bin && cp <files_at>/bundle.tar.xz.* .bin/    (carry: [".bin"])
#   call 2:  tools/device/build_bundle.sh unpack .bin && /tmp/tessel-build/tools/prof/tessel-prof ...
# The executables are the ones of call 1's tree: a change to the sources needs a new build.
# The device tool returns at most 8 files from $OUT: the parts (2-3 for the default set) count.
set -euo pipefail
case "${1:-}" in
  pack)
    build=$(cd "$2" && pwd) dest=$3
    shift 3
    files=()
    for f in "$@"; do files+=("$(realpath "$f")"); done
    if ((${#files[@]} == 0)); then
      files=("$build/tools/prof/tessel-prof")
      for t in "$build"/tests/device/*_test; do [[ -x $t ]] && files+=("$t"); done
    fi
    files+=("$build"/src/libtessel.so*)
    mkdir -p "$dest"
    tar -cf - -C / "${files[@]#/}" | xz -T0 -3 | split -b 15M - "$dest/bundle.tar.xz."
    ls -l "$dest"/bundle.tar.xz.* ;;
  unpack)
    root=${3:-/}
    mkdir -p "$root"
    cat "$2"/bundle.tar.xz.* | xz -d | tar -xf - -C "$root" ;;
  *)
    echo "usage: ${0##*/} pack BUILD_DIR DEST [executables...] | unpack DIR [ROOT]" >&2
    exit 2 ;;
esac
