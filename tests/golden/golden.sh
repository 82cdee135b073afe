#!/bin/bash
# golden.sh check|update STEPSCOPE FIXTURES WORKDIR PYTHON
#
# Every output of stepscope over every fixture, hashed (issue #17: the reshaping of tools/ and
# of the analysis API must leave each of them byte-identical). Per input trace (the .sstrace
# fixtures, the Kineto captures, the nsys exports unpacked): report in text, text -v, json,
# json -v, md and html; info and info --format json; dump and dump --format json; export to
# perfetto, nvtxt and nsys-sqlite (its rows, through Python's sqlite3 iterdump: the file's
# pages are not the contract). Then the folder of the two-rank job, and diff of each planted
# case against its fixed twin in every diff format. Inputs are named by relative paths from
# WORKDIR/in (the fixtures linked in as fx/), so no output holds the checkout's path.
# check: compares with tests/golden/expected.txt and lists every output that differs;
# update: rewrites expected.txt (after a change that means to change outputs).
set -u
mode=$1 ss=$(cd "$(dirname "$2")" && pwd)/$(basename "$2") fx=$(cd "$3" && pwd) work=$4 py=$5
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work/in/nsys" "$work/out" || exit 1
ln -s "$fx" "$work/in/fx"
for x in "$fx"/workloads/nsys/*.sqlite.xz; do
    xz -dc "$x" >"$work/in/nsys/$(basename "$x" .xz)" || exit 1
done
cd "$work/in" || exit 1

n=0
# out NAME CMD...: runs CMD, its stdout (and exit status) become output NAME
out() {
    local name=$1
    shift
    "$@" >"$work/out/$name" 2>/dev/null
    echo "exit=$?" >>"$work/out/$name"
    n=$((n + 1))
}
# file NAME CMD...: CMD writes the file $work/out/NAME itself (-o)
file() {
    local name=$1
    shift
    "$@" 2>/dev/null || echo "exit=$?" >>"$work/out/$name.failed"
    n=$((n + 1))
}

inputs=$(find -L fx -name '*.sstrace' | sort; ls fx/workloads/kineto/*.json.gz; ls nsys/*.sqlite)
for t in $inputs; do
    k=$(echo "$t" | tr '/' '_')
    out "$k.report.txt" "$ss" report "$t"
    out "$k.report-v.txt" "$ss" report -v "$t"
    out "$k.report.json" "$ss" report -f json "$t"
    out "$k.report-v.json" "$ss" report -v -f json "$t"
    out "$k.report.md" "$ss" report -f md "$t"
    out "$k.report.html" "$ss" report -f html "$t"
    out "$k.info.txt" "$ss" info "$t"
    out "$k.info.json" "$ss" info --format json "$t"
    out "$k.dump.txt" "$ss" dump "$t"
    out "$k.dump.jsonl" "$ss" dump --format json "$t"
    file "$k.perfetto.json" "$ss" export -q -o "$work/out/$k.perfetto.json" "$t"
    file "$k.nvtxt" "$ss" export -q -f nvtxt -o "$work/out/$k.nvtxt" "$t"
    file "$k.sqlite" "$ss" export -q -f nsys-sqlite -o "$work/$k.sqlite" "$t"
    [ -f "$work/$k.sqlite" ] && "$py" -c '
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
sys.stdout.write("\n".join(c.iterdump()))' "$work/$k.sqlite" >"$work/out/$k.sqlite.sql"
    rm -f "$work/$k.sqlite"
done
for f in text json md html; do
    out "job.report.$f" "$ss" report -f "$f" fx/workloads/traces/cnn_dp-none
done
out "job.report-v.txt" "$ss" report -v fx/workloads/traces/cnn_dp-none
tr=fx/workloads/traces cabi=fx/workloads/cabi
pairs="$tr/cnn_jpeg-data.sstrace:$tr/cnn_jpeg-none.sstrace $tr/mlp-sync.sstrace:$tr/mlp-none.sstrace
$tr/mlp_big-fp32.sstrace:$tr/mlp_big-none.sstrace $tr/wide-pageable.sstrace:$tr/wide-none.sstrace
fx/h200-dataloader-w0.sstrace:fx/h200-dataloader-w8.sstrace $cabi/dtype-bad.sstrace:$cabi/dtype-fixed.sstrace
$cabi/sync-bad.sstrace:$cabi/sync-fixed.sstrace fx/workloads/kineto/mlp-sync.json.gz:fx/workloads/kineto/mlp-none.json.gz"
for p in $pairs; do
    k=$(echo "${p%%:*}" | tr '/' '_')
    for f in text json md html; do out "$k.diff.$f" "$ss" diff -f "$f" "${p%%:*}" "${p#*:}"; done
done

(cd "$work/out" && sha256sum -- * | awk '{print $2, $1}' | sort) >"$work/actual.txt"
if [ "$mode" = update ]; then
    cp "$work/actual.txt" "$here/expected.txt"
    echo "golden: $n outputs, $(wc -l <"$here/expected.txt") hashes written to tests/golden/expected.txt"
    exit 0
fi
if ! diff -q "$here/expected.txt" "$work/actual.txt" >/dev/null; then
    echo "golden: outputs that differ from tests/golden/expected.txt (left: expected, right: now):"
    diff "$here/expected.txt" "$work/actual.txt" | grep '^[<>]' | head -60
    echo "(the outputs are in $work/out; 'golden.sh update ...' rewrites the hashes when a change means it)"
    exit 1
fi
echo "golden: $n outputs byte-identical"
rm -rf "$work/out" # hundreds of MB of exports
