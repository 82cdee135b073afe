#!/bin/bash
# Builds train_cabi with a C compiler only (no C++ involved) against a torch installation.
#   build.sh TORCH_DIR OUT_DIR [cpu|cuda]
# TORCH_DIR is the torch package directory (the one holding lib/libtorch_cpu.so), e.g.
# .../site-packages/torch. "cuda" also links libtorch_cuda: --no-as-needed keeps it, or its
# CUDA kernels never register with the dispatcher. Needs nvtx3 headers (CUDA toolkit) for the
# stepscope markers: NVTX_INCLUDE (default /usr/local/cuda/include).
set -eu
if [ $# -lt 2 ]; then echo "usage: build.sh TORCH_DIR OUT_DIR [cpu|cuda]" >&2; exit 2; fi
torch=$1 out=$2 device=${3:-cpu}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
cc=${CC:-gcc}
nvtx=${NVTX_INCLUDE:-/usr/local/cuda/include}
[ -f "$torch/lib/libtorch_cpu.so" ] || { echo "build.sh: no $torch/lib/libtorch_cpu.so" >&2; exit 2; }
[ -f "$nvtx/nvtx3/nvToolsExt.h" ] || { echo "build.sh: no nvtx3 headers in $nvtx" >&2; exit 2; }
libs="-ltorch_cpu -lc10"
case $device in
  cpu) ;;
  cuda) libs="-ltorch_cuda $libs" ;;
  *) echo "build.sh: device must be cpu or cuda" >&2; exit 2 ;;
esac
mkdir -p "$out"
# shellcheck disable=SC2086
"$cc" -std=c11 -O2 -g -Wall -Wextra -Werror -pthread \
  -I"$here" -I"$root/include" -I"$nvtx" \
  -o "$out/train_cabi" "$here/train_cabi.c" \
  -L"$torch/lib" -Wl,-rpath,"$torch/lib" -Wl,--no-as-needed $libs -Wl,--as-needed -ldl -lm
echo "built $out/train_cabi ($device, torch at $torch)"
