#!/bin/sh
# run_record_test.sh CASE STEPSCOPE NVTX_PROG CHECK_TRACE WORKDIR
# One `stepscope record` scenario end to end (see tests/collect/CMakeLists.txt). Exits 0 when
# the exit status, messages and the traces (read back by check_trace) are as expected.
set -u
CASE=$1 BIN=$2 PROG=$3 CHECK=$4 W=$5
rm -rf "$W" && mkdir -p "$W" || exit 1
OUT="$W/out"

fail() { echo "FAIL [$CASE]: $*"; sed 's/^/  stderr: /' "$W/err" 2>/dev/null; exit 1; }
expect_rc() { [ "$1" = "$2" ] || fail "exit status $1, expected $2"; }
# A run with no NVTX call writes no trace; where CUDA cannot start (no driver: issue #41) record
# cannot tell whether the program tried, says why and exits 3 instead of the program's 0.
expect_ok_or_nodriver() {
    [ "$1" = 0 ] || { [ "$1" = 3 ] && grep -q 'CUDA cannot start here' "$W/err"; } ||
        fail "exit status $1, expected 0 (or 3 where CUDA cannot start)"
}
expect_err() { grep -q "$1" "$W/err" || fail "stderr lacks '$1'"; }

# watched LIMIT CMD...: a hang prints every process's backtraces (watch.sh)
. "$(dirname "$0")/watch.sh"

case $CASE in
launchers)
    # Several processes of one job on this machine, as launchers start them (issue #44): the
    # traces are named by host, pid and the launcher's rank (torchrun's RANK, else srun's
    # SLURM_PROCID), a torchrun restart apart from the first attempt, and the PROCESS records
    # say the rank and world size.
    # srun without torchrun; torchrun ranks 0 and 1 at once; a torchrun restart (`steps`: no
    # fork, which ThreadSanitizer's run of these cases cannot follow)
    env -u RANK -u WORLD_SIZE SLURM_PROCID=5 SLURM_NTASKS=8 SLURM_LOCALID=1 \
        "$BIN" record -o "$OUT" -- "$PROG" steps >/dev/null 2>"$W/err"
    expect_ok_or_nodriver $?
    RANK=0 WORLD_SIZE=2 "$BIN" record -o "$OUT" -- "$PROG" steps >/dev/null 2>"$W/err0" &
    p0=$!
    RANK=1 WORLD_SIZE=2 "$BIN" record -o "$OUT" -- "$PROG" steps >/dev/null 2>"$W/err1"
    r1=$?
    wait $p0
    r0=$?
    cp "$W/err0" "$W/err" && expect_ok_or_nodriver $r0
    cp "$W/err1" "$W/err" && expect_ok_or_nodriver $r1
    RANK=1 WORLD_SIZE=2 TORCHELASTIC_RESTART_COUNT=2 "$BIN" record -o "$OUT" -- "$PROG" steps \
        >/dev/null 2>"$W/err"
    expect_ok_or_nodriver $?
    host=$(hostname | tr -c 'A-Za-z0-9._\n-' '_')
    for want in "-r5.sstrace" "-r0.sstrace" "-r1.sstrace" "-r1-restart2.sstrace"; do
        n=$(ls "$OUT" | grep -c -- "^$host-[0-9]*$want\$")
        [ "$n" = 1 ] || fail "$n traces named $host-PID$want: $(ls "$OUT" | tr '\n' ' ')"
    done
    t=$(ls "$OUT"/*-r5.sstrace)
    info=$("$BIN" info "$t") || fail "info: exit $?"
    echo "$info" | grep -q "rank 5/8 local_rank 1" || fail "PROCESS rank of srun's task: $info"
    ;;
normal)
    watched 40 "$BIN" record -o "$OUT" -- "$PROG" normal >"$W/out.txt" 2>"$W/err"
    expect_rc $? 3
    expect_err "traces in"
    "$CHECK" normal "$OUT" || fail "trace check"
    ;;
kill)
    "$BIN" record -o "$OUT" -- "$PROG" kill "$W/killtime" >/dev/null 2>"$W/err"
    expect_rc $? 137
    "$CHECK" kill "$OUT" "$W/killtime" || fail "trace check"
    ;;
term)
    "$BIN" record -o "$OUT" -- "$PROG" term >"$W/out.txt" 2>"$W/err"
    expect_rc $? 7
    grep -q "handler ran" "$W/out.txt" || fail "the program's SIGTERM handler did not run"
    "$CHECK" term "$OUT" || fail "trace check"
    ;;
term_default)
    "$BIN" record -o "$OUT" -- "$PROG" term_default >/dev/null 2>"$W/err"
    expect_rc $? 143
    "$CHECK" term "$OUT" || fail "trace check"
    ;;
memcap)
    "$BIN" record -o "$OUT" --memory-cap 64K -- "$PROG" flood >/dev/null 2>"$W/err"
    expect_rc $? 0
    expect_err "memory cap reached"
    "$CHECK" flood "$OUT" || fail "trace check"
    ;;
steps)
    "$BIN" record -o "$OUT" --capture steps:2-4 -- "$PROG" steps >/dev/null 2>"$W/err"
    expect_rc $? 0
    "$CHECK" steps "$OUT" || fail "trace check"
    ;;
clock)
    # CLOCK pairs for aligning hosts (issue #44): at open, every STEPSCOPE_CLOCK_MS (200 ms
    # here, 10 s by default) and at close; info says the offset, dump prints the records.
    STEPSCOPE_CLOCK_MS=200 "$BIN" record -o "$OUT" -- "$PROG" clock >/dev/null 2>"$W/err"
    expect_rc $? 0
    "$CHECK" clock "$OUT" || fail "trace check"
    "$BIN" info "$OUT"/*.sstrace >"$W/info" 2>>"$W/err" || fail "info failed"
    grep -Eq '^  clock sync   [0-9]+ pairs: REALTIME - MONOTONIC [0-9]+ ns \(median\), moved [-+][0-9.]+ ppm, largest spread [0-9]+ ns$' "$W/info" ||
        fail "info lacks the clock line: $(grep clock "$W/info")"
    "$BIN" dump --type clock "$OUT"/*.sstrace >"$W/dump" 2>>"$W/err" || fail "dump failed"
    grep -q 'clock .*unix_ns=[0-9]* spread_ns=[0-9]* offset_ns=[0-9]*' "$W/dump" ||
        fail "dump prints no clock record: $(head -3 "$W/dump")"
    ;;
busy_exit)
    watched 170 "$BIN" record -o "$OUT" -- "$PROG" busy_exit >/dev/null 2>"$W/err"
    expect_rc $? 0
    "$CHECK" busy_exit "$OUT" || fail "trace check"
    ;;
fork_at_start)
    # a fork() at once after the collector started, 30 times (each at another moment of the
    # writer thread's start): every child ends and leaves its trace. Under ASan a collector
    # without ssc_thread_start hung about 1 run in 200 here: this catches it now and then, the
    # stress runs in the note on issue #27 measured it.
    i=1
    while [ $i -le 30 ]; do
        watched 60 "$BIN" record -q --no-report -o "$OUT$i" -- "$PROG" fork_at_start >/dev/null 2>"$W/err"
        expect_rc $? 0
        [ "$(ls "$OUT$i" | wc -l)" = 2 ] || fail "run $i: $(ls "$OUT$i" | wc -l) traces, expected 2"
        i=$((i + 1))
    done
    ;;
unwritable)
    "$BIN" record -o /proc/stepscope-no/out -- sh -c "touch '$W/ran'" 2>"$W/err"
    expect_rc $? 1
    expect_err "cannot create the output folder"
    [ ! -e "$W/ran" ] || fail "the program ran although the output was refused"
    touch "$W/file"
    "$BIN" record -o "$W/file" -- true 2>"$W/err"
    expect_rc $? 1
    expect_err "not a folder"
    ;;
missing_program)
    "$BIN" record -o "$OUT" -- "$W/no-such-program" 2>"$W/err"
    expect_rc $? 127
    expect_err "command not found"
    ;;
usage)
    # the program without '--' (options end at the first operand, as nsys profile's do)
    "$BIN" record -q -o "$W/nodash" "$PROG" steps 2>"$W/err"
    expect_rc $? 0
    ls "$W/nodash"/*.sstrace >/dev/null 2>&1 || fail "no trace without '--'"
    "$BIN" record -o "$OUT" 2>"$W/err"
    expect_rc $? 2
    expect_err "missing the program"
    "$BIN" record -o "$OUT" -- 2>"$W/err"
    expect_rc $? 2
    expect_err "no program"
    "$BIN" record --capture steps:x -- true 2>"$W/err"
    expect_rc $? 2
    expect_err "capture"
    "$BIN" record --mode fast -- true 2>"$W/err"
    expect_rc $? 2
    "$BIN" record --memory-cap lots -- true 2>"$W/err"
    expect_rc $? 2
    "$BIN" record --memory-cap 17179869184G -- true 2>"$W/err" # 2^64 bytes: must not wrap
    expect_rc $? 2
    expect_err "memory-cap"
    "$BIN" record --sample-hz 5000 -- true 2>"$W/err"
    expect_rc $? 2
    [ ! -e "$OUT" ] || fail "a usage error created the output folder"
    STEPSCOPE_LIB=/nonexistent/libstepscope.so "$BIN" record -o "$OUT" -- true 2>"$W/err"
    expect_rc $? 1
    expect_err "collector library not found"
    ;;
environment)
    # What the program sees; its stdout must be exactly its own (summary goes to stderr).
    mkdir -p "$OUT" # made here: record removes the folders it made when no trace lands there
    PYTHONPATH=/old "$BIN" record -o "$OUT" -- sh -c \
        'echo "$NVTX_INJECTION64_PATH|$CUDA_INJECTION64_PATH|$STEPSCOPE_OUTPUT_DIR|$PYTHONPATH"' \
        >"$W/out.txt" 2>"$W/err"
    expect_ok_or_nodriver $?
    IFS='|' read -r nvtx cuda dir pypath <"$W/out.txt"
    [ "$(wc -l <"$W/out.txt")" -eq 1 ] || fail "extra output on stdout"
    [ -f "$nvtx" ] && [ "$nvtx" = "$cuda" ] || fail "injection paths: '$nvtx' '$cuda'"
    case $nvtx in /*libstepscope.so) ;; *) fail "not an absolute library path: $nvtx" ;; esac
    [ "$dir" = "$(cd "$OUT" && pwd -P)" ] || fail "STEPSCOPE_OUTPUT_DIR '$dir'"
    case $pypath in */python:/old) ;; *) fail "PYTHONPATH '$pypath'" ;; esac
    # a folder with parents that do not exist: made like mkdir -p, every level 0700; one the
    # run wrote nothing into is removed again (no empty folder left behind)
    "$BIN" record -q -o "$W/new/a/b" -- "$PROG" steps 2>"$W/err"
    expect_rc $? 0
    [ "$(stat -c %a "$W/new/a/b")" = 700 ] && [ "$(stat -c %a "$W/new")" = 700 ] ||
        fail "output folder mode $(stat -c %a "$W/new/a/b") $(stat -c %a "$W/new")"
    "$BIN" record -q -o "$W/empty/x" -- true 2>"$W/err"
    expect_ok_or_nodriver $?
    [ ! -e "$W/empty" ] || fail "an empty output folder was left behind"
    # --host-samples reaches the shim's sampler (STEPSCOPE_HOST_SAMPLES); a bad rate is refused
    "$BIN" record -q -o "$OUT" --host-samples off -- sh -c 'echo "$STEPSCOPE_HOST_SAMPLES"' \
        >"$W/out.txt" 2>"$W/err"
    [ "$(cat "$W/out.txt")" = off ] || fail "--host-samples off: '$(cat "$W/out.txt")'"
    "$BIN" record -q -o "$OUT" --host-samples 0 -- true 2>"$W/err"
    expect_rc $? 2
    "$BIN" record -q -o "$OUT" --no-python-shim --host-samples 50 -- true 2>"$W/err"
    expect_rc $? 2
    # The shim's markers library: next to libstepscope.so, unless the user named one.
    env -u STEPSCOPE_MARKERS_LIB "$BIN" record -o "$OUT" -- sh -c 'echo "$STEPSCOPE_MARKERS_LIB"' \
        >"$W/out.txt" 2>"$W/err"
    want="$(dirname "$nvtx")/libstepscope_markers.so"
    if [ -f "$want" ]; then
        [ "$(cat "$W/out.txt")" = "$want" ] || fail "STEPSCOPE_MARKERS_LIB '$(cat "$W/out.txt")'"
    else
        [ -z "$(cat "$W/out.txt")" ] || fail "STEPSCOPE_MARKERS_LIB set to a missing library"
    fi
    STEPSCOPE_MARKERS_LIB=/mine.so "$BIN" record -o "$OUT" -- sh -c 'echo "$STEPSCOPE_MARKERS_LIB"' \
        >"$W/out.txt" 2>"$W/err"
    [ "$(cat "$W/out.txt")" = /mine.so ] || fail "the user's STEPSCOPE_MARKERS_LIB was replaced"
    "$BIN" record -o "$OUT" --no-python-shim -- sh -c 'echo "${PYTHONPATH-unset}"' \
        >"$W/out.txt" 2>"$W/err"
    [ "$(cat "$W/out.txt")" = unset ] || fail "--no-python-shim still set PYTHONPATH"
    ;;
sigign)
    # Started with SIGHUP ignored (nohup): neither `record` nor the collector may turn that
    # into a handler, which exec would reset to the default (death by SIGHUP).
    ( trap '' HUP; exec "$BIN" record -o "$OUT" -- sh -c 'kill -HUP $$; echo survived' ) \
        >"$W/out.txt" 2>"$W/err"
    expect_ok_or_nodriver $?
    grep -qx survived "$W/out.txt" || fail "record: the program died of an ignored SIGHUP"
    ( trap '' HUP; exec "$BIN" record -o "$OUT" -- "$PROG" exec_hup ) >"$W/out.txt" 2>"$W/err"
    expect_rc $? 0
    grep -qx survived "$W/out.txt" || fail "collector: an exec'd child died of an ignored SIGHUP"
    ;;
inject_unwritable)
    # Injected without `record` into an unwritable folder: one line, the program unchanged.
    NVTX_INJECTION64_PATH=$(dirname "$BIN")/libstepscope.so \
        STEPSCOPE_OUTPUT_DIR=/proc/stepscope-no "$PROG" normal >/dev/null 2>"$W/err"
    expect_rc $? 3
    [ "$(grep -c '^stepscope: cannot create a trace' "$W/err")" = 1 ] || fail "not said once"
    # (LeakSanitizer's notes about a fork()ed child of a threaded program are not ours)
    [ "$(grep -v '^==[0-9]*==' "$W/err" | grep -vc '^stepscope: ')" = 0 ] ||
        fail "unprefixed stderr output"
    ;;
*)
    fail "unknown case"
    ;;
esac
echo "ok: $CASE"
