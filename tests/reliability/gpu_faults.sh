#!/usr/bin/env bash
# gpu_faults.sh [CASE...] — the fault matrix's rows for the CUPTI path, on the H200 machine.
#
#   bash tests/reliability/gpu_faults.sh            # from the repository root: every case
#   bash tests/reliability/gpu_faults.sh nsys kill  # some
#
# Uses the build in $BUILD (default build-gpu-rel/, built here when it lacks stepscope,
# libstepscope.so or rel_check), then runs tests/reliability/gpu_prog.py (torch on CUDA)
# once alone and once under `stepscope record` per case, and checks that its stdout and exit
# status are the same, and what the trace must show (rel_check, `stepscope info`):
#   kill        SIGKILL mid-run: exit 137, trace readable, last kernel <= 1 s before the kill
#   term        SIGTERM (Python's default: death): exit 143, trace complete (closed)
#   int         SIGINT to `record` (forwarded): KeyboardInterrupt handled, exit 5, trace closed
#   abort       os.abort(): exit 134, trace readable, <= 1 s of kernels lost
#   exit        os._exit(3): exit 3, trace readable, <= 1 s of kernels lost
#   fsize       RLIMIT_FSIZE 1 MiB: exit 0 (no SIGXFSZ), one stderr line, trace readable
#   memcap      --memory-cap 256K: exit 0, drops counted and shown by info and report
#   dataloader  DataLoader(num_workers=16): exit 0, 17 traces... (workers that touch no CUDA
#               and no NVTX write none: at least the main one), every trace readable
#   profiler    torch.profiler inside: it still sees CUDA kernels (same stdout), exit 0
#   nsys        nsys around record: same stdout and exit, nsys's report has kernel rows,
#               record leaves nsys's injection variables alone and says so in one line; our
#               trace is absent (nsys holds both variables) or marked with no kernel
#   nsys_cuda   the same with `nsys profile -t cuda` (nsys may leave NVTX to us)
# Prints PASS/FAIL per case; exits 1 if any failed. Results go to docs/reliability.md.
# Output under ${OUT:-/tmp/ss-gpu-faults}. Needs a python with torch on CUDA (PY=...) and, for
# the nsys cases, Nsight Systems ($NSYS, else nsys on PATH).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUTDIR=${OUT:-/tmp/ss-gpu-faults}
BUILD=${BUILD:-$ROOT/build-gpu-rel}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
PY=${PY:-/opt/torch/.venv/bin/python3}
PROG="$ROOT/tests/reliability/gpu_prog.py"
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}
mkdir -p "$OUTDIR"
if [ ! -x "$BUILD/stepscope" ] || [ ! -f "$BUILD/libstepscope.so" ] || [ ! -x "$BUILD/rel_check" ]; then
    cmake -S "$ROOT" -B "$BUILD" >"$OUTDIR/cmake.log" 2>&1 &&
        cmake --build "$BUILD" -j16 --target stepscope stepscope_collector rel_check >>"$OUTDIR/cmake.log" 2>&1 ||
        { tail -30 "$OUTDIR/cmake.log"; exit 1; }
fi
SS=$BUILD/stepscope CHECK=$BUILD/rel_check
FAILS=0

wait_file() { for _ in $(seq 600); do [ -s "$1" ] && return 0; sleep 0.1; done; return 1; }
fact() { grep -e "${2:-.}" "$W/facts" | head -1 | tr ' ' '\n' | sed -n "s/^$1=//p"; }

# plain/rec ARGS: the program alone / under record; stdout in plain.out / rec.out
plain() { "$PY" "$PROG" "$@" >"$W/plain.out" 2>"$W/plain.err"; plain_rc=$?; }
rec() {
    "$SS" record -o "$W/out" --no-report "${RECOPTS[@]}" -- "$PY" "$PROG" "$@" >"$W/rec.out" 2>"$W/rec.err"
    rec_rc=$?
    return $rec_rc # so that `wait` on a backgrounded rec gets it
}

check() { # check CASE EXPECTED_RC: returns 1 on the first failed expectation, printing it
    local c=$1 want=$2
    [ "$plain_rc" = "$want" ] || { echo "FAIL: $c: plain exit $plain_rc, expected $want"; return 1; }
    [ "$rec_rc" = "$plain_rc" ] || { echo "FAIL: $c: exit $rec_rc under record, $plain_rc alone"; return 1; }
    cmp -s "$W/plain.out" "$W/rec.out" || { echo "FAIL: $c: stdout differs: $(head -c 200 "$W/rec.out")"; return 1; }
    "$CHECK" "$W/out" >"$W/facts" || { echo "FAIL: $c: a trace cannot be opened"; return 1; }
    local t # not the caller's t (kill's fault time): bash scopes dynamically
    for t in "$W"/out/*.sstrace; do
        "$SS" info "$t" >"$W/info.txt" 2>&1 || { echo "FAIL: $c: info exit $?"; return 1; }
    done
    ! grep -q "bad_chunks=[1-9]\|malformed=[1-9]\|undefined_refs=[1-9]" "$W/facts" ||
        { echo "FAIL: $c: damaged trace"; return 1; }
    return 0
}

expect() { # expect WHAT COMMAND...: runs COMMAND; on failure prints "FAIL: case: WHAT"
    "${@:2}" || { echo "FAIL: $CASE: $1"; return 1; }
}

lost_ok() { # lost_ok CASE FAULT_UNIX_NS
    local last lost
    last=$(fact last_kernel_unix_ns)
    [ -n "$last" ] && [ "$last" -gt 0 ] || { echo "FAIL: $1: no kernel in the trace"; return 1; }
    lost=$((($2 - last) / 1000000))
    echo "  $1: last kernel ${lost} ms before the fault"
    [ "$lost" -le 1000 ] || { echo "FAIL: $1: ${lost} ms of kernels lost"; return 1; }
}

# The nsys case's checks (run_case nsys): nsys keeps the GPU, record says so, our trace is
# marked or absent. nsys puts its injection library in CUDA_INJECTION64_PATH, and with -t nvtx
# in NVTX_INJECTION64_PATH too (nsys-env.txt shows which): record leaves both to it.
nsys_checks() {
    [ "$plain_rc" = 0 ] && [ "$rec_rc" = 0 ] || { echo "FAIL: $CASE: exit $rec_rc under nsys+record, $plain_rc alone"; return 1; }
    cmp -s "$W/plain.out" "$W/rec.out" || { echo "FAIL: $CASE: stdout differs: $(head -c 200 "$W/rec.out")"; return 1; }
    # rows of the kernel summary (a number first), not its header nor "does not contain CUDA
    # kernel data"
    "$NSYS" stats --report cuda_gpu_kern_sum --format csv "$W/nsys.nsys-rep" >"$W/nsys-stats.txt" 2>&1
    local rows
    rows=$(grep -cE '^"?[0-9.]+"?,"?[0-9]+"?,"?[1-9][0-9]*"?,' "$W/nsys-stats.txt")
    [ "$rows" -gt 0 ] || { echo "FAIL: $CASE: its report has no kernels"; return 1; }
    echo "  $CASE: $rows kernel names in nsys's report; $(grep -c '^[A-Z_0-9]*=' "$W/nsys-env.txt") injection variables set by nsys"
    local notices
    notices=$(grep -c "^stepscope record: .*INJECTION64_PATH.* another tool" "$W/rec.err")
    [ "$notices" = 1 ] || { echo "FAIL: $CASE: $notices notice lines from record, expected 1"; return 1; }
    if grep -q "no stepscope trace will be written" "$W/rec.err"; then
        expect "a trace folder although both injections are nsys's" [ ! -e "$W/out" ] || return 1
        ! grep -q "traces in" "$W/rec.err" || { echo "FAIL: $CASE: the summary claims a trace"; return 1; }
    elif grep -q "^stepscope record: CUDA_INJECTION64_PATH names another tool" "$W/rec.err"; then
        nsys_marked
    else
        echo "FAIL: $CASE: CUDA_INJECTION64_PATH not left to nsys: $(head -1 "$W/rec.err")"
        return 1
    fi
}

# nsys kept CUDA only: our trace (loaded through NVTX) has NVTX and host data, no kernel, and
# the mark of GPU activity left to another tool.
nsys_marked() {
    if ! ls "$W"/out/*.sstrace >/dev/null 2>&1; then
        echo "  $CASE: no stepscope trace: the program made no NVTX call"
        return 0
    fi
    "$CHECK" "$W/out" >"$W/facts" || { echo "FAIL: $CASE: a trace cannot be opened"; return 1; }
    ! grep -q "bad_chunks=[1-9]\|malformed=[1-9]\|undefined_refs=[1-9]" "$W/facts" ||
        { echo "FAIL: $CASE: damaged trace"; return 1; }
    ! grep -q "kernels=[1-9]" "$W/facts" || { echo "FAIL: $CASE: kernels recorded beside nsys"; return 1; }
    local t
    for t in "$W"/out/*.sstrace; do
        "$SS" dump -t env,capture "$t" >"$W/marks.txt" 2>&1
        expect "$t: not marked" grep -q 'key="collector.foreign_cuda_injection"' "$W/marks.txt" &&
            expect "$t: no conflict capture" grep -q "state=off reason=conflict what=gpu$" "$W/marks.txt" ||
            return 1
    done
}

run_case() {
    local c=$1
    CASE=$c
    W=$OUTDIR/$c
    rm -rf "$W" && mkdir -p "$W"
    RECOPTS=()
    case $c in
    kill)
        rec loop 20 "$W/ready" &
        local rp=$!
        wait_file "$W/ready" || { echo "FAIL: kill: not ready"; return 1; }
        sleep 3
        kill -KILL "$(cat "$W/ready")"
        local t=$(date +%s%N)
        wait "$rp"
        rec_rc=$?
        plain_rc=137 && cp "$W/rec.out" "$W/plain.out" # no stdout to compare: killed
        check kill 137 && expect "a killed trace cannot be closed" [ "$(fact closed)" = 0 ] && lost_ok kill "$t"
        ;;
    term | int)
        local sig=TERM want=143
        [ "$c" = int ] && sig=INT want=5
        set -m
        "$PY" "$PROG" loop 20 "$W/ready.plain" >"$W/plain.out" 2>"$W/plain.err" &
        local pp=$!
        wait_file "$W/ready.plain" && sleep 1 && kill -$sig "$pp"
        wait "$pp"
        plain_rc=$?
        "$SS" record -o "$W/out" --no-report -- "$PY" "$PROG" loop 20 "$W/ready" \
            >"$W/rec.out" 2>"$W/rec.err" &
        local rp=$! # record itself: it forwards the signal
        wait_file "$W/ready" && sleep 1 && kill -$sig "$rp"
        wait "$rp"
        rec_rc=$?
        set +m
        check "$c" "$want" && expect "trace not closed" [ "$(fact closed)" = 1 ]
        ;;
    abort | exit)
        local want=134
        [ "$c" = exit ] && want=3
        plain "$c" "$W/t.plain"
        rec "$c" "$W/t"
        check "$c" "$want" && lost_ok "$c" "$(cat "$W/t")"
        ;;
    fsize)
        plain loop 5 "$W/ready.plain"
        mkdir -p "$W/out"
        prlimit --fsize=1048576 -- "$SS" record -o "$W/out" --no-report -- "$PY" "$PROG" loop 5 "$W/ready" \
            >"$W/rec.out" 2>"$W/rec.err"
        rec_rc=$?
        check fsize 0 && expect "no message about the failed write" grep -q "^stepscope: cannot write" "$W/rec.err"
        ;;
    memcap)
        RECOPTS=(--memory-cap 256K)
        plain loop 3 "$W/ready.plain"
        rec loop 3 "$W/ready"
        check memcap 0 || return 1
        "$SS" info "$W"/out/*.sstrace >"$W/info-all.txt" 2>&1
        "$SS" report "$W"/out/*.sstrace >"$W/report.txt" 2>&1
        expect "no drops counted" [ "$(fact dropped)" -gt 0 ] &&
            expect "info does not show the drops" grep -q "^  dropped  *[1-9]" "$W/info-all.txt" &&
            expect "report does not show the drops" grep -q "^  lost  *[1-9][0-9]* records\? dropped while recording" "$W/report.txt"
        ;;
    dataloader)
        plain dataloader
        rec dataloader
        check dataloader 0 &&
            expect "a trace not closed" [ "$(grep -c 'closed=1' "$W/facts")" = "$(ls "$W"/out/*.sstrace | wc -l)" ]
        ;;
    profiler)
        plain profiler
        rec profiler
        check profiler 0 && expect "torch.profiler saw no kernel" grep -qx "profiler saw CUDA kernels: yes" "$W/rec.out"
        ;;
    nsys | nsys_cuda)
        NSYS=${NSYS:-$(command -v nsys)}
        local trace=cuda,nvtx # nsys_cuda: NVTX may stay ours, so our library loads beside nsys's
        [ "$c" = nsys_cuda ] && trace=cuda
        # What nsys hands its program (kept with the logs): the injection variables that
        # record must leave to it.
        "$NSYS" profile -t $trace --sample=none --cpuctxsw=none -o "$W/nsys-env" --force-overwrite true \
            sh -c 'env | grep "INJECTION\|^LD_PRELOAD=" | sort' >"$W/nsys-env.txt" 2>&1
        plain loop 3 "$W/ready.plain"
        "$NSYS" profile -t $trace --sample=none --cpuctxsw=none -o "$W/nsys" --force-overwrite true \
            "$SS" record -o "$W/out" --no-report -- "$PY" "$PROG" loop 3 "$W/ready" >"$W/rec.all" 2>"$W/rec.err"
        rec_rc=$?
        grep -x "loop done" "$W/rec.all" >"$W/rec.out" # nsys adds its own lines to stdout
        nsys_checks
        ;;
    *)
        echo "FAIL: unknown case $c"
        return 1
        ;;
    esac
}

cases=("$@")
[ ${#cases[@]} -gt 0 ] || cases=(kill term int abort exit fsize memcap dataloader profiler nsys nsys_cuda)
for c in "${cases[@]}"; do
    if run_case "$c"; then echo "PASS: $c"; else FAILS=$((FAILS + 1)); echo "  (logs in $OUTDIR/$c)"; fi
done
echo "gpu_faults: ${#cases[@]} cases, $FAILS failed"
[ "$FAILS" = 0 ]
