#!/usr/bin/env bash
# The failures of issue #41, item 1, one case each, on the committed fixtures: every verb and
# format says when its input is damaged and exits 1 unless --accept-damage, which says it once.
#
#   damage_cases.sh CASE STEPSCOPE RECHUNK FIXTURES WORKDIR PYTHON
set -u
case_name=$1 ss=$2 rechunk=$3 fx=$4 work=$5 py=$6
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}exitcode=86"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}halt_on_error=1:exitcode=87"

fail() { echo "FAILED [$case_name]: $*" >&2; exit 1; }
# run WANT LABEL CMD...: stdout to ./out, stderr to ./err; the exit status must be WANT
run() {
    local want=$1 label=$2 rc
    shift 2
    timeout 120 "$@" >out 2>err; rc=$?
    [ $rc -eq "$want" ] || fail "$label: exit $rc, want $want: $(head -c 600 err)"
    ! grep -qE 'Sanitizer|runtime error:' err || fail "$label: sanitizer: $(head -c 2000 err)"
}
# run_any CMD...: as run, any exit status (in $rc)
run_any() {
    timeout 120 "$@" >out 2>err; rc=$?
    [ $rc -lt 80 ] || fail "$*: exit $rc: $(head -c 600 err)"
    ! grep -qE 'Sanitizer|runtime error:' err || fail "$*: sanitizer: $(head -c 2000 err)"
}
said() { grep -q -- "$2" err || fail "$1: stderr lacks '$2': $(head -c 600 err)"; }
# once LABEL: with --accept-damage, the damage said exactly once
once() {
    [ "$(grep -c 'warning: \(damaged\|incomplete\) input' err)" = 1 ] ||
        fail "$1: the damage not said once: $(cat err)"
}
mutate() { "$py" "$here/mutate.py" "$rechunk" "$@" >/dev/null || fail "mutate.py $*"; }

mlp=$fx/workloads/traces/mlp-sync.sstrace
kin=$fx/workloads/kineto/mlp-sync.json.gz

case $case_name in
export_cut)
    # export -f nvtxt of a cut trace exited 0 without a word (also folded, also with --time)
    head -c 168436 "$mlp" >cut.sstrace
    for f in nvtxt folded; do
        for w in "" "--time 0-3"; do
            rm -f c.$f
            # shellcheck disable=SC2086
            run 1 "export -f $f $w" "$ss" export -f $f $w cut.sstrace -o c.$f
            said "export $f" "incomplete input (truncated: the trace has no end"
            said "export $f" "nothing written"
            [ ! -e c.$f ] || fail "export $f $w wrote c.$f"
            # accepted: said once, then written (the cut part of the run has no Python samples
            # to fold: folded says that instead)
            [ $f = nvtxt ] && want=0 || want=1
            # shellcheck disable=SC2086
            run $want "export -f $f $w --accept-damage" "$ss" export -q --accept-damage -f $f $w cut.sstrace -o c.$f
            once "export $f $w"
            [ $f = nvtxt ] && { [ -s c.$f ] || fail "export $f $w --accept-damage wrote nothing"; }
            [ $f = folded ] && said "folded" "nothing to fold"
        done
    done
    grep -q '^# damaged input: truncated: the trace has no end' c.nvtxt || fail "nvtxt not marked"
    run 1 "perfetto" "$ss" export cut.sstrace -o c.json
    run 0 "perfetto accepted" "$ss" export -q --accept-damage cut.sstrace -o c.json
    "$py" -c 'import json,sys; m=json.load(open("c.json"))["metadata"]; assert m["trace-state"] == "incomplete" and m["damage"]["truncated"] == 1, m' ||
        fail "perfetto metadata"
    ;;
kineto_cut)
    # a Kineto JSON cut at 50 %: info said "state complete", import, export and dump exit 0
    zcat "$kin" >k.json
    head -c $(($(stat -c %s k.json) / 2)) k.json >cut.json
    run 1 "info" "$ss" info cut.json
    grep -q 'state .*DAMAGED: truncated: the JSON ends at byte' out || fail "info state: $(grep state out)"
    run 0 "info --json --accept-damage" "$ss" info --json --accept-damage cut.json
    once "info --json"
    "$py" -c 'import json; d=json.load(open("out")); assert d["truncated"] and d["damaged"] and d["damage"]["truncated"] == 1, d["state"]' ||
        fail "info --json: not truncated"
    run 1 "import" "$ss" import cut.json -o c.sstrace
    said "import" "incomplete input (truncated: the JSON ends at byte"
    [ ! -e c.sstrace ] || fail "import wrote c.sstrace"
    run 1 "import from stdin" sh -c "'$ss' import -o c.sstrace - <cut.json"
    [ ! -e c.sstrace ] || fail "import from stdin wrote c.sstrace"
    run 0 "import --accept-damage" sh -c "'$ss' import -q --accept-damage -o c.sstrace - <cut.json"
    once "import --accept-damage"
    run 1 "info of the kept import" "$ss" info c.sstrace
    said "info of the import" "truncated: the JSON ends at byte"
    run 1 "export" "$ss" export cut.json -o c.perfetto.json
    run 1 "dump" "$ss" dump cut.json
    said "dump" "incomplete input"
    ;;
nsys_corrupt)
    # one flipped bit: PRAGMA integrity_check fails, the file was read without a word (rows lost)
    xz -dc "$fx/workloads/nsys/wide-none.sqlite.xz" >w.sqlite
    "$py" -c 'import sys; d = bytearray(open("w.sqlite", "rb").read()); d[267459] ^= 1 << 1
open("f.sqlite", "wb").write(d)'
    "$py" -c 'import sqlite3; assert sqlite3.connect("f.sqlite").execute("pragma integrity_check").fetchone()[0] != "ok"' ||
        fail "the flipped file passes integrity_check: pick another bit"
    for v in report info dump; do
        run 1 "$v" "$ss" $v f.sqlite
        said "$v" "damaged input (corrupt: SQLite quick_check"
    done
    run 1 "import" "$ss" import f.sqlite -o f.sstrace
    run 0 "report --accept-damage" "$ss" report --accept-damage f.sqlite
    once "report --accept-damage"
    run 0 "the whole file" "$ss" report w.sqlite
    ;;
chunks_swapped)
    # two chunks swapped, checksums valid: report made 20 ms steps of a run of 10 ms steps
    mutate sst swap 5 9 "$fx/synthetic-syncsite.sstrace" sw.sstrace
    run 1 "report" "$ss" report sw.sstrace
    said "report" "damaged input (order: 4 chunks out of their sequence (first: chunk 6"
    grep -q '^  DAMAGED    order: ' out || fail "the report does not say it first: $(head -3 out)"
    for v in info dump "export -f nvtxt -o x.nvtxt" "diff $fx/synthetic-syncsite.sstrace"; do
        # shellcheck disable=SC2086
        run 1 "$v" "$ss" $v sw.sstrace
        said "$v" "order: "
    done
    ;;
chunk_removed)
    # a chunk removed: report failed, export exited 0
    mutate sst chunk_removed 3 "$mlp" rm.sstrace
    run 1 "report" "$ss" report rm.sstrace
    for f in perfetto nsys-sqlite nvtxt folded; do
        run 1 "export $f" "$ss" export -f $f rm.sstrace -o rm.out
        said "export $f" "damaged input (lost: "
        [ ! -e rm.out ] || fail "export $f wrote rm.out"
    done
    ;;
end_dropped)
    # an END chunk that says 1,234 records were dropped still read "complete"
    "$rechunk" "$mlp" raw.sstrace 8192 || fail "rechunk"
    DAMAGE_HERE=$here "$py" -c '
import os, sys; sys.path.insert(0, os.environ["DAMAGE_HERE"]); import sstmut
tr = sstmut.Trace(open("raw.sstrace", "rb").read())
open("e.sstrace", "wb").write(sstmut._end_with(tr, dropped=1234))' || fail "END"
    run 1 "info" "$ss" info e.sstrace
    ! grep -q 'state        complete' out || fail "info: $(grep state out)"
    said "info" "damaged input (dropped: 1234 records dropped while recording)"
    run 1 "report" "$ss" report e.sstrace
    run 1 "export" "$ss" export e.sstrace -o e.json
    ;;
report_md)
    # report -f md lacked the damage line the text report prints
    "$py" -c 'import sys; d = bytearray(open(sys.argv[1], "rb").read()); d[40000] ^= 4
open("f.sstrace", "wb").write(d)' "$mlp"
    run 1 "text" "$ss" report f.sstrace
    grep -q '^  damage     1 problems, first: chunk' out || fail "text: no damage line"
    run 1 "md" "$ss" report -f md f.sstrace
    grep -q '^- \*\*damage\*\*: 1 problems, first: chunk' out || fail "md: no damage line: $(head -12 out)"
    grep -q '^> \*\*DAMAGED trace\*\*: corrupt: 1 damaged region skipped' out || fail "md: no banner"
    run 1 "html" "$ss" report -f html -o f.html f.sstrace
    grep -q '<th>damage</th>' f.html || fail "html: no damage row"
    ;;
end_before_start)
    # a kernel with end < start moved GPU busy 55 % -> 84 %: now left out and counted
    "$rechunk" "$mlp" raw.sstrace 8192 || fail "rechunk"
    DAMAGE_HERE=$here "$py" -c '
import os, struct, sys; sys.path.insert(0, os.environ["DAMAGE_HERE"]); import sstmut
tr = sstmut.Trace(open("raw.sstrace", "rb").read())
for i, c in enumerate(tr.chunks):
    k = [r for r in sstmut.records(c.payload) if r[1] == 6]
    if len(k) > 5:
        break
p = bytearray(c.payload); off = k[5][0]
start = struct.unpack_from("<Q", p, off + 8)[0]
struct.pack_into("<Q", p, off + 16, start - 2_000_000_000)
tr.chunks[i] = sstmut.Chunk(1, 0, c.seq, p)
open("k.sstrace", "wb").write(tr.encode())' || fail "mutate"
    run 1 "report" "$ss" report k.sstrace
    said "report" "inconsistent: 1 records with impossible values dropped (first: a kernel record in chunk"
    busy() { "$py" -c 'import json,sys; print(json.load(open(sys.argv[1]))["gpu_busy_pct"])' "$1"; }
    "$ss" report -f json raw.sstrace >a.json 2>/dev/null || fail "report of the whole trace"
    run 0 "report --accept-damage" "$ss" report --accept-damage -f json k.sstrace
    cp out b.json
    [ "$(busy a.json)" = "$(busy b.json)" ] || fail "GPU busy $(busy a.json) -> $(busy b.json)"
    run 0 "dump --accept-damage" "$ss" dump --accept-damage -t kernel k.sstrace
    grep -q 'dur=-2.000s' out || fail "dump does not show the impossible record"
    ;;
nsys_repeated_rows)
    xz -dc "$fx/workloads/nsys/wide-none.sqlite.xz" >w.sqlite
    "$py" -c 'import sqlite3; c = sqlite3.connect("w.sqlite")
rows = c.execute("select * from CUPTI_ACTIVITY_KIND_KERNEL order by rowid limit 5 offset 100").fetchall()
c.executemany("insert into CUPTI_ACTIVITY_KIND_KERNEL values (%s)" % ",".join("?" * len(rows[0])), rows)
c.commit()'
    run 1 "report" "$ss" report w.sqlite
    said "report" "damaged input (duplicate: 5 repeated chunks, records or rows skipped (first: CUPTI_ACTIVITY_KIND_KERNEL rowid"
    run 1 "import" "$ss" import w.sqlite -o w.sstrace
    ;;
kineto_negative_ts)
    zcat "$kin" >k.json
    "$py" -c 'import json; d = json.load(open("k.json"))
ev = d["traceEvents"]; ks = [e for e in ev if e.get("cat") == "kernel"]
for e in ks[:3]: e["ts"] = -1e9
json.dump(d, open("n.json", "w"))'
    run 1 "report" "$ss" report n.json
    said "report" "inconsistent: 3 records with impossible values dropped (first: traceEvents"
    run 1 "import" "$ss" import n.json -o n.sstrace
    ;;
jobs_same)
    # issue #44: chunks decoded on worker threads (report -j 2, -j 3 on one trace) change
    # nothing: the same report, the same one-line errors, the same exit status as -j 1, on whole,
    # compressed, cut and damaged traces
    for m in truncated bit_flip chunk_removed chunk_repeated chunks_swapped trailing_data; do
        mutate sst $m 1 "$mlp" $m.sstrace
    done
    cp "$mlp" whole.sstrace
    "$rechunk" "$mlp" whole_raw.sstrace 65536 || fail "rechunk" # raw: summed by the pool
    size=$(wc -c <"$mlp")
    head -c $((size / 2)) "$mlp" >half.sstrace
    head -c 40 "$mlp" >header_cut.sstrace
    "$py" -c 'import sys; d = bytearray(open(sys.argv[1], "rb").read()); d[len(d) // 3] ^= 0x5a
open("flip_z.sstrace", "wb").write(d)' "$mlp"
    for t in *.sstrace; do
        for f in text json; do
            run_any "$ss" report -j 1 --format $f "$t"
            mv out out.1 && mv err err.1 && echo "$rc" >rc.1
            for j in 2 3; do
                run_any "$ss" report -j $j --format $f "$t"
                cmp -s out out.1 || fail "$t $f: -j $j report differs from -j 1"
                cmp -s err err.1 || fail "$t $f: -j $j stderr differs: $(cat err) against $(cat err.1)"
                [ "$rc" = "$(cat rc.1)" ] || fail "$t $f: -j $j exit $rc, -j 1 $(cat rc.1)"
            done
        done
    done
    ;;
*)
    fail "unknown case"
    ;;
esac
echo "ok [$case_name]"
