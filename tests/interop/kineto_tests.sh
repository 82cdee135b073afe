#!/bin/bash
# Kineto JSON import end to end, on the torch.profiler captures of tests/fixtures/workloads/kineto
# (H200, torch 2.11) and the native traces of the same cases (different runs: per-step shapes
# are compared, not numbers). Usage: kineto_tests.sh CASE STEPSCOPE FIXTURES WORKDIR PYTHON
#   fixtures   each capture imports (.json.gz and its plain .json give the same records),
#              report --format json works, one step per ProfilerStep#N range
#   compare    kernels and kernel time per step as in the native trace; the planted cause's
#              finding where the native trace has it, gone in the fixed twin
#   malformed  truncated, flipped, empty, foreign and hostile inputs: exit 1, one line, no file
#   cli        report/diff/info/dump/export read captures directly; temporaries removed;
#              import's usage errors; folders of native traces still work
set -u
case_name=$1 ss=$2 fx=$3 work=$4 py=$5
rm -rf "$work" && mkdir -p "$work/tmp" || exit 1
export TMPDIR=$work/tmp
# under ASan/UBSan (STEPSCOPE_SANITIZE) a report must not pass for an ordinary exit 1
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}exitcode=86"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}halt_on_error=1:exitcode=87"
fail() { echo "FAILED: $*" >&2; exit 1; }
kin=$fx/workloads/kineto
native=$fx/workloads/traces
cases="cnn_jpeg-data cnn_jpeg-none wide-pageable wide-none mlp-sync mlp-none"

# no_leftovers DIR: nothing but what the test put there (no .tmp, no stepscope-import-*)
no_leftovers() {
    local left
    left=$(find "$1" -maxdepth 1 \( -name '*.tmp*' -o -name 'stepscope-import-*' \) | head -3)
    [ -z "$left" ] || fail "left behind: $left"
}

# expect_error FILE LABEL: import fails cleanly
expect_error() {
    local err rc
    err=$("$ss" import "$1" -o "$work/bad.sstrace" 2>&1 >/dev/null); rc=$?
    [ $rc -eq 1 ] || fail "$2: exit $rc (want 1): $err"
    [ "$(wc -l <<<"$err")" -eq 1 ] || fail "$2: not one line: $err"
    grep -q '^stepscope import: ' <<<"$err" || fail "$2: message: $err"
    [ ! -e "$work/bad.sstrace" ] || fail "$2: output file left"
    no_leftovers "$work"
}

# expect_cut FILE LABEL MUST_IMPORT: a capture cut short is refused by import (exit 1, one line
# naming the cut, nothing written) unless --accept-damage, which imports it up to its last
# complete event, says so once, and marks the trace (its DAMAGE record: report and info say
# it); with no complete event it is refused either way; never passed off as whole (issue #41).
# MUST_IMPORT=1: the cut leaves events, it must import with --accept-damage.
expect_cut() {
    local err rc
    rm -f "$work/cut.sstrace"
    err=$("$ss" import -q "$1" -o "$work/cut.sstrace" 2>&1 >/dev/null); rc=$?
    [ $rc -eq 1 ] || fail "$2: a cut capture imported without --accept-damage: $err"
    expect_error "$1" "$2"
    err=$("$ss" import -q --accept-damage "$1" -o "$work/cut.sstrace" 2>&1 >/dev/null); rc=$?
    if [ $rc -ne 0 ]; then
        [ "$3" = 0 ] || fail "$2: refused: $err"
        expect_error "$1" "$2"
        return
    fi
    grep -q 'warning: incomplete input (truncated: ' <<<"$err" || fail "$2: not said: $err"
    "$ss" report --accept-damage "$work/cut.sstrace" | grep -q 'truncated: the imported capture ends' ||
        fail "$2: imported but not marked truncated"
    "$ss" info "$work/cut.sstrace" >/dev/null 2>&1 && fail "$2: info reads the import as whole"
    no_leftovers "$work"
}

# no_crash FILE LABEL: import may succeed (a flipped byte inside a name is still JSON) or fail,
# never crash; a success is a readable trace
no_crash() {
    local rc
    "$ss" import "$1" -o "$work/maybe.sstrace" >/dev/null 2>"$work/maybe.err"; rc=$?
    [ $rc -le 1 ] || fail "$2: exit $rc: $(head -c 500 "$work/maybe.err")"
    if [ $rc -eq 0 ]; then
        "$ss" info "$work/maybe.sstrace" >/dev/null || fail "$2: imported trace unreadable"
        "$ss" report "$work/maybe.sstrace" >/dev/null || fail "$2: report on it failed"
    else
        [ ! -e "$work/maybe.sstrace" ] || fail "$2: output file left after an error"
    fi
    rm -f "$work/maybe.sstrace"
    no_leftovers "$work"
}

case $case_name in
fixtures)
    for c in $cases; do
        "$ss" import "$kin/$c.json.gz" -o "$work/$c.sstrace" || fail "$c: import exit $?"
        "$ss" report --format json -v "$work/$c.sstrace" >"$work/$c.report.json" ||
            fail "$c: report exit $?"
        gzip -dc "$kin/$c.json.gz" >"$work/$c.json" || fail "$c: gunzip"
        "$ss" import "$work/$c.json" -o "$work/$c.plain.sstrace" || fail "$c: plain import"
        # the same records, but for the import.source path
        "$ss" dump --json "$work/$c.sstrace" | grep -v "$kin/$c.json.gz" >"$work/a.jsonl"
        "$ss" dump --json "$work/$c.plain.sstrace" | grep -v "$work/$c.json" >"$work/b.jsonl"
        cmp -s "$work/a.jsonl" "$work/b.jsonl" || fail "$c: gzip and plain imports differ"
        "$py" - "$work/$c.json" "$work/$c.report.json" <<'PYEOF' || fail "$c: steps"
import json, sys
events = json.load(open(sys.argv[1]))["traceEvents"]
marks = [e for e in events if e.get("ph") == "X" and e.get("cat") == "user_annotation"
         and e.get("name", "").startswith("ProfilerStep#")]
r = json.load(open(sys.argv[2]))
assert r["steps"]["source"] == "profiler", r["steps"]
assert r["steps"]["total"] == len(marks) and len(marks) > 0, (r["steps"]["total"], len(marks))
nums = sorted(int(e["name"].split("#")[1]) for e in marks)
assert [s["number"] for s in r["step_list"]] == nums, r["step_list"]
kernels = sum(1 for e in events if e.get("cat") == "kernel")
assert r["trace"]["kernels"] == kernels, (r["trace"]["kernels"], kernels)
for s in r["step_list"]:
    assert sum(s["cat_ns"].values()) == s["end_ns"] - s["begin_ns"]
PYEOF
        rm -f "$work/$c.json" "$work/$c.plain.sstrace"
    done
    no_leftovers "$work"
    ;;
compare)
    for c in $cases; do
        "$ss" report --format json "$kin/$c.json.gz" >"$work/$c.imp.json" || fail "$c: exit $?"
        "$ss" report --format json "$native/$c.sstrace" >"$work/$c.nat.json" || fail "$c: native"
    done
    "$py" - "$work" <<'PYEOF' || fail "import vs native"
import json, os, sys
w = sys.argv[1]
def load(c, kind):
    return json.load(open(os.path.join(w, "%s.%s.json" % (c, kind))))
def kernel_ms(r):
    return sum(k["kernel_ms_per_step"] for k in r["kernel_classes"])
def ids(r):
    return [f["id"] for f in r["findings"]]
bad = []
for c in ["cnn_jpeg-data", "cnn_jpeg-none", "wide-pageable", "wide-none", "mlp-sync", "mlp-none"]:
    imp, nat = load(c, "imp"), load(c, "nat")
    # GPU work is what the profiler does not slow: kernels per step agree within 2 %, kernel
    # time per step within 10 % (GPU clocks vary between runs; the host side does not
    # compare: torch.profiler slows it, 1.2-1.8x on launch-bound steps)
    ki, kn = imp["per_step"]["kernels"], nat["per_step"]["kernels"]
    if abs(ki - kn) > 0.02 * kn: bad.append("%s: kernels/step %.1f vs %.1f" % (c, ki, kn))
    ti, tn = kernel_ms(imp), kernel_ms(nat)
    if abs(ti - tn) > 0.10 * tn: bad.append("%s: kernel ms/step %.3f vs %.3f" % (c, ti, tn))
    print("%-14s kernels/step %6.1f vs %6.1f  kernel ms/step %7.3f vs %7.3f  findings %s vs %s"
          % (c, ki, kn, ti, tn, ids(imp), ids(nat)))
# pageable: the same copies (blocking ones start inside their step; async ones of the fixed
# twins may start in the step before, so their counts are not compared)
imp, nat = load("wide-pageable", "imp"), load("wide-pageable", "nat")
for k in ("h2d_copies", "h2d_mib", "pageable_h2d_mib"):
    if abs(imp["per_step"][k] - nat["per_step"][k]) > 0.02 * nat["per_step"][k]:
        bad.append("wide-pageable: %s %s vs %s" % (k, imp["per_step"][k], nat["per_step"][k]))
# the planted cause is the top finding, as in the native trace
for c, top in (("wide-pageable", "pageable_h2d"), ("cnn_jpeg-data", "data_loading"),
               ("mlp-sync", "sync_points")):
    imp, nat = load(c, "imp"), load(c, "nat")
    if not (ids(imp)[:1] == ids(nat)[:1] == [top]):
        bad.append("%s: top finding %s vs native %s" % (c, ids(imp)[:1], ids(nat)[:1]))
# mlp-sync with the native trace's evidence (11 synchronising calls and 11 D2H copies per
# step). Its margin over launch_bound is small in the capture (3.9 vs 3.6 ms/step): its own
# post-sync host work is 2.6 ms/step (aten::argmax on the CPU 0.7 ms) against 14.3 ms in the
# native run, and torch.profiler inflates launch time: different runs, not the import
imp, nat = load("mlp-sync", "imp"), load("mlp-sync", "nat")
for k in ("syncs",):
    if abs(imp["per_step"][k] - nat["per_step"][k]) > 0.5:
        bad.append("mlp-sync: %s/step %s vs %s" % (k, imp["per_step"][k], nat["per_step"][k]))
# the fixed twins: the planted cause's finding is gone
for c, gone in (("wide-none", "pageable_h2d"), ("mlp-none", "sync_points"),
                ("cnn_jpeg-none", "data_loading")):
    if gone in ids(load(c, "imp")): bad.append("%s: still %s" % (c, gone))
assert not bad, "\n".join(bad)
PYEOF
    no_leftovers "$work/tmp"
    ;;
malformed)
    src=$kin/wide-pageable.json.gz
    gzip -dc "$src" >"$work/plain.json"
    for f in "$src" "$work/plain.json"; do
        size=$(stat -c %s "$f")
        for cut in 1 2 100 $((size / 100)) $((size / 3)) $((size / 2)); do
            head -c "$cut" "$f" >"$work/cut"
            expect_cut "$work/cut" "$(basename "$f") cut at $cut" 0
        done
        for cut in $((size - size / 100)) $((size - 10)) $((size - 1)); do
            head -c "$cut" "$f" >"$work/cut"
            expect_cut "$work/cut" "$(basename "$f") cut at $cut" 1
        done
    done
    # flipped bytes: gzip's check catches them; plain JSON may stay JSON (then it imports)
    for f in "$src" "$work/plain.json"; do
        size=$(stat -c %s "$f")
        for at in 20 $((size / 7)) $((size / 2)) $((size - 20)); do
            "$py" -c 'import sys; d = bytearray(open(sys.argv[1], "rb").read())
i = int(sys.argv[2]); d[i] ^= 0x5a; open(sys.argv[3], "wb").write(d)' "$f" "$at" "$work/flip"
            no_crash "$work/flip" "$(basename "$f") flipped at $at"
        done
    done
    : >"$work/empty.json"
    expect_error "$work/empty.json" "empty"
    printf '[]' >"$work/arr.json"; expect_error "$work/arr.json" "[]"
    printf '{"traceEvents": 5}' >"$work/te.json"; expect_error "$work/te.json" "traceEvents: 5"
    printf '{"a": 1}' >"$work/obj.json"; expect_error "$work/obj.json" "no traceEvents"
    "$py" -c 'import sys; n = 200000; open(sys.argv[1], "w").write("[" * n + "]" * n)' \
        "$work/deep1.json"
    expect_error "$work/deep1.json" "nested arrays"
    "$py" -c 'import sys; n = 200000
open(sys.argv[1], "w").write("{\"traceEvents\": [{\"args\": " + "[" * n + "]" * n + "}]}")' \
        "$work/deep2.json"
    expect_error "$work/deep2.json" "nested arrays in an event"
    "$py" -c 'import sys; open(sys.argv[1], "w").write("{\"traceEvents\": [{\"name\": \"" +
"x" * (17 << 20) + "\"}]}")' "$work/huge.json"
    expect_error "$work/huge.json" "17 MiB string"
    printf '{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": 1e999, "dur": 1}]}' \
        >"$work/absurd.json"
    expect_error "$work/absurd.json" "absurd ts"
    printf '{"traceEvents": [{"ph": "X", "cat": "kernel", "name": {}, "ts": 1, "dur": 1}]}' \
        >"$work/type.json"
    expect_error "$work/type.json" "name of the wrong type"
    printf '{"traceEvents": [{"ph": "X", "cat": "Renderer", "name": "Paint", "ts": 1, "dur": 1}]}' \
        >"$work/chrome.json"
    expect_error "$work/chrome.json" "a browser's trace"
    head -c 3000 /dev/urandom >"$work/noise"
    "$ss" import "$work/noise" -o "$work/bad.sstrace" >/dev/null 2>&1
    [ $? -eq 1 ] || fail "noise: want 1"
    # report on a hostile capture: the same one line, no temporary left in TMPDIR
    err=$("$ss" report "$work/te.json" 2>&1 >/dev/null); rc=$?
    [ $rc -eq 1 ] || fail "report on a bad capture: exit $rc"
    grep -q '^stepscope report: .*te.json: "traceEvents" is a number' <<<"$err" ||
        fail "report message: $err"
    no_leftovers "$work/tmp"
    ;;
cli)
    cap=$kin/wide-pageable.json.gz
    out=$("$ss" report "$cap") || fail "report exit $?"
    grep -q "^stepscope report: .*wide-pageable.json.gz\$" <<<"$out" || fail "report names the capture: $out"
    grep -q '1. \[high\] H2D copies from pageable memory' <<<"$out" || fail "finding: $out"
    "$ss" report --format json "$cap" | "$py" -c 'import json, sys
d = json.load(sys.stdin); assert d["file"] == sys.argv[1], d["file"]' "$cap" || fail "json file"
    "$ss" diff "$cap" "$kin/wide-none.json.gz" | grep -q 'faster' || fail "diff"
    "$ss" info "$cap" | grep -q 'clock synthetic' || fail "info"
    "$ss" info --json "$cap" >/dev/null || fail "info --json"
    "$ss" dump "$cap" -t kernel -n 1 | grep -q '^kernel' || fail "dump"
    "$ss" export "$cap" -o "$work/p.json" || fail "export exit $?"
    "$py" -c 'import json, sys; d = json.load(open(sys.argv[1]))
assert any(e.get("name") == "ProfilerStep#9" for e in d["traceEvents"])' "$work/p.json" ||
        fail "export content"
    "$ss" report "$native/wide-pageable.sstrace" "$cap" >/dev/null || fail "native + capture"
    "$ss" report "$native/cnn_dp-none" >/dev/null || fail "a folder of native traces"
    no_leftovers "$work/tmp"
    [ -z "$(ls -A "$work/tmp")" ] || fail "TMPDIR not empty: $(ls "$work/tmp")"
    # import's usage and input errors
    # no -o: next to the input (its .json.gz replaced by .sstrace), never over a file
    cp "$cap" "$work/next.json.gz"
    "$ss" import -q "$work/next.json.gz" || fail "no -o: exit $?"
    [ -s "$work/next.sstrace" ] || fail "no -o: nothing next to the input"
    "$ss" import -q "$work/next.json.gz" 2>/dev/null; [ $? -eq 1 ] || fail "no -o again: want 1"
    "$ss" import "$cap" "$cap" -o "$work/x.sstrace" >/dev/null 2>&1; [ $? -eq 2 ] ||
        fail "two inputs: want 2"
    "$ss" import --help | grep -q 'usage: stepscope import' || fail "--help"
    "$ss" --help | grep -q '^  import' || fail "verb not listed"
    err=$("$ss" import "$native/wide-none.sstrace" -o "$work/x.sstrace" 2>&1); [ $? -eq 1 ] ||
        fail "native input: want 1"
    grep -q 'already a stepscope trace' <<<"$err" || fail "native input: $err"
    "$ss" import "$work" -o "$work/x.sstrace" >/dev/null 2>&1; [ $? -eq 1 ] || fail "folder"
    "$ss" import "$work/missing.json" -o "$work/x.sstrace" >/dev/null 2>&1; [ $? -eq 1 ] ||
        fail "missing input"
    "$ss" import "$cap" -o "$work/no/such/dir/x.sstrace" >/dev/null 2>&1; [ $? -eq 1 ] ||
        fail "unwritable output"
    [ ! -e "$work/x.sstrace" ] || fail "output written after an error"
    # an existing output is replaced whole
    echo junk >"$work/y.sstrace"
    "$ss" import "$cap" -o "$work/y.sstrace" || fail "over an existing file"
    "$ss" info "$work/y.sstrace" >/dev/null || fail "replaced output unreadable"
    no_leftovers "$work"
    ;;
*) fail "unknown case $case_name" ;;
esac
echo ok
