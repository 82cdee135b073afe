#!/bin/bash
# Builds train_cxx (libtorch's C++ API) against a torch installation.
#   build.sh TORCH_DIR OUT_DIR [auto|cmake|direct] [cpu|cuda]     -> OUT_DIR/train_cxx
# TORCH_DIR is the torch package directory (.../site-packages/torch, holding include/ and lib/).
#   cmake   CMake with find_package(Torch) (CMakeLists.txt here), as users of libtorch build.
#           CMAKE_PREFIX_PATH gets TORCH_DIR itself first: TorchConfig.cmake's find_library
#           calls would otherwise prefer a system libtorch (Debian's python3-torch has one).
#   direct  g++ alone: the include folders, -ltorch_cpu -lc10 (cuda: libtorch_cuda and
#           libc10_cuda, kept by --no-as-needed or CUDA kernels never register). For a torch
#           folder with only the CPU libraries (tests/workloads/get_torch_cabi.sh --cxx).
#   auto    cmake when TORCH_DIR has share/cmake/Torch and lib/libtorch.so, else direct; and
#           direct when the CMake configure step fails (said on stderr).
# The device (cpu|cuda, default: cuda when lib/libtorch_cuda.so exists) only matters for
# direct. NVTX_INCLUDE (default /usr/local/cuda/include) must hold nvtx3/ for the markers.
set -eu
if [ $# -lt 2 ]; then echo "usage: build.sh TORCH_DIR OUT_DIR [auto|cmake|direct] [cpu|cuda]" >&2; exit 2; fi
torch=$(cd "$1" && pwd) out=$2 how=${3:-auto}
device=${4:-$([ -f "$torch/lib/libtorch_cuda.so" ] && echo cuda || echo cpu)}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
nvtx=${NVTX_INCLUDE:-/usr/local/cuda/include}
[ -f "$torch/include/torch/csrc/api/include/torch/torch.h" ] ||
  { echo "build.sh: no torch/torch.h under $torch/include (C++ headers not installed)" >&2; exit 2; }
[ -f "$nvtx/nvtx3/nvToolsExt.h" ] || { echo "build.sh: no nvtx3 headers in $nvtx" >&2; exit 2; }
mkdir -p "$out"

build_cmake() {
  cmake -S "$here" -B "$out/cmake" -DCMAKE_BUILD_TYPE=Release \
    "-DCMAKE_PREFIX_PATH=$torch;$torch/share/cmake" "-DNVTX_INCLUDE=$nvtx" >"$out/cmake.log" 2>&1 ||
    { echo "build.sh: CMake configure failed (see $out/cmake.log)" >&2; return 1; }
  cmake --build "$out/cmake" -j "${JOBS:-2}" >>"$out/cmake.log" 2>&1 ||
    { tail -n 30 "$out/cmake.log" >&2; echo "build.sh: CMake build failed" >&2; exit 1; }
  cp "$out/cmake/train_cxx" "$out/train_cxx"
  echo "built $out/train_cxx (cmake, torch at $torch)"
}

build_direct() {
  local libs werror=""
  # No -D_GLIBCXX_USE_CXX11_ABI: torch >= 2.9 is built with the compiler's default (new) ABI.
  # -isystem: warnings of torch's own headers are not ours; WERROR=1 makes ours errors.
  [ "${WERROR:-0}" = 1 ] && werror=-Werror
  libs="-ltorch_cpu -lc10"
  [ "$device" = cuda ] && libs="-ltorch_cuda -lc10_cuda $libs"
  # shellcheck disable=SC2086
  "${CXX:-g++}" -std=c++17 -O2 -g -Wall -Wextra $werror -pthread \
    -I"$root/include" -I"$nvtx" -isystem "$torch/include" \
    -isystem "$torch/include/torch/csrc/api/include" \
    -o "$out/train_cxx" "$here/train_cxx.cpp" \
    -L"$torch/lib" -Wl,-rpath,"$torch/lib" -Wl,--no-as-needed $libs -Wl,--as-needed -ldl
  echo "built $out/train_cxx (direct g++, $device, torch at $torch)"
}

have_cmake_config() {
  command -v cmake >/dev/null && [ -f "$torch/share/cmake/Torch/TorchConfig.cmake" ] &&
    [ -f "$torch/lib/libtorch.so" ]
}

case $how in
  cmake) build_cmake || exit 1 ;;
  direct) build_direct ;;
  auto) if have_cmake_config; then build_cmake || { echo "build.sh: falling back to direct g++" >&2; build_direct; }
        else build_direct; fi ;;
  *) echo "build.sh: the third argument must be auto, cmake or direct" >&2; exit 2 ;;
esac
