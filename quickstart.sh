#!/usr/bin/env bash
# The README's two commands, from a fresh machine:
#   ./quickstart.sh demo   build libtessel, tessel-prof and tessel-layout (build/, kernels for
#                          this machine's GPU), then run the main job: tessel-prof's GEMM suite
#                          against cuBLAS (without a GPU: tessel-layout only, on seed 004's tile)
#   ./quickstart.sh test   build the test suite (build-test/, one GEMM tile configuration) and run
#                          it; then pip install the Python package into build-test/python-venv
#                          and run its tests
# Each first checks for what the build needs. On Debian or Ubuntu it installs the missing
# packages with apt-get (as root, or through sudo); elsewhere, or without the right to install,
# it names what is missing and stops. The CUDA toolkit is not installed here: without nvcc,
# only the header-only library, tessel-layout and the host tests are built.
set -euo pipefail
cd "$(dirname "$0")"

usage() { echo "usage: ./quickstart.sh demo|test" >&2; exit 2; }
(($# == 1)) || usage
case "$1" in
  demo) packages=(cmake ninja-build g++ libcli11-dev nlohmann-json3-dev) ;;
  test) packages=(cmake ninja-build g++ clang libgtest-dev libgmock-dev libcli11-dev nlohmann-json3-dev
                 python3-dev python3-venv) ;;
  *) usage ;;
esac

if command -v dpkg >/dev/null && command -v apt-get >/dev/null; then
  missing=()
  for p in "${packages[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  if ((${#missing[@]})); then
    if [ "$(id -u)" -eq 0 ]; then
      sudo=()
    elif command -v sudo >/dev/null; then
      sudo=(sudo)
    else
      echo "quickstart: missing Debian packages: ${missing[*]}" >&2
      echo "quickstart: as root, run: apt-get install -y ${missing[*]}" >&2
      exit 1
    fi
    echo "quickstart: installing ${missing[*]}"
    "${sudo[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq "${missing[@]}"
  fi
else
  for tool in cmake ninja c++; do
    command -v "$tool" >/dev/null || {
      echo "quickstart: '$tool' is missing. The build needs CMake >= 3.25, Ninja, a C++20 compiler," >&2
      echo "quickstart: CLI11 and nlohmann-json$([ "$1" = test ] && echo ", GoogleTest and clang (libFuzzer)")." >&2
      exit 1
    }
  done
fi

# nvcc where the CUDA toolkit puts it, if it is not on PATH yet.
command -v nvcc >/dev/null || [ ! -x /usr/local/cuda/bin/nvcc ] || export PATH=/usr/local/cuda/bin:$PATH
if command -v nvcc >/dev/null; then
  nvcc --version | tail -1
else
  echo "quickstart: no nvcc (CUDA toolkit): libtessel, tessel-prof and the GPU tests are not built"
fi

if [ "$1" = test ]; then
  cmake --workflow --preset test
  # The Python package, installed as a user installs it (pip install ., here lean: one tile
  # configuration, sm_80 only) into a virtual environment, and its tests (those that need a
  # GPU or torch skip, visibly, where there is none).
  if ! command -v nvcc >/dev/null; then
    echo "quickstart: no nvcc: the Python package (it needs libtessel) is neither built nor tested"
    exit
  fi
  venv=build-test/python-venv
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
  "$venv/bin/python" -m pip install -q --upgrade pip nanobind scikit-build-core pytest numpy
  TESSEL_GEMM_CONFIGS=lean TESSEL_CUDA_ARCHITECTURES=80 "$venv/bin/python" -m pip install -q --no-build-isolation .
  "$venv/bin/python" -m pytest python/tests -q -rs
  exit
fi
# The main job compiles the kernels for this machine's GPU only (the build takes half the
# time); without a GPU there is nothing to run them on, so it builds tessel-layout alone.
archs=()
if cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1) && [ -n "$cap" ]; then
  arch=${cap/./}
  [ "$arch" = 90 ] && arch=90a  # wgmma and TMA need the architecture-specific target
  archs=(-DCMAKE_CUDA_ARCHITECTURES="$arch")
  echo "quickstart: GPU of compute capability $cap: compiling the kernels for sm_$arch only"
else
  archs=(-DTESSEL_ENABLE_CUDA=OFF)
  echo "quickstart: no GPU here: building tessel-layout only (the demo shows the layout calculator)"
fi
cmake --preset demo "${archs[@]}"
cmake --build --preset demo
