#!/bin/bash
# Fetches the libraries of PyPI's torch wheel that the C-ABI workload (bench/workloads/c) links
# against, once, into a cache: libtorch_cpu.so, libc10.so and libgomp.so.1 — no CUDA wheels (the
# CPU path needs only libcudart/libcupti, which the CUDA toolkit provides). Prints the torch
# directory (holding lib/) on its last line.
#   get_torch_cabi.sh [--cxx] [CACHE_DIR]   (default $STEPSCOPE_CACHE or ~/.cache/stepscope)
# --cxx also keeps include/ and share/cmake/ (~62 MB: torch/torch.h and TorchConfig.cmake) for
# the C++ workload (bench/workloads/cxx), built against these CPU libraries by
# tests/workloads/test_train_cxx.sh. An existing cache without them is completed (one more
# download of the wheel).
# Needs python3 with pip and unzip. Download: one ~530 MB wheel; kept: ~455 MB of lib/.
set -euo pipefail
cxx=0
if [ "${1:-}" = "--cxx" ]; then cxx=1; shift; fi
version=${STEPSCOPE_TORCH_VERSION:-2.11.0}
cache=${1:-${STEPSCOPE_CACHE:-$HOME/.cache/stepscope}}
dest="$cache/torch-cabi-$version/torch"
libs=(libtorch_cpu.so libc10.so libgomp.so.1)
have_all() {
  for l in "${libs[@]}"; do [ -f "$dest/lib/$l" ] || return 1; done
  [ $cxx = 0 ] || { [ -f "$dest/include/torch/csrc/api/include/torch/torch.h" ] &&
                    [ -f "$dest/share/cmake/Torch/TorchConfig.cmake" ]; }
}
if ! have_all; then
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/get_torch_cabi.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  echo "downloading torch==$version (no dependencies) ..." >&2
  python3 -m pip download --quiet --no-cache-dir --no-deps --only-binary=:all: "torch==$version" -d "$tmp" >&2
  wheel=$(ls "$tmp"/torch-"$version"-*.whl)
  members=()
  for l in "${libs[@]}"; do members+=("torch/lib/$l"); done
  [ $cxx = 0 ] || members+=("torch/include/*" "torch/share/cmake/*")
  unzip -q -o "$wheel" "${members[@]}" -d "$tmp/x" >&2
  mkdir -p "$dest/lib"
  for l in "${libs[@]}"; do mv "$tmp/x/torch/lib/$l" "$dest/lib/$l"; done
  if [ $cxx = 1 ]; then
    rm -rf "$dest/include" "$dest/share"
    mv "$tmp/x/torch/include" "$dest/include"
    mkdir -p "$dest/share"
    mv "$tmp/x/torch/share/cmake" "$dest/share/cmake"
  fi
fi
echo "$dest"
