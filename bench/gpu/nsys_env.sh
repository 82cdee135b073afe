# Sourced on the GPU machine: makes Nsight Systems usable (libdw from .carry, see
# ../shared/gpu/nsys-libs.sh run on the development machine) and sets NSYS.
N=/opt/nvidia/nsight-compute/2025.3.1/host/target-linux-x64
H=/opt/nvidia/nsight-compute/2025.3.1/host/linux-desktop-glibc_2_11_3-x64
ROOT=${ROOT:-$(git rev-parse --show-toplevel 2>/dev/null || pwd)}
export LD_LIBRARY_PATH=$ROOT/.carry/nsys-libs/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
export PATH=$H:$PATH
export NSYS=$N/nsys
