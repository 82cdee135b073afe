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

# cudaLaunchKernel records (cbid 211) per step of $W/dump.txt (`dump -t step,api`), steps 0 to
# $1 - 1, as "STEP:N ": every step ($2 all) or those with any ($2 some).
launches_per_step() {
    awk -v steps="$1" -v which="$2" '
        /^step .*phase=begin/ { split($0, a, "step="); split(a[2], b, " "); s = b[1] }
        /^step .*phase=end/ { s = "" }
        /^api .*cbid=211 / && s != "" { n[s]++ }
        END { for (i = 0; i < steps; i++) if (which == "all" || n[i]) printf "%d:%d ", i, n[i] }' "$W/dump.txt"
}

# The API records of trace(s) $@ as "DOMAIN CBID CORRELATION RESULT TID" (DOMAIN 1 runtime,
# 2 driver), sorted: the program's "want" lines in the same form.
api_rows() {
    for t in "$@"; do "$BIN" dump -t api "$t"; done | awk '{
        for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
        print (v["domain"] == "runtime" ? 1 : 2), v["cbid"], v["corr"], v["result"], v["tid"] }' | sort
}
want_rows() { sed -n 's/^want //p' "$1" | sort; }
# Fails unless the trace(s) hold exactly the API calls the program printed as wanted.
same_calls() {
    want_rows "$W/out.txt" >"$W/want.txt"
    api_rows "$@" >"$W/got.txt"
    [ -s "$W/want.txt" ] || fail "the program wanted no call"
    cmp -s "$W/want.txt" "$W/got.txt" || fail "API records differ from the calls made:
$(diff "$W/want.txt" "$W/got.txt" | head -20)"
}
# Number of log lines matching $1 between lines $2 and $3 (inclusive).
count_between() { sed -n "${2},${3}p" "$LOG" | grep -c "$1"; }

export LD_LIBRARY_PATH="$FAKE${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" FAKE_CUPTI_LOG="$LOG"
# These cases check how API activity records are switched (per call, whole domains); the
# default is callbacks since 2026-12-04 (their cb_* twins check those).
case $CASE in profiler | profiler_before_cuda | detach | detach_off | detach_idle)
    export STEPSCOPE_API=activity ;;
esac
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
    # the program succeeded, the recording did not: 3, said with the cause (issue #29)
    [ $? = 3 ] || fail "exit status"
    grep -q "another CUPTI client" "$W/err" || fail "no conflict notice"
    grep -q "^stepscope record: the recording failed (.*another CUPTI client" "$W/err" ||
        fail "record did not say the recording failed"
    FAKE_CUPTI_CONFLICT=1 "$BIN" record -o "$OUT.2" -- sh -c "\"$PROG\"; exit 5" >/dev/null 2>&1
    [ $? = 5 ] || fail "the program's own failure must win"
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
        if [ "$CASE" = detach_off ]; then # said, so the report does not take the steps after
            grep -q '"key":"cupti.detached","value":"off"' "$W/dump.json" ||  # the window as plain
                fail "STEPSCOPE_CUPTI_DETACH=0 not said (cupti.detached off)"
        else
            ! grep -q '"cupti.detached"' "$W/dump.json" || fail "cupti.detached without a detach"
        fi
        [ "$(line_after "flush forced" "$(line_after "^unsubscribe" 0)")" -gt 0 ] ||
            fail "no last flush at exit"
    fi
    [ "$(grep -c '"type":"step"' "$W/dump.json")" -ge 10 ] || fail "steps missing from the trace"
    ;;
auto)
    # record's default (--capture auto), here with 2 steps (STEPSCOPE_AUTO_STEPS): recorded from
    # the start (per-call API records asked before CUDA starts, no whole domain), then CUPTI
    # finalised after step 1; the steps after it are in the trace without GPU activity, and
    # the trace says which capture it was.
    STEPSCOPE_AUTO_STEPS=2 "$BIN" record -o "$OUT" -- "$PROG" window >"$W/out.txt" 2>"$W/err"
    [ $? = 0 ] || fail "exit status"
    grep -q "window done" "$W/out.txt" || fail "the program did not finish"
    ! grep -qx "enable 5" "$LOG" || fail "a whole API domain for a window from the start"
    [ "$(line_after "^finalize" 0)" -gt 0 ] || fail "CUPTI not finalised after the auto window"
    "$BIN" dump --json "$OUT"/*.sstrace >"$W/dump.json" || fail "trace unreadable"
    grep -q '"key":"collector.capture","value":"auto"' "$W/dump.json" || fail "capture not auto"
    grep -q '"key":"cupti.detached","value":"1"' "$W/dump.json" || fail "not detached"
    [ "$(grep -c '"type":"step"' "$W/dump.json")" -ge 10 ] || fail "steps missing from the trace"
    ;;
auto_late)
    # Where the shim says steps will be marked (STEPSCOPE_AUTO_FROM=8:PID), auto leaves steps 0-7
    # unrecorded: CUPTI does nothing but its start before step 8, the calls of steps 8-13 are
    # recorded, the trace says which window auto came to, and the report measures the
    # recording against steps 3-7 (issue #27: a run shorter than 100 steps, cost measured).
    "$BIN" record -o "$OUT" -- "$PROG" auto_late 14 0 >"$W/out.txt" 2>"$W/err"
    [ $? = 0 ] || fail "exit status"
    grep -q "auto done" "$W/out.txt" || fail "the program did not finish"
    same_calls "$OUT"/*.sstrace
    "$BIN" dump --json "$OUT"/*.sstrace >"$W/dump.json" || fail "trace unreadable"
    grep -q '"key":"collector.window","value":"steps:8-107"' "$W/dump.json" ||
        fail "no collector.window steps:8-107"
    "$BIN" report --format json "$OUT" >"$W/report.json" || fail "report"
    grep -q '"basis": *"measured"' "$W/report.json" ||
        fail "cost not measured: $(grep -A3 recording_cost "$W/report.json" | tr -d '\n')"
    ! grep -q "no step marked" "$W/err" || fail "the stall fallback fired: $(cat "$W/err")"
    ;;
auto_shim)
    # The same through the real shim (the fake torch of tests/markers): the collector starts
    # from NVTX before the shim's install said it marks steps (ENV collector.window steps:0-99
    # first), decides again when CUDA starts (steps:8-107 last), and the report measures.
    command -v python3 >/dev/null || { echo "skipped: no python3"; exit 77; }
    cat >"$W/prog.py" <<'PY'
import ctypes, os, time
import torch
from torch.utils.data import DataLoader
import torch.optim.optimizer as O
class SGD(O.Optimizer):
    def step(self): pass
ctypes.CDLL(os.environ["CUDA_INJECTION64_PATH"]).InitializeInjection()  # as cuInit would
opt = SGD([1])
for i in range(16):
    for _ in DataLoader([1]): pass
    time.sleep(0.02)  # steps long enough for a loaded host's jitter to leave them steady
    opt.step()
print("shim done")
PY
    PYTHONPATH="$(dirname "$0")/../markers/fake_torch" "$BIN" record -o "$OUT" -- python3 "$W/prog.py" \
        >"$W/out.txt" 2>"$W/err"
    [ $? = 0 ] || fail "exit status"
    grep -q "shim done" "$W/out.txt" || fail "the program did not finish"
    "$BIN" dump --json "$OUT"/*.sstrace >"$W/dump.json" || fail "trace unreadable"
    [ "$(grep -o '"key":"collector.window","value":"[^"]*"' "$W/dump.json" | tail -1)" = \
        '"key":"collector.window","value":"steps:8-107"' ] || fail "auto did not come to steps:8-107"
    "$BIN" report --format json "$OUT" >"$W/report.json" || fail "report"
    grep -q '"basis": *"measured"' "$W/report.json" ||
        fail "cost not measured: $(grep -A3 recording_cost "$W/report.json" | tr -d '\n')"
    ;;
light_findings)
    # A light recording keeps no kernels: the report says which findings it cannot make.
    "$BIN" record -o "$OUT" --mode light -- "$PROG" steps_calls >"$W/out.txt" 2>"$W/err"
    [ $? = 0 ] || fail "exit status"
    COLUMNS=200 "$BIN" report "$OUT" >"$W/report.txt" 2>&1
    grep -q "a light recording keeps no kernel records: the findings that price GPU idle time need --mode full" \
        "$W/report.txt" || fail "report: $(cat "$W/report.txt")"
    ;;
auto_stall_early)
    # 3 steps, then 6 s of launches without a step: too few steps to know their length (a
    # warm-up-heavy loop's first steps are its longest), so the stall check waits 30 s and the
    # run ends before; the old rule (4 x the longest, 2 s) opened inside the warm-up.
    "$BIN" record -o "$OUT" -- "$PROG" auto_late 3 6000 >"$W/out.txt" 2>"$W/err"
    [ $? = 0 ] || fail "exit status"
    ! grep -q "no step marked" "$W/err" || fail "the stall check fired: $(cat "$W/err")"
    [ "$("$BIN" dump -t api "$OUT"/*.sstrace | grep -c '^api')" = 0 ] || fail "API records"
    ;;
auto_short)
    # The run ends at step 5, before a late auto window opened: the collector says so once on
    # stderr, the trace holds no API record, the report says how to record such a run.
    "$BIN" record -o "$OUT" -- "$PROG" auto_late 5 0 >"$W/out.txt" 2>"$W/err"
    [ $? = 0 ] || fail "exit status"
    [ "$(grep -c "marked 5 steps and ended before step 8" "$W/err")" = 1 ] ||
        fail "not said once: $(cat "$W/err")"
    [ "$("$BIN" dump -t api "$OUT"/*.sstrace | grep -c '^api')" = 0 ] || fail "API records"
    COLUMNS=200 "$BIN" report "$OUT" >"$W/report.txt" 2>&1
    grep -q "ended before the window opened: record it again with --capture all" "$W/report.txt" ||
        fail "report: $(cat "$W/report.txt")"
    ;;
auto_stall | auto_nostep)
    # auto_stall: steps stop at step 4 (a CUDA graph replayed with no optimizer step between
    # replays and no tick): after 5 s without a step (8 x the longest, at least 5 s, once 3 steps
    # showed their length) the window opens.
    # auto_nostep: no step at all: it opens 30 s after the collector started. Either way the
    # launches after it are recorded, none before, and the tool says so once.
    if [ "$CASE" = auto_stall ]; then
        steps=4 stall_ms=6500 said="no step marked for a while"
    else
        steps=0 stall_ms=31500 said="no step marked yet"
    fi
    "$BIN" record -o "$OUT" -- "$PROG" auto_late $steps $stall_ms >"$W/out.txt" 2>"$W/err"
    [ $? = 0 ] || fail "exit status"
    [ "$(grep -c "$said" "$W/err")" = 1 ] || fail "stderr: $(cat "$W/err")"
    "$BIN" dump -t step,capture,api "$OUT"/*.sstrace >"$W/dump.txt" || fail "dump"
    won=$(grep -n "capture .*state=on reason=window" "$W/dump.txt" | cut -d: -f1)
    [ -n "$won" ] || fail "no window edge"
    [ "$(head -n "$won" "$W/dump.txt" | grep -c '^api')" = 0 ] || fail "API records before the window"
    [ "$(tail -n +"$won" "$W/dump.txt" | grep -c '^api')" -ge 50 ] ||
        fail "fewer than 50 launches after the window: $(tail -n +"$won" "$W/dump.txt" | grep -c '^api')"
    "$BIN" report "$OUT" >"$W/report.txt" 2>&1
    ! grep -q "ended before the window opened" "$W/report.txt" || fail "report: $(cat "$W/report.txt")"
    ;;
auto_ticks_graph | auto_ticks_backward)
    # The steps stop at step 3 while the loop goes on: the shim's tick marks (a CUDA graph
    # replayed, backward() run, with no optimizer step since the last) open the late window at
    # the 8th graph tick (32nd backward tick) at once - long before the 2-s stall check - and it
    # records 100 ticks' calls, then closes; the tool says why once, the trace names the opener.
    kind=${CASE#auto_ticks_}
    "$BIN" record -o "$OUT" -- "$PROG" auto_ticks "$kind" 150 >"$W/out.txt" 2>"$W/err"
    [ $? = 0 ] || fail "exit status"
    grep -q "auto done" "$W/out.txt" || fail "the program did not finish"
    same_calls "$OUT"/*.sstrace
    [ "$(grep -c "$kind.* without an optimizer step: recording GPU activity from here" "$W/err")" = 1 ] ||
        fail "not said once: $(cat "$W/err")"
    ! grep -q "no step marked" "$W/err" || fail "the stall check fired: $(cat "$W/err")"
    "$BIN" dump --json "$OUT"/*.sstrace >"$W/dump.json" || fail "trace unreadable"
    want=graph_replays; [ "$kind" = backward ] && want=backward_calls
    grep -q "\"key\":\"collector.window_opened\",\"value\":\"$want\"" "$W/dump.json" ||
        fail "no ENV collector.window_opened $want"
    [ "$(line_after "^finalize" 0)" -gt 0 ] || fail "CUPTI not detached after the window's 100 ticks"
    ;;
auto_ticks_mixed)
    # A graph replayed twice inside every step (torch.compile's CUDA graph trees): the steps go
    # on, so the ticks never open the window; step 8 does.
    "$BIN" record -o "$OUT" -- "$PROG" auto_ticks mixed 0 >"$W/out.txt" 2>"$W/err"
    [ $? = 0 ] || fail "exit status"
    "$BIN" dump -t step,capture,api "$OUT"/*.sstrace >"$W/dump.txt" || fail "dump"
    won=$(grep -n "capture .*state=on reason=window" "$W/dump.txt" | cut -d: -f1)
    [ -n "$won" ] || fail "no window edge"
    head -n "$won" "$W/dump.txt" | grep "^step" | tail -1 | grep -q "step=8 " ||
        fail "the window did not open at step 8: $(head -n "$won" "$W/dump.txt" | grep '^step' | tail -2)"
    ! "$BIN" dump --json "$OUT"/*.sstrace | grep -q collector.window_opened || fail "opened by ticks"
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
    "$BIN" report --accept-damage "$OUT"/*.sstrace >"$W/report.txt" 2>&1
    grep -q "^  lost .*CUPTI could not be detached" "$W/report.txt" ||
        fail "the report does not say the detach failed: $(head -12 "$W/report.txt")"
    ;;
cb_calls)
    # STEPSCOPE_API=callbacks, capturing from the start: every kept call recorded once from
    # its entry and exit callbacks (a driver call inside a runtime call not a second time, a
    # getter not at all), with CUPTI's correlation id and the call's result; no API activity
    # records (kinds 4, 5) asked of CUPTI.
    STEPSCOPE_API=callbacks "$BIN" record -o "$OUT" -- "$PROG" calls >"$W/out.txt" 2>"$W/err"
    [ $? = 0 ] || fail "exit status"
    same_calls "$OUT"/*.sstrace
    ! grep -qx "enable 4\|enable 5" "$LOG" || fail "API activity kinds enabled in callbacks mode"
    # CUPTI's callback domains: 1 driver, 2 runtime
    [ "$(grep -c '^enable_callback 1 ' "$LOG")" -gt 100 ] && [ "$(grep -c '^enable_callback 2 ' "$LOG")" -gt 100 ] ||
        fail "the keep-lists' callbacks were not enabled in both domains"
    ! grep -q "^enable_callback 2 17 " "$LOG" || fail "a getter's callback (cudaGetDevice) was enabled"
    "$BIN" dump -t env "$OUT"/*.sstrace | grep -q '"collector.api" *"callbacks"\|collector.api.*callbacks' ||
        fail "no env collector.api=callbacks"
    ;;
sync_site | sync_site_activity)
    # The sampler's wait for a synchronising call (ssc_syncsite.c through the shim's table):
    # with callbacks it reports the long sync (its thread, the runtime call's correlation id),
    # not the one before that does not wait, nor the long launch before that; with activity
    # records it cannot see calls start and says so (SS_ENOTSUP) at once.
    api=callbacks; [ "$CASE" = sync_site_activity ] && api=activity
    STEPSCOPE_API=$api "$BIN" record -o "$OUT" -- "$PROG" sync_site >"$W/out.txt" 2>"$W/err"
    [ $? = 0 ] || fail "exit status"
    waited=$(sed -n 's/^waited //p' "$W/out.txt") sync=$(sed -n 's/^sync //p' "$W/out.txt")
    env=$("$BIN" dump -t env "$OUT"/*.sstrace | sed -n 's/.*key="pyshim.sync_calls" value="\([a-z]*\).*/\1/p')
    if [ $api = callbacks ]; then
        [ "$waited" = "1 $sync" ] || fail "sync_wait said '$waited', the long sync was '$sync'"
        [ "$env" = on ] || fail "env pyshim.sync_calls is '$env', not on"
    else
        [ "$waited" = "-22 0 0" ] || fail "sync_wait under activity records said '$waited'"
        [ "$env" = off ] || fail "env pyshim.sync_calls is '$env', not off"
    fi
    ;;
launch_sample | launch_sample_activity)
    # STEPSCOPE_LAUNCH_SAMPLE=2, the whole run captured: the launch callbacks (cbid 211) are
    # switched off at the begin of steps 1, 3, 5 and on at 2, 4 (CAPTURE launches, reason
    # sampled, each time); every other call (step 2's sync, 131) is recorded in every step.
    # Through API activity records, which cannot be switched mid-run, it says so once and
    # records every launch.
    method=callbacks; [ "$CASE" = launch_sample_activity ] && method=activity
    STEPSCOPE_API=$method STEPSCOPE_LAUNCH_SAMPLE=2 "$BIN" record -o "$OUT" --capture all -- \
        "$PROG" steps_calls >"$W/out.txt" 2>"$W/err"
    [ $? = 0 ] || fail "exit status"
    "$BIN" dump -t step,api "$OUT"/*.sstrace >"$W/dump.txt" || fail "dump"
    per_step=$(launches_per_step 6 all)
    if [ "$method" = callbacks ]; then
        grep -q "cbid=131 " "$W/dump.txt" || fail "the sync of step 2 was not recorded"
        [ "$per_step" = "0:3 1:0 2:3 3:0 4:3 5:0 " ] || fail "launches per step: $per_step"
        [ "$(captures | grep -o 'o[nf]*:sampled' | tr '\n' ' ')" = "off:sampled on:sampled off:sampled on:sampled off:sampled " ] ||
            fail "sampling CAPTURE records: $(captures)"
        grep -qx "enable_callback 2 211 0" "$LOG" || fail "launch callbacks never switched off"
    else
        # (the fake's activity records carry no API calls: its call log says what was asked)
        ! grep -q "enable_callback" "$LOG" || fail "callbacks switched under activity records"
        ! captures | grep -q "sampled" || fail "sampling marked in the trace: $(captures)"
        [ "$(grep -c 'cannot be switched step by step' "$W/err")" = 1 ] || fail "not said once"
    fi
    "$BIN" dump --json -t env "$OUT"/*.sstrace | grep -q '"key":"collector.launch_sample","value":"2"' ||
        fail "no ENV collector.launch_sample"
    ;;
launch_sample_default)
    # The default with --capture all and no STEPSCOPE_LAUNCH_SAMPLE: launch calls recorded in
    # one step of each block of 8 (40 steps: 5 blocks, 3 launches a step), at a position drawn
    # per block (not always the same: a program doing something every 8th step would otherwise
    # have it in every sampled step or none), never in two steps side by side; ENV says 8.
    # Then 1 in 3 over 30 steps, whose draws put blocks 6 and 7 side by side (steps 20, 21)
    # unless the second moves on.
    for run in 8:40 3:30; do
        n=${run%:*} steps=${run#*:}
        rm -rf "$OUT"
        if [ "$n" = 8 ]; then
            STEPSCOPE_API=callbacks "$BIN" record -o "$OUT" --capture all -- "$PROG" auto_late "$steps" 0 \
                >"$W/out.txt" 2>"$W/err"
        else
            STEPSCOPE_API=callbacks STEPSCOPE_LAUNCH_SAMPLE=$n "$BIN" record -o "$OUT" --capture all -- \
                "$PROG" auto_late "$steps" 0 >"$W/out.txt" 2>"$W/err"
        fi
        [ $? = 0 ] || fail "1 in $n: exit status"
        "$BIN" dump -t step,api "$OUT"/*.sstrace >"$W/dump.txt" || fail "dump"
        sampled=$(launches_per_step "$steps" some)
        # 3 launches each; one step in each block; none side by side; 3+ positions in a block
        verdict=$(echo "$sampled" | tr ' ' '\n' | awk -F: -v n="$n" -v blocks=$((steps / n)) 'NF == 2 {
                      if ($2 != 3) bad = bad " count"; blk[int($1 / n)]++; pos[$1 % n] = 1
                      if (($1 - 1) in on) bad = bad " adjacent"; on[$1] = 1; k++ }
                  END { for (b = 0; b < blocks; b++) if (blk[b] != 1) bad = bad " block" b
                        for (p in pos) m++; if (m < 3) bad = bad " fixed"
                        print (k == blocks && bad == "") ? "ok" : "bad" bad }')
        [ "$verdict" = ok ] || fail "1 in $n, sampled steps ($verdict): $sampled"
        "$BIN" dump --json -t env "$OUT"/*.sstrace | grep -q "\"key\":\"collector.launch_sample\",\"value\":\"$n\"" ||
            fail "no ENV collector.launch_sample $n"
    done
    ;;
every_steps)
    # --capture every:30,steps:3 over 70 steps of 3 launches (20 ms): windows at steps 0-2,
    # 30-32 and 60-62, each step of them with its 3 launches, none outside; between them CUPTI
    # is detached (finalised) and attached again (our buffer callbacks registered anew); each
    # later window says why it opened (ENV collector.window.N) and the trace how often CUPTI came
    # back (cupti.reattached).
    STEPSCOPE_API=callbacks "$BIN" record -o "$OUT" --capture every:30,steps:3 -- \
        "$PROG" steady 70 20000 70 0 >"$W/out.txt" 2>"$W/err"
    [ $? = 0 ] || fail "exit status"
    grep -q "steady done" "$W/out.txt" || fail "the program did not finish"
    "$BIN" dump -t step,api "$OUT"/*.sstrace >"$W/dump.txt" || fail "dump"
    got=$(launches_per_step 70 some)
    [ "$got" = "0:3 1:3 2:3 30:3 31:3 32:3 60:3 61:3 62:3 " ] || fail "launches per step: $got"
    [ "$(grep -c '^finalize$' "$LOG")" -ge 2 ] || fail "CUPTI not detached after each window"
    [ "$(grep -c '^register_callbacks collector' "$LOG")" = 3 ] ||
        fail "CUPTI not attached again for each window: $(grep -c '^register_callbacks' "$LOG")"
    "$BIN" dump --json -t env "$OUT"/*.sstrace >"$W/env.txt" || fail "dump env"
    for kv in 'collector.window","value":"every:30,steps:3' 'collector.window.2","value":"period at step 30' \
        'collector.window.3","value":"period at step 60' 'cupti.reattached","value":"2'; do
        grep -q "\"key\":\"$kv\"" "$W/env.txt" || fail "no ENV $kv"
    done
    [ "$(captures | grep -o 'o[nf]*:window' | tr '\n' ' ')" = "off:window on:window off:window on:window off:window " ] ||
        fail "window CAPTURE records: $(captures)"
    ! grep -q "recording GPU activity again" "$W/err" || fail "every: said a window: $(cat "$W/err")"
    ;;
every_time)
    # --capture every:0.6s,steps:3 over 90 steps of 20 ms (about 2 s): a window at steps 0-2,
    # then one at the first step 0.6 s after the last opened, each 3 steps long: at least 2 more.
    STEPSCOPE_API=callbacks "$BIN" record -o "$OUT" --capture every:0.6s,steps:3 -- \
        "$PROG" steady 90 20000 90 0 >"$W/out.txt" 2>"$W/err"
    [ $? = 0 ] || fail "exit status"
    "$BIN" dump -t step,api "$OUT"/*.sstrace >"$W/dump.txt" || fail "dump"
    got=$(launches_per_step 90 some)
    "$BIN" dump --json -t env "$OUT"/*.sstrace >"$W/env.txt" || fail "dump env"
    opened=$(sed -n 's/.*"key":"collector.window.[0-9]*","value":"period at step \([0-9]*\)".*/\1/p' "$W/env.txt" | tr '\n' ' ')
    want="0:3 1:3 2:3 "
    for s in $opened; do want="$want$s:3 $((s + 1)):3 $((s + 2)):3 "; done
    [ "$(echo $opened | wc -w)" -ge 2 ] || fail "fewer than 3 windows: opened at '$opened'; launches $got"
    [ "$got" = "$want" ] || fail "launches per step $got, windows opened at $opened"
    for s in $opened; do [ "$s" -ge 20 ] || fail "a window opened at step $s, before 0.6 s"; done
    ;;
rewindow | rewindow_steady | rewindow_off)
    # auto (5-step windows: STEPSCOPE_AUTO_STEPS) in a program that marks steps of 20 ms: steps
    # 0-4 recorded, then the median of 50 unrecorded steps is the base. rewindow: from step 80 the
    # steps take 36 ms (+80 %): once the last 50 steps' median departs by more than 25 % a
    # window of 5 steps opens (said once, ENV collector.window.2 step_time), and only one: the
    # run stays slow. rewindow_steady: the steps stay at 20 ms: no second window.
    # rewindow_off: slowed, with STEPSCOPE_AUTO_REWINDOW=0: none either.
    slow=80; [ "$CASE" = rewindow_steady ] && slow=150
    share=; [ "$CASE" = rewindow_off ] && share=0
    STEPSCOPE_AUTO_REWINDOW=$share STEPSCOPE_AUTO_STEPS=5 STEPSCOPE_API=callbacks "$BIN" record \
        -o "$OUT" -- "$PROG" steady 150 20000 $slow 36000 >"$W/out.txt" 2>"$W/err"
    [ $? = 0 ] || fail "exit status"
    grep -q "steady done" "$W/out.txt" || fail "the program did not finish"
    "$BIN" dump -t step,api "$OUT"/*.sstrace >"$W/dump.txt" || fail "dump"
    got=$(launches_per_step 150 some)
    "$BIN" dump --json -t env "$OUT"/*.sstrace >"$W/env.txt" || fail "dump env"
    if [ "$CASE" = rewindow ]; then
        at=$(sed -n 's/.*"key":"collector.window.2","value":"step_time at step \([0-9]*\): step time +[0-9]* % since.*/\1/p' "$W/env.txt")
        [ -n "$at" ] || fail "no ENV collector.window.2 step_time: $(grep collector.window "$W/env.txt")"
        [ "$at" -gt 100 ] && [ "$at" -lt 145 ] || fail "re-window at step $at"
        want="0:3 1:3 2:3 3:3 4:3 $at:3 $((at + 1)):3 $((at + 2)):3 $((at + 3)):3 $((at + 4)):3 "
        [ "$got" = "$want" ] || fail "launches per step $got, re-window at $at"
        [ "$(grep -c "step time +[0-9]* % since the first window .*: recording GPU activity again from step $at for 5 steps" "$W/err")" = 1 ] ||
            fail "not said once: $(cat "$W/err")"
        grep -q '"key":"cupti.reattached","value":"1"' "$W/env.txt" || fail "CUPTI not attached again"
    else
        [ "$got" = "0:3 1:3 2:3 3:3 4:3 " ] || fail "launches per step $got"
        ! grep -q "collector.window\.2" "$W/env.txt" || fail "a second window: $(grep collector.window "$W/env.txt")"
        ! grep -q "recording GPU activity again" "$W/err" || fail "a second window said: $(cat "$W/err")"
    fi
    ;;
reattach_fails)
    # CUPTI refuses to come back after its detach: said once, the run goes on and ends 0 with its
    # steps recorded, the later windows without GPU activity (ENV cupti.reattached failed).
    FAKE_CUPTI_REATTACH_FAIL=1 STEPSCOPE_API=callbacks "$BIN" record -o "$OUT" \
        --capture every:30,steps:3 -- "$PROG" steady 70 20000 70 0 >"$W/out.txt" 2>"$W/err"
    [ $? = 0 ] || fail "exit status"
    grep -q "steady done" "$W/out.txt" || fail "the program did not finish"
    [ "$(grep -c "^stepscope: could not attach CUPTI again" "$W/err")" = 1 ] || fail "not said once: $(cat "$W/err")"
    [ "$(grep -c '^register_callbacks refused' "$LOG")" = 1 ] || fail "tried again after a refusal"
    "$BIN" dump -t step,api "$OUT"/*.sstrace >"$W/dump.txt" || fail "dump"
    [ "$(launches_per_step 70 some)" = "0:3 1:3 2:3 " ] || fail "launches per step $(launches_per_step 70 some)"
    [ "$(grep -c '^step .*phase=begin' "$W/dump.txt")" = 70 ] || fail "steps missing"
    "$BIN" dump --json -t env "$OUT"/*.sstrace | grep -q '"key":"cupti.reattached","value":"failed"' ||
        fail "no ENV cupti.reattached failed"
    ;;
every_refused)
    # record checks the spec before the program runs: one line, exit 2, the program not run.
    for spec in every:10,steps:10 every:1 every:0.05s every:10x every:5,steps:2-3; do
        "$BIN" record -o "$OUT" --capture "$spec" -- sh -c 'echo ran' >"$W/out.txt" 2>"$W/err"
        rc=$?
        [ $rc = 2 ] || fail "--capture $spec: exit $rc"
        [ "$(wc -l <"$W/err")" = 1 ] && grep -q "^stepscope record: --capture must be .*every:N\[,steps:L\] or every:T\[,steps:L\], not '$spec'" "$W/err" ||
            fail "--capture $spec: $(cat "$W/err")"
        ! grep -q ran "$W/out.txt" || fail "--capture $spec: the program ran"
    done
    ;;
cb_window_callbacks | cb_window_auto | cb_window_activity)
    # --capture steps:2-3, the window opening in the middle of a call. Before it CUPTI does
    # nothing but its start (clock, buffer callbacks, DEVICE 8 and CONTEXT 9 records) while
    # steps 0 and 1 are recorded; inside it, callbacks enabled mid-run deliver every call
    # (callbacks, auto) — the call the window opened in is not recorded, its entry unseen;
    # after it CUPTI is detached.
    method=${CASE#cb_window_}
    STEPSCOPE_API=$method "$BIN" record -o "$OUT" --capture steps:2-3 -- "$PROG" steps_calls \
        >"$W/out.txt" 2>"$W/err"
    [ $? = 0 ] || fail "exit status"
    grep -q "window done" "$W/out.txt" || fail "the program did not finish"
    open=$(line_after "^note step 2" 0)
    [ "$open" -gt 0 ] || fail "no step 2"
    [ "$(sed -n "1,${open}p" "$LOG" | grep -v '^subscribe ok$\|^unsubscribe$\|^register_\|^enable [89]$\|^note ' | wc -l)" = 0 ] ||
        fail "CUPTI was asked more than its start before the window: $(sed -n "1,${open}p" "$LOG" | grep -v '^note ' | tr '\n' ';')"
    [ "$(count_between '^subscribe ok' 1 "$open")" = 1 ] || fail "a subscription was held before the window"
    "$BIN" dump -t step,capture,api "$OUT"/*.sstrace >"$W/dump.txt" || fail "dump"
    won=$(grep -n "capture .*state=on reason=window" "$W/dump.txt" | cut -d: -f1)
    [ -n "$won" ] || fail "no window edge"
    [ "$(head -n "$won" "$W/dump.txt" | grep -c 'step .*phase=begin .*step=[01] ')" = 2 ] ||
        fail "steps 0 and 1 not recorded before the window"
    [ "$(head -n "$won" "$W/dump.txt" | grep -c '^api')" = 0 ] || fail "API records before the window"
    if [ "$method" = activity ]; then
        # Per-call activity records do not take mid-run: whole domains (4 driver, 5 runtime).
        grep -qx "enable 5" "$LOG" && grep -qx "enable 4" "$LOG" || fail "API domains not enabled"
    else
        ! grep -qx "enable 4\|enable 5" "$LOG" || fail "API activity kinds enabled for a mid-run window"
        [ "$(line_after "^enable_callback 2 211 1" "$open")" -gt 0 ] || fail "launch callbacks not enabled at the window"
        same_calls "$OUT"/*.sstrace
    fi
    "$BIN" dump --json -t env "$OUT"/*.sstrace | grep -q '"key":"cupti.detached","value":"1"' ||
        fail "not detached after the window"
    ;;
cb_race | cb_race_exit)
    # Four threads inside API calls and our callbacks without pause while the window closes,
    # the callbacks go off, CUPTI is detached (cb_race), or the program exits and the
    # collector stops under them (cb_race_exit): exit 0, a complete trace, sane records.
    if [ "$CASE" = cb_race ]; then
        STEPSCOPE_API=callbacks "$BIN" record -o "$OUT" --capture steps:1-3 -- "$PROG" race \
            >"$W/out.txt" 2>"$W/err"
    else
        STEPSCOPE_API=callbacks "$BIN" record -o "$OUT" -- "$PROG" race exit >"$W/out.txt" 2>"$W/err"
    fi
    [ $? = 0 ] || fail "exit status"
    grep -q "race done" "$W/out.txt" || fail "the program did not finish"
    "$BIN" info "$OUT"/*.sstrace >"$W/info.txt" 2>&1 || fail "trace unreadable"
    grep -q "complete" "$W/info.txt" || fail "trace not complete: $(head -5 "$W/info.txt")"
    api_rows "$OUT"/*.sstrace >"$W/got.txt"
    [ "$(wc -l <"$W/got.txt")" -gt 100 ] || fail "too few API records: $(wc -l <"$W/got.txt")"
    # Only the calls the threads make (cudaMemcpyAsync 41, cuLaunchKernel 307). The copy's
    # driver call inside it (cuMemcpyHtoDAsync_v2 277) only where the callbacks came on
    # between the copy's entry and its driver call: at most once per thread.
    ! awk '!(($1 == 1 && $2 == 41) || ($1 == 2 && ($2 == 307 || $2 == 277)))' "$W/got.txt" | grep -q . ||
        fail "unexpected API records: $(awk '!(($1 == 1 && $2 == 41) || ($1 == 2 && $2 == 307))' "$W/got.txt" | head -3)"
    [ "$(awk '$1 == 2 && $2 == 277' "$W/got.txt" | wc -l)" -le 4 ] || fail "driver calls inside runtime calls recorded"
    "$BIN" dump --json -t api "$OUT"/*.sstrace | grep -q '"dur_ns":-' && fail "an API record ends before it starts"
    if [ "$CASE" = cb_race ]; then
        "$BIN" dump --json -t env "$OUT"/*.sstrace | grep -q '"key":"cupti.detached","value":"1"' ||
            fail "not detached"
    fi
    ;;
cb_fork)
    # CUPTI does not survive fork(): the child's calls are not recorded (its trace has its
    # NVTX mark and no API record), the parent records on.
    STEPSCOPE_API=callbacks "$BIN" record -o "$OUT" -- "$PROG" fork >"$W/out.txt" 2>"$W/err"
    [ $? = 0 ] || fail "exit status"
    [ "$(ls "$OUT"/*.sstrace | wc -l)" = 2 ] || fail "not one trace per process: $(ls "$OUT")"
    child=""
    for t in "$OUT"/*.sstrace; do
        "$BIN" dump -t nvtx_mark "$t" | grep -q '"child"' && child=$t
    done
    [ -n "$child" ] || fail "no child trace with its mark"
    [ "$("$BIN" dump -t api "$child" | wc -l)" = 0 ] || fail "API records in the child's trace"
    for t in "$OUT"/*.sstrace; do [ "$t" = "$child" ] || parent=$t; done
    same_calls "$parent"
    ;;
cb_profiler)
    # The hand-over to torch.profiler gives the subscription back before Kineto subscribes;
    # after its stop the callbacks come back (a new subscription, launch callbacks on).
    STEPSCOPE_API=callbacks "$BIN" record -o "$OUT" -- "$PROG" >"$W/out.txt" 2>"$W/err"
    [ $? = 0 ] || fail "exit status"
    grep -q "kineto subscribe: ok" "$W/out.txt" || fail "Kineto could not subscribe: the collector held its subscription"
    kin=$(line_after "register_callbacks kineto" 0)
    [ "$(count_between "^enable_callback" 1 "$kin")" -gt 100 ] || fail "no callbacks before the profiler"
    fin=$(line_after "^finalize" "$kin")
    back=$(line_after "register_callbacks collector" "$fin")
    sub=$(line_after "^subscribe ok" "$back")
    [ "$back" -gt 0 ] && [ "$sub" -gt 0 ] && [ "$(line_after "^enable_callback 2 211 1" "$sub")" -gt 0 ] ||
        fail "callbacks not taken back after the profiler"
    ! grep -qx "enable 4\|enable 5" "$LOG" || fail "API activity kinds enabled"
    ;;
cb_watch | cb_watch_light)
    # No buffer comes back (another client took CUPTI's activity callbacks, no shim said so)
    # while API calls go through our callbacks: the watch's probe counts launches through our
    # own subscription (no second subscribe, which would fail and be taken for the takeover)
    # and finds the takeover in full mode. In light mode launches fill no CUPTI buffer: the
    # watch stays out of it (no false takeover).
    mode=full; [ "$CASE" = cb_watch_light ] && mode=light
    FAKE_CUPTI_SWALLOW=1 STEPSCOPE_API=callbacks "$BIN" record -o "$OUT" --mode $mode -- \
        "$PROG" launches 4.5 >"$W/out.txt" 2>"$W/err"
    [ $? = 0 ] || fail "exit status"
    grep -q "launches done" "$W/out.txt" || fail "the program did not finish"
    ! grep -q "^subscribe busy" "$LOG" || fail "a probe tried a second subscription"
    if [ $mode = full ]; then
        grep -q "took over CUPTI's activity buffers" "$W/err" || fail "takeover not noticed"
        [ "$(line_after "^unsubscribe" "$(line_after "enable_callback 2 211 1" 0)")" -gt 0 ] ||
            fail "API callbacks not given up after the takeover"
    else
        ! grep -q "took over" "$W/err" || fail "light mode: a takeover was guessed"
    fi
    ;;
pinned)
    # A GPU-bound step whose host runs ahead: each flush closes a buffer CUPTI must keep until
    # its kernels complete (the fake holds 20 before it hands the oldest back). The collector's
    # pool must outlast that queue: no record dropped (with 8 buffers it lost 12 per 20).
    FAKE_CUPTI_PIN=20 "$BIN" record -o "$OUT" -- "$PROG" launches 6.5 >"$W/out.txt" 2>"$W/err"
    [ $? = 0 ] || fail "exit status"
    grep -q "launches done" "$W/out.txt" || fail "the program did not finish"
    grep -q "^pinned 20$" "$LOG" || fail "the fake never held 20 buffers: $(grep pinned "$LOG" | tail -1)"
    "$BIN" dump -t dropped "$OUT"/*.sstrace >"$W/dropped.txt" || fail "dump"
    ! grep -q "source=cupti" "$W/dropped.txt" || fail "records dropped: $(head -3 "$W/dropped.txt")"
    ;;
cost)
    # COST records: the API callbacks (2000 calls, one in 16 timed), the NVTX callbacks, the
    # writer's rounds and the thread's name, with time in them.
    STEPSCOPE_API=callbacks "$BIN" record -o "$OUT" --capture steps:1-1 -- "$PROG" bench 2000 \
        >"$W/out.txt" 2>"$W/err"
    [ $? = 0 ] || fail "exit status"
    grep -q "^bench api_call_off_ns" "$W/out.txt" || fail "no bench line"
    "$BIN" dump -t cost "$OUT"/*.sstrace >"$W/cost.txt" || fail "dump"
    last() { grep "kind=$1 " "$W/cost.txt" | tail -1 | sed -n "s/.* $2=\([0-9]*\).*/\1/p"; }
    [ "$(last api_callback events)" = 2000 ] && [ "$(last api_callback timed)" = 125 ] ||
        fail "api_callback: $(grep api_callback "$W/cost.txt" | tail -1)"
    [ "$(last api_callback ns)" -gt 0 ] || fail "api_callback without time"
    [ "$(last nvtx_callback events)" -ge 4000 ] && [ "$(last nvtx_callback ns)" -gt 0 ] ||
        fail "nvtx_callback: $(grep nvtx_callback "$W/cost.txt" | tail -1)"
    grep -q "kind=thread_name .*events=1 " "$W/cost.txt" || fail "no thread_name cost"
    grep -q "kind=cupti_control " "$W/cost.txt" || fail "no cupti_control cost (window edges)"
    ;;
environ)
    # The environment record is the one the collector started with, copied on the program's
    # thread: a variable set before is there, the 400 the program sets while the writer starts
    # are not (and, under ThreadSanitizer, no race with the program's setenv).
    TORCH_STEPSCOPE_TEST_BEFORE=before "$BIN" record -o "$OUT" -- "$PROG" environ \
        >"$W/out.txt" 2>"$W/err"
    [ $? = 0 ] || fail "exit status"
    "$BIN" dump --json -t env "$OUT"/*.sstrace >"$W/env.txt" || fail "dump"
    grep -q '"key":"env.TORCH_STEPSCOPE_TEST_BEFORE","value":"before"' "$W/env.txt" ||
        fail "the variable set before the start is missing: $(grep -c . "$W/env.txt") env records"
    grep -q 'TORCH_STEPSCOPE_TEST_[0-9]' "$W/env.txt" &&
        fail "variables set after the start were recorded (environ read late)"
    grep -q '"key":"collector.capture","value":"auto"' "$W/env.txt" ||
        fail "collector.capture is not record's default (auto)"
    ;;
*)
    fail "unknown case"
    ;;
esac
echo "ok: $CASE"
