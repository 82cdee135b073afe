#!/bin/sh
# run_nodriver_test.sh CASE STEPSCOPE NODRIVER_PROG NVTX_PROG FAKE_CUDA_DIR WORKDIR
# `record` where CUDA cannot start (issue #41): the program's CUDA calls fail, it succeeds on
# the CPU, and record must say why nothing of the GPU was recorded and exit 3 — not "the
# program made no CUDA call" and 0.
#   none       no driver at all (this machine's state: CUPTI present, no driver; skipped
#              where a libcuda.so.1 loads): no trace; -q says it too; a failed program's
#              status is kept
#   none_nvtx  no driver, the program marks NVTX (a trace without CUDA, runtime loaded); a
#              program that never loads CUDA (nvtx_prog) is not blamed
#   old        a driver for CUDA 12.4 (stand-in libcuda.so.1)
#   noinit     a driver whose cuInit fails with CUDA_ERROR_NO_DEVICE (stand-in)
#   ok         a driver for CUDA 13 whose cuInit succeeds (stand-in): no cause, exit 0
set -u
CASE=$1 BIN=$2 PROG=$3 NVTX=$4 FAKE=$5 W=$6
rm -rf "$W" && mkdir -p "$W" && cd "$W" || exit 1
fail() { echo "FAIL [$CASE]: $*"; sed 's/^/  stderr: /' err 2>/dev/null; exit 1; }
said() { grep -q -- "$1" err || fail "stderr lacks '$1'"; }
not_said() { ! grep -q -- "$1" err || fail "stderr has '$1'"; }
rec() { "$BIN" record "$@" >out 2>err; rc=$?; }
expect_rc() { [ "$rc" = "$1" ] || fail "exit $rc, want $1"; }
driver_here() { python3 -c 'import ctypes; ctypes.CDLL("libcuda.so.1")' 2>/dev/null; }

case $CASE in
none)
    driver_here && { echo "skipped: a libcuda.so.1 loads here (this case needs a machine without a driver)"; exit 77; }
    rec -o o1 -- "$PROG"
    expect_rc 3
    grep -q '^cudaGetDeviceCount: 35$' out || fail "the program's CUDA call did not fail with 35: $(cat out)"
    said 'no trace: the program made no NVTX call, and no CUDA call can start here: no NVIDIA driver (libcuda.so.1 not found'
    said '^stepscope record: the recording failed: CUDA cannot start here: no NVIDIA driver .*cudaErrorInsufficientDriver, 35; GPU activity was not recorded, the program itself succeeded$'
    not_said 'made no CUDA or NVTX call'
    rec -q -o o2 -- "$PROG"
    expect_rc 3
    [ "$(wc -l <err)" = 1 ] || fail "-q: not one line"
    said 'no NVIDIA driver'
    rec -o o3 -- sh -c "'$PROG'; exit 5"
    expect_rc 5 # the program's own failure wins; the cause is still said
    said 'no CUDA call can start here: no NVIDIA driver'
    ;;
none_nvtx)
    driver_here && { echo "skipped: a libcuda.so.1 loads here (this case needs a machine without a driver)"; exit 77; }
    rec -o o1 -- "$PROG" nvtx
    expect_rc 3
    ls o1/*.sstrace >/dev/null 2>&1 || fail "no NVTX trace"
    said 'no GPU activity: the program loaded the CUDA runtime, but CUDA cannot start here: no NVIDIA driver'
    said 'the recording failed: CUDA cannot start here'
    rec -o o2 --no-report -- "$NVTX" steps
    expect_rc 0 # never loaded CUDA: an NVTX-only program is recorded as before
    not_said 'CUDA cannot start'
    ;;
old)
    LD_LIBRARY_PATH=$FAKE FAKE_CUDA_VERSION=12040 rec -o o1 -- "$PROG"
    expect_rc 3
    said 'CUDA cannot start here: the NVIDIA driver supports CUDA 12.4, older than the CUDA 13 .*(driver R580 or newer)'
    ;;
noinit)
    LD_LIBRARY_PATH=$FAKE FAKE_CUINIT=100 rec -o o1 -- "$PROG"
    expect_rc 3
    said 'CUDA cannot start here: the NVIDIA driver cannot start CUDA (cuInit: CUDA_ERROR_NO_DEVICE)'
    ;;
ok)
    LD_LIBRARY_PATH=$FAKE rec -o o1 -- "$PROG"
    expect_rc 0
    said 'no trace: the program made no CUDA or NVTX call'
    not_said 'cannot start'
    ;;
*) fail "unknown case" ;;
esac
echo "ok [$CASE]"
