#!/bin/sh
# run_cupti_wheels.sh STEPSCOPE NVTX_PROG CC WORKDIR — the collector against PyPI's CUPTI
# wheels, the ones PyTorch's CUDA builds install (issue #29): nvidia-cuda-cupti 13.x
# (nvidia/cu13/lib/libcupti.so.13) and nvidia-cuda-cupti-cu12 (nvidia/cuda_cupti/lib/
# libcupti.so.12). $STEPSCOPE_CUPTI_WHEELS names a folder holding both .whl files (.ci/run
# fetches them with pip download); without them the test says "skipped" (77).
#   CUDA 13: the real collector loads the wheel's libcupti.so.13 when LD_LIBRARY_PATH names
#            it (doctor says which CUPTI it loaded) and record runs a program through it;
#   CUDA 12: stepscope is built for CUDA 13 only: a collector whose CUPTI is missing, with the
#            CUDA 12 wheel's folder on LD_LIBRARY_PATH, is refused naming that libcupti.so.12
#            as another CUDA version (a stand-in needing libcupti.so.99: this machine may
#            have libcupti.so.13 on the system's path, which the real collector would find).
set -u
BIN=$1 PROG=$2 CC=$3 W=$4
fail() { echo "FAIL: $*"; sed 's/^/  stderr: /' "$W/err" 2>/dev/null; exit 1; }
WH=${STEPSCOPE_CUPTI_WHEELS:-}
w13=$(ls "$WH"/nvidia_cuda_cupti-13*.whl 2>/dev/null | head -1)
w12=$(ls "$WH"/nvidia_cuda_cupti_cu12-*.whl 2>/dev/null | head -1)
if [ -z "$WH" ] || [ -z "$w13" ] || [ -z "$w12" ]; then
    echo "skipped: no CUPTI wheels in STEPSCOPE_CUPTI_WHEELS (.ci/run downloads them)"
    exit 77
fi
rm -rf "$W" && mkdir -p "$W/13" "$W/12" "$W/link" || exit 1
unzip -q "$w13" -d "$W/13" && unzip -q "$w12" -d "$W/12" || fail "cannot unpack the wheels"
lib13=$W/13/nvidia/cu13/lib lib12=$W/12/nvidia/cuda_cupti/lib
[ -f "$lib13/libcupti.so.13" ] && [ -f "$lib12/libcupti.so.12" ] ||
    fail "the wheels' layout changed: $(ls "$W"/13/nvidia "$W"/12/nvidia)"
unset CUDA_INJECTION64_PATH NVTX_INJECTION64_PATH STEPSCOPE_LIB

# CUDA 13: LD_LIBRARY_PATH comes before the collector's RUNPATH, so the wheel's CUPTI is the one
LD_LIBRARY_PATH=$lib13 "$BIN" doctor >"$W/d13.txt" 2>"$W/err"
grep -q "^pass  collector .* loads, with $lib13/libcupti.so.13\$" "$W/d13.txt" ||
    fail "CUDA 13 wheel, doctor: $(grep collector "$W/d13.txt")"
LD_LIBRARY_PATH=$lib13 "$BIN" record -q -o "$W/out" -- "$PROG" steps >/dev/null 2>"$W/err" ||
    fail "CUDA 13 wheel: record exit $?"
# --no-warmup: a slow first step on a loaded machine (CI runs the suite two at a time, under
# ASan too) would be taken for warm-up and read "9 of 10" (seen once in CI)
"$BIN" report --no-warmup "$W/out" >"$W/report.txt" 2>&1
grep -q '^  steps      10 of 10' "$W/report.txt" ||
    fail "CUDA 13 wheel: no 10 steps: $(grep -A1 '^  steps' "$W/report.txt")"

# CUDA 12: the wheel's libcupti.so.12 named as another CUDA version, the program not run
cd "$W" || exit 1
echo 'int cupti_stub(void) { return 0; }' >stub.c
echo 'int cupti_stub(void); int InitializeInjection(void) { return cupti_stub(); }' >coll.c
"$CC" -shared -fPIC -o link/libcupti.so.99 -Wl,-soname,libcupti.so.99 stub.c &&
    "$CC" -shared -fPIC -o libcoll.so coll.c -Llink -l:libcupti.so.99 || fail "the stand-in"
STEPSCOPE_LIB=$W/libcoll.so LD_LIBRARY_PATH=$lib12 "$BIN" record -o out12 -- touch ran \
    >/dev/null 2>err
rc=$?
[ $rc = 1 ] || fail "CUDA 12 wheel: record exit $rc, want 1"
[ ! -e ran ] || fail "CUDA 12 wheel: the program ran"
grep -q "found $lib12/libcupti.so.12: a CUPTI of another CUDA version" err ||
    fail "CUDA 12 wheel: the wheel's CUPTI not named"
STEPSCOPE_LIB=$W/libcoll.so LD_LIBRARY_PATH=$lib12 "$BIN" doctor >d12.txt 2>err
grep -q "^fail  collector .*found $lib12/libcupti.so.12: a CUPTI of another CUDA version" d12.txt ||
    fail "CUDA 12 wheel, doctor: $(grep collector d12.txt)"
echo "ok: CUDA 13's CUPTI wheel loads and records; CUDA 12's is named as another version"
