#!/bin/sh
# run_cupti_test.sh CASE STEPSCOPE CUPTI_PROG FAKE_CUPTI_DIR WORKDIR
# The collector's CUPTI session against the fake libcupti (fake_cupti.c, cupti_prog.c): what it
# asks of CUPTI around torch.profiler's marks (the fake's call log), what the trace says, and
# that the "Kineto" in between can subscribe. Exits 0 when all is as expected.
set -u
CASE=$1 BIN=$2 PROG=$3 FAKE=$4 W=$5
rm -rf "$W" && mkdir -p "$W" || exit 1
OUT="$W/out" LOG="$W/cupti.log"

fail() { echo "FAIL [$CASE]: $*"; sed 's/^/  cupti: /' "$LOG" 2>/dev/null; sed 's/^/  stderr: /' "$W/err"; exit 1; }
# Line number of the first line matching $1 after line $2 (0 when none).
line_after() { awk -v re="$1" -v from="$2" 'NR > from && $0 ~ re { print NR; exit }' "$LOG" | grep . || echo 0; }
captures() {
    "$BIN" dump --json "$OUT"/*.sstrace | grep '"type":"capture"' |
        sed 's/.*"state":"\([a-z]*\)".*"reason":"\([a-z_]*\)".*/\1:\2/' | tr '\n' ' '
}

export LD_LIBRARY_PATH="$FAKE${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" FAKE_CUPTI_LOG="$LOG"
case $CASE in
profiler | profiler_before_cuda)
    arg=; [ "$CASE" = profiler_before_cuda ] && arg=before
    "$BIN" record -o "$OUT" -- "$PROG" $arg >"$W/out.txt" 2>"$W/err"
    [ $? = 0 ] || fail "exit status"
    grep -q "kineto subscribe: ok" "$W/out.txt" || fail "Kineto could not subscribe: the collector holds a subscription"
    grep -q "torch.profiler started: it records GPU activity until it stops" "$W/err" || fail "no notice"
    kin=$(line_after "register_callbacks kineto" 0)
    fin=$(line_after "^finalize" "$kin")
    [ "$kin" -gt 0 ] && [ "$fin" -gt 0 ] || fail "the fake Kineto did not run"
    if [ "$CASE" = profiler ]; then
        # Before Kineto: ours were registered, then kinds off and a forced flush, nothing after.
        ours=$(line_after "register_callbacks collector" 0)
        flush=$(line_after "flush forced" "$ours")
        [ "$ours" -gt 0 ] && [ "$flush" -gt 0 ] && [ "$flush" -lt "$kin" ] || fail "no hand-over flush before Kineto"
        [ "$(sed -n "$((flush + 1)),$((kin - 1))p" "$LOG" | grep -vc '^subscribe ok')" = 0 ] ||
            fail "the collector touched CUPTI after handing it over"
        # The core's start (NVTX, host samples), then CUPTI's (GPU activity).
        want="on:start on:start off:taken_over on:taken_over"
    else
        # CUDA started inside the profiler: nothing of ours before Kineto is done.
        [ "$(sed -n "1,${fin}p" "$LOG" | grep -c 'collector\|register_timestamp\|^enable')" = 0 ] ||
            fail "the collector set CUPTI up while the profiler ran"
        want="on:start off:taken_over on:taken_over"
    fi
    # After the stop mark: clock, our callbacks and kinds again (CUPTI was finalised).
    ts=$(line_after "register_timestamp" "$fin")
    back=$(line_after "register_callbacks collector" "$ts")
    en=$(line_after "^enable" "$back")
    [ "$ts" -gt 0 ] && [ "$back" -gt 0 ] && [ "$en" -gt 0 ] || fail "CUPTI not taken back after the stop mark"
    # Per-call API settings made after CUDA started record nothing: whole domains (5 runtime).
    [ "$(line_after "^enable 5\$" "$back")" -gt 0 ] || fail "API records not enabled by domain after the take-back"
    got=$(captures)
    case "$got" in "$want"*) ;; *) fail "capture records '$got', expected '$want ...'" ;; esac
    ;;
conflict)
    FAKE_CUPTI_CONFLICT=1 "$BIN" record -o "$OUT" -- "$PROG" >"$W/out.txt" 2>"$W/err"
    [ $? = 0 ] || fail "exit status"
    grep -q "another CUPTI client" "$W/err" || fail "no conflict notice"
    ! grep -q "collector\|register_timestamp\|^enable" "$LOG" || fail "the collector used CUPTI despite the conflict"
    case "$(captures)" in *off:conflict*) ;; *) fail "no capture off:conflict record" ;; esac
    ;;
kinds_off)
    # The benchmark knob leaves the named kinds off: memcpy (1, 22) and sync (38); memset (2)
    # and the kernel kind (10) stay on.
    STEPSCOPE_CUPTI_OFF=memcpy,sync "$BIN" record -o "$OUT" -- "$PROG" >"$W/out.txt" 2>"$W/err"
    [ $? = 0 ] || fail "exit status"
    ! grep -qx "enable 1\|enable 22\|enable 38" "$LOG" || fail "a kind named in STEPSCOPE_CUPTI_OFF was enabled"
    grep -qx "enable 2" "$LOG" && grep -qx "enable 10" "$LOG" || fail "kinds not named were left off"
    # Capturing from the start: API records call by call (per-call settings), not by domain
    # (until the program's torch.profiler; the take-back is checked in case profiler).
    kin=$(line_after "register_callbacks kineto" 0)
    ! sed -n "1,${kin}p" "$LOG" | grep -qx "enable 5\|enable 4" ||
        fail "whole API domains enabled while CUDA started"
    ;;
thread_name)
    # A thread that only launches (its records come through CUPTI's buffer) gets its name.
    "$BIN" record -o "$OUT" -- "$PROG" thread >"$W/out.txt" 2>"$W/err"
    [ $? = 0 ] || fail "exit status"
    tid=$(sed -n 's/^launcher tid \([0-9]*\)$/\1/p' "$W/out.txt")
    [ -n "$tid" ] || fail "no launcher tid"
    "$BIN" dump -t api,thread "$OUT"/*.sstrace >"$W/dump.txt" || fail "dump"
    grep -q "api .*tid=$tid " "$W/dump.txt" || grep -q "api .*tid=$tid\$" "$W/dump.txt" ||
        fail "no API record of thread $tid: $(head -5 "$W/dump.txt")"
    [ "$(grep -c "thread .*tid=$tid .*\"launcher\"" "$W/dump.txt")" = 1 ] ||
        fail "thread $tid not named launcher once: $(grep thread "$W/dump.txt" | head -5)"
    ;;
detach | detach_off | detach_idle)
    # --capture steps:1-2: after step 2 the writer flushes, subscribes to API callbacks, and
    # the next API exit finalises CUPTI; nothing of ours touches CUPTI after that.
    arg=window; [ "$CASE" = detach_idle ] && arg=window_idle
    off=; [ "$CASE" = detach_off ] && off=0
    STEPSCOPE_CUPTI_DETACH=$off "$BIN" record -o "$OUT" --capture steps:1-2 -- "$PROG" $arg \
        >"$W/out.txt" 2>"$W/err"
    [ $? = 0 ] || fail "exit status"
    grep -q "window done" "$W/out.txt" || fail "the program did not finish"
    "$BIN" dump --json "$OUT"/*.sstrace >"$W/dump.json" || fail "trace unreadable"
    fin=$(line_after "^finalize" 0)
    # The window opened mid-run: API records by domain (4 driver, 5 runtime), else none come.
    grep -qx "enable 5" "$LOG" && grep -qx "enable 4" "$LOG" ||
        fail "API domains not enabled when the window opened"
    if [ "$CASE" = detach ]; then
        dom=$(line_after "^enable_domain" 0)
        [ "$dom" -gt 0 ] && [ "$fin" -gt "$dom" ] || fail "CUPTI not finalised after the window"
        flush=$(line_after "flush forced" "$dom")
        [ "$flush" -gt 0 ] && [ "$flush" -lt "$fin" ] || fail "no flush right before finalising"
        [ "$(sed -n "$((fin + 1)),\$p" "$LOG" | grep -vc '^api_call$')" = 0 ] ||
            fail "the collector called CUPTI after finalising it"
        grep -q '"cupti.detached"' "$W/dump.json" || fail "no cupti.detached in the trace"
    else
        [ "$fin" = 0 ] || fail "CUPTI finalised (STEPSCOPE_CUPTI_DETACH=0 or no call after the window)"
        ! grep -q '"cupti.detached"' "$W/dump.json" || fail "cupti.detached without a detach"
        [ "$(line_after "flush forced" "$(line_after "^unsubscribe" 0)")" -gt 0 ] ||
            fail "no last flush at exit"
    fi
    [ "$(grep -c '"type":"step"' "$W/dump.json")" -ge 10 ] || fail "steps missing from the trace"
    ;;
detach_cuda_late)
    # The window closed before CUDA started: CUPTI is set up, then detached at the first call.
    "$BIN" record -o "$OUT" --capture steps:1-2 -- "$PROG" window_cuda_late >"$W/out.txt" 2>"$W/err"
    [ $? = 0 ] || fail "exit status"
    grep -q "window done" "$W/out.txt" || fail "the program did not finish"
    [ "$(line_after "^finalize" "$(line_after "register_callbacks collector" 0)")" -gt 0 ] ||
        fail "CUPTI not finalised after starting past the window"
    ;;
detach_fails)
    # cuptiFinalize fails: CUPTI stays attached (kinds off), the trace says so, and a seconds
    # window (over at every writer round after it) does not make the writer try again.
    FAKE_CUPTI_FINALIZE_FAIL=1 "$BIN" record -o "$OUT" --capture seconds:0-0.2 -- "$PROG" window \
        >"$W/out.txt" 2>"$W/err"
    [ $? = 0 ] || fail "exit status"
    grep -q "window done" "$W/out.txt" || fail "the program did not finish"
    [ "$(grep -c '^finalize failed' "$LOG")" = 1 ] || fail "not exactly one detach attempt"
    [ "$(grep -c '^enable_domain 2 1' "$LOG")" = 1 ] || fail "the detach was armed more than once"
    "$BIN" dump --json "$OUT"/*.sstrace | grep -q '"key":"cupti.detached","value":"failed"' ||
        fail "no cupti.detached=failed"
    ;;
*)
    fail "unknown case"
    ;;
esac
echo "ok: $CASE"
