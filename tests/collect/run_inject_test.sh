#!/bin/sh
# run_inject_test.sh CASE STEPSCOPE NVTX_PROG CHECK_TRACE WORKDIR
# `stepscope record` when another tool (nsys, a profiler that runs record) already set
# CUDA_INJECTION64_PATH and/or NVTX_INJECTION64_PATH: its library stays, record says so in one
# stderr line, the trace carries the mark, and with both taken the program runs unchanged
# without a trace. No GPU here: the collector loads through NVTX only, as it does on a GPU
# machine when the CUDA injection belongs to the other tool.
#   foreign_cuda  the child sees the other CUDA library; one notice; NVTX recorded; marked
#   foreign_nvtx  the child sees the other NVTX library; one notice; the collector's mark
#   foreign_both  one line, no trace, no folder, environment untouched, exit status kept
#   own_lib       our library already there (a link to it, a nested record): no notice
set -u
CASE=$1 BIN=$2 PROG=$3 CHECK=$4 W=$5
rm -rf "$W" && mkdir -p "$W" || exit 1
OUT="$W/out"
LIB=$(cd "$(dirname "$BIN")" && pwd -P)/libstepscope.so
OTHER=/opt/other-tool/libToolsInjection64.so # need not exist: it is the other tool's business

# watched LIMIT CMD...: a hang prints every process's backtraces (watch.sh)
. "$(dirname "$0")/watch.sh"

fail() { echo "FAIL [$CASE]: $*"; sed 's/^/  stderr: /' "$W/err" 2>/dev/null; exit 1; }
expect_rc() { [ "$1" = "$2" ] || fail "exit status $1, expected $2"; }
# A run with no NVTX call writes no trace; where CUDA cannot start (no driver: issue #41) record
# cannot tell whether the program tried, says why and exits 3 instead of the program's 0.
expect_ok_or_nodriver() {
    [ "$1" = 0 ] || { [ "$1" = 3 ] && grep -q 'CUDA cannot start here' "$W/err"; } ||
        fail "exit status $1, expected 0 (or 3 where CUDA cannot start)"
}
# count_err PATTERN: stderr lines matching it
count_err() { grep -c "$1" "$W/err"; }
expect_line() { [ "$(sed -n "${1}p" "$W/out.txt")" = "$2" ] || fail "stdout line $1: '$(sed -n "${1}p" "$W/out.txt")', expected '$2'"; }
# The child prints the variables record hands it, then becomes PROG (or exits).
SHOW='echo "${CUDA_INJECTION64_PATH-unset}|${NVTX_INJECTION64_PATH-unset}|${STEPSCOPE_FOREIGN_CUDA_INJECTION-unset}|${STEPSCOPE_FOREIGN_NVTX_INJECTION-unset}"'

case $CASE in
foreign_cuda)
    # nvtx_prog normal fork()s while its threads record (CI hung here once: nvtx_prog.c)
    watched 40 env CUDA_INJECTION64_PATH=$OTHER "$BIN" record -o "$OUT" -- sh -c "$SHOW; exec \"\$0\" normal" "$PROG" \
        >"$W/out.txt" 2>"$W/err"
    expect_rc $? 3
    expect_line 1 "$OTHER|$LIB|$OTHER|unset"
    [ "$(count_err '^stepscope record: CUDA_INJECTION64_PATH names another tool')" = 1 ] ||
        fail "not one notice line"
    [ "$(count_err "^stepscope record: .*($OTHER), which keeps the GPU activity")" = 1 ] ||
        fail "the notice does not name the library"
    "$CHECK" normal "$OUT" >"$W/check.txt" || { cat "$W/check.txt"; fail "NVTX trace check"; }
    for t in "$OUT"/*.sstrace; do # the fork()ed child's trace is marked too
        "$BIN" info "$t" >"$W/info.txt" 2>&1 || fail "info $t"
        grep -q "warn cupti_conflict: .*CUDA_INJECTION64_PATH=$OTHER" "$W/info.txt" ||
            fail "info shows no conflict notice for $t"
        ! grep -q "^  features .*cupti" "$W/info.txt" || fail "feature cupti set without CUPTI"
        "$BIN" dump -t env,capture "$t" >"$W/dump.txt" 2>&1 || fail "dump $t"
        grep -qx "env  *key=\"collector.foreign_cuda_injection\" value=\"$OTHER\"" "$W/dump.txt" ||
            fail "no collector.foreign_cuda_injection in $t"
        grep -q "state=off reason=conflict what=gpu$" "$W/dump.txt" || fail "no GPU conflict capture in $t"
        # the report says the GPU was elsewhere instead of calling every instant GPU idle
        "$BIN" report "$t" >"$W/report.txt" 2>&1 || fail "report $t"
        grep -q "GPU activity was left to another tool ($OTHER)" "$W/report.txt" ||
            fail "report does not say the GPU was left to $OTHER"
        ! grep -q "every instant counts as GPU idle" "$W/report.txt" || fail "report calls it GPU idle"
        "$BIN" report --format json "$t" | grep -q "\"gpu_left_to\": \"$OTHER\"" ||
            fail "json gpu_left_to is not $OTHER"
    done
    # no NVTX call, CUDA left to the other tool: no trace, and the summary says why
    CUDA_INJECTION64_PATH=$OTHER "$BIN" record -o "$W/none" -- sh -c "$SHOW" >"$W/out.txt" 2>"$W/err"
    expect_rc $? 0
    [ "$(count_err 'no trace: the program made no NVTX call (its CUDA calls went to the other tool)')" = 1 ] ||
        fail "no-trace line does not say the CUDA calls went to the other tool"
    # -q: no notice (as the collector's own warnings); the variable still stays
    CUDA_INJECTION64_PATH=$OTHER "$BIN" record -q -o "$OUT" -- sh -c "$SHOW" >"$W/out.txt" 2>"$W/err"
    expect_rc $? 0
    expect_line 1 "$OTHER|$LIB|$OTHER|unset"
    [ ! -s "$W/err" ] || fail "stderr with -q"
    ;;
foreign_nvtx)
    NVTX_INJECTION64_PATH=$OTHER "$BIN" record -o "$OUT" --no-report -- sh -c "$SHOW" \
        >"$W/out.txt" 2>"$W/err"
    expect_ok_or_nodriver $?
    expect_line 1 "$LIB|$OTHER|unset|$OTHER"
    [ "$(count_err "^stepscope record: NVTX_INJECTION64_PATH names another tool ($OTHER)")" = 1 ] ||
        fail "not one notice line"
    # The collector's side, loaded as the CUDA driver would load it (here through NVTX, the
    # only door without a GPU), told what record left to the other tool.
    mkdir -p "$OUT" # record removed it: that run wrote no trace into it
    NVTX_INJECTION64_PATH=$LIB STEPSCOPE_OUTPUT_DIR="$OUT" STEPSCOPE_FOREIGN_NVTX_INJECTION=$OTHER \
        "$PROG" steps >/dev/null 2>"$W/err"
    expect_rc $? 0
    [ ! -s "$W/err" ] || fail "the collector spoke: record already did"
    "$BIN" dump -t env,capture,notice "$OUT"/*.sstrace >"$W/dump.txt" 2>&1 || fail "dump"
    grep -qx "env  *key=\"collector.foreign_nvtx_injection\" value=\"$OTHER\"" "$W/dump.txt" ||
        fail "no collector.foreign_nvtx_injection"
    grep -q "state=off reason=conflict what=nvtx$" "$W/dump.txt" || fail "no NVTX conflict capture"
    grep -q "level=warn code=other .*NVTX_INJECTION64_PATH=$OTHER" "$W/dump.txt" || fail "no notice"
    ;;
foreign_both)
    watched 40 env CUDA_INJECTION64_PATH=$OTHER NVTX_INJECTION64_PATH=/x/nvtx.so PYTHONPATH=/old \
        "$BIN" record -o "$OUT" -- sh -c "$SHOW"'; echo "${STEPSCOPE_OUTPUT_DIR-unset}|$PYTHONPATH"; exec "$0" normal' \
        "$PROG" >"$W/out.txt" 2>"$W/err"
    expect_rc $? 3
    expect_line 1 "$OTHER|/x/nvtx.so|unset|unset"
    expect_line 2 "unset|/old"
    # (LeakSanitizer's notes about nvtx_prog's fork()ed child are not ours)
    [ "$(grep -vc '^==[0-9]*==' "$W/err")" = 1 ] || fail "not exactly one stderr line"
    grep -q "^stepscope record: CUDA_INJECTION64_PATH ($OTHER) and NVTX_INJECTION64_PATH (/x/nvtx.so) .*no stepscope trace will be written" \
        "$W/err" || fail "no 'no trace' line"
    [ ! -e "$OUT" ] || fail "an output folder was made for a run without a trace"
    # said with -q too; a death by signal is passed on
    CUDA_INJECTION64_PATH=$OTHER NVTX_INJECTION64_PATH=/x/nvtx.so \
        "$BIN" record -q -o "$OUT" -- sh -c 'kill -TERM $$' >/dev/null 2>"$W/err"
    expect_rc $? 143
    [ "$(count_err 'no stepscope trace will be written')" = 1 ] || fail "-q hid the 'no trace' line"
    ;;
own_lib)
    ln -s "$LIB" "$W/link.so"
    STEPSCOPE_FOREIGN_CUDA_INJECTION=/stale CUDA_INJECTION64_PATH="$W/link.so" NVTX_INJECTION64_PATH=$LIB \
        "$BIN" record -o "$OUT" --no-report -- sh -c "$SHOW" >"$W/out.txt" 2>"$W/err"
    expect_ok_or_nodriver $?
    expect_line 1 "$LIB|$LIB|unset|unset"
    [ "$(count_err 'another tool')" = 0 ] || fail "a notice for our own library"
    CUDA_INJECTION64_PATH='' "$BIN" record -o "$OUT" --no-report -- sh -c "$SHOW" >"$W/out.txt" 2>"$W/err"
    expect_line 1 "$LIB|$LIB|unset|unset"
    [ "$(count_err 'another tool')" = 0 ] || fail "a notice for an empty variable"
    # record inside record: the inner one finds our library, says nothing, records
    "$BIN" record -o "$W/outer" --no-report -- "$BIN" record -o "$OUT.inner" --no-report -- "$PROG" steps \
        >/dev/null 2>"$W/err"
    expect_ok_or_nodriver $? # the outer record's folder gets no trace
    [ "$(count_err 'another tool')" = 0 ] || fail "nested record gave a notice"
    [ "$(ls "$OUT.inner"/*.sstrace | wc -l)" = 1 ] || fail "the inner record wrote no trace"
    ;;
*)
    fail "unknown case"
    ;;
esac
echo "ok: $CASE"
