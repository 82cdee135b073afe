#!/usr/bin/env bash
# bench_analysis.sh — `stepscope report` speed and peak memory on sst-gen traces, and the
# time python3's json.load takes on the same events as Kineto-style Chrome JSON (issue #5).
#
#   bench/analysis/bench_analysis.sh [BUILD_DIR]        (default build-aperf)
#
# Environment: SIZES (records, raw traces; default "1000000 10000000"), BIG (records of one
# zstd-1 trace, 0 = none; e.g. 100000000), JSON_SIZES (sizes also written as JSON and timed
# with json.load, interleaved with report; default "1000000"), REPS (default 3),
# WORK (scratch folder, deleted at the end; default /tmp/stepscope-bench-analysis),
# BASE (a second build folder, e.g. of the code before a change: its `stepscope report` and
# `bench-analysis --compact` then run alternately with B's, A B A B ..., and the ratio of the
# medians is printed; the two builds' digests must agree).
# Per case: median (min..max) of wall time, records/s, peak RSS (/usr/bin/time). Cases, run
# interleaved: `stepscope report TRACE` (text, the default); `bench-analysis TRACE --compact`
# (the same analysis with SSA_COMPACT: per step only a 40-byte brief, what a report of
# millions of steps needs); json.load of the same events as Chrome JSON (JSON_SIZES only).
set -euo pipefail
B=${1:-build-aperf}
BASE=${BASE:-}
SIZES=${SIZES:-"1000000 10000000"}
BIG=${BIG:-0}
JSON_SIZES=${JSON_SIZES:-"1000000"}
REPS=${REPS:-3}
WORK=${WORK:-/tmp/stepscope-bench-analysis}
HERE=$(cd "$(dirname "$0")" && pwd)
SS=$B/stepscope GEN=$B/sst-gen BA=$B/bench-analysis

[ -x "$SS" ] && [ -x "$GEN" ] && [ -x "$BA" ] || { echo "bench_analysis: build $SS, $GEN and $BA first" >&2; exit 2; }
if [ -n "$BASE" ] && ! { [ -x "$BASE/stepscope" ] && [ -x "$BASE/bench-analysis" ]; }; then
    echo "bench_analysis: build $BASE/stepscope and $BASE/bench-analysis first" >&2; exit 2
fi
mkdir -p "$WORK"
trap 'rm -rf "$WORK"' EXIT
avail_gb=$(df -Pk "$WORK" | awk 'NR==2 {print int($4 / 1048576)}')
need_gb=$(( 2 + $(for s in $SIZES; do echo "$s"; done | sort -n | tail -1) * 55 / 1000000000 \
            + BIG * 11 / 1000000000 ))
if [ "$avail_gb" -lt "$need_gb" ]; then
    echo "bench_analysis: $avail_gb GB free in $WORK, about $need_gb GB needed" >&2; exit 2
fi
echo "# $(date -u +%FT%TZ) $(uname -n), $(nproc) cores, load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# $("$SS" --version 2>/dev/null | head -1)  build: $B${BASE:+  base: $BASE}  reps: $REPS"

# run NAME CMD...: one timed run; appends "wall_ms rss_kb" to $WORK/NAME, and the digest
# bench-analysis prints (if any) to $WORK/NAME.digest.
run() {
    local name=$1; shift
    local t0 t1
    t0=$(date +%s%N)
    /usr/bin/time -f "%M" -o "$WORK/time.txt" "$@" >"$WORK/out.txt" 2>"$WORK/err.txt" \
        || { echo "bench_analysis: failed: $*" >&2; cat "$WORK/err.txt" >&2; exit 1; }
    t1=$(date +%s%N)
    echo "$(( (t1 - t0) / 1000000 )) $(cat "$WORK/time.txt")" >>"$WORK/$name" # ms, KB
    grep -o 'digest [0-9a-f]*' "$WORK/out.txt" >>"$WORK/$name.digest" || true
}

# ratio NAME_A NAME_B: median wall of A over that of B.
ratio() {
    local a b
    a=$(cut -d' ' -f1 "$WORK/$1" | median)
    b=$(cut -d' ' -f1 "$WORK/$2" | median)
    python3 -c "import sys; print(f'   {sys.argv[3]} / {sys.argv[4]} (medians): {float(sys.argv[1])/float(sys.argv[2]):.2f}x')" "$a" "$b" "$1" "$2"
}

# stats NAME RECORDS: median (min..max) wall, records/s at the median, peak RSS.
stats() {
    python3 - "$WORK/$1" "$2" "$1" <<'PY'
import statistics, sys
rows = [tuple(map(float, l.split())) for l in open(sys.argv[1]) if l.strip()]
w = sorted(r[0] / 1000 for r in rows); rss = max(r[1] for r in rows) / 1024
n = int(sys.argv[2]); med = statistics.median(w)
print(f"{sys.argv[3]:<28} {med:8.3f} s ({w[0]:.3f}..{w[-1]:.3f})  {n / med / 1e6:7.2f} M rec/s"
      f"  peak RSS {rss:7.1f} MB")
PY
}

median() { sort -n | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

bench_size() { # SIZE [zstd level]
    local size=$1 z=${2:-0} f="$WORK/t$1.sstrace" extra=()
    [ "$z" != 0 ] && extra=(--zstd "$z")
    local recs
    recs=$("$GEN" -o "$f" --records "$size" "${extra[@]}" | sed -E 's/.* ([0-9]+) records.*/\1/')
    echo "## $recs records$([ "$z" != 0 ] && echo ", zstd $z"), $(du -m "$f" | cut -f1) MB"
    local json=0
    for j in $JSON_SIZES; do [ "$j" = "$size" ] && [ "$z" = 0 ] && json=1; done
    local events=0
    if [ $json = 1 ]; then
        "$SS" dump --json "$f" | python3 "$HERE/to_chrome_json.py" >"$WORK/t.json" 2>"$WORK/events"
        events=$(cat "$WORK/events")
        echo "   as Chrome JSON: $events events, $(du -m "$WORK/t.json" | cut -f1) MB"
    fi
    rm -f "$WORK"/*."$size" "$WORK"/*."$size".digest
    "$SS" report "$f" >/dev/null # page cache warm for both
    for _ in $(seq "$REPS"); do
        [ -n "$BASE" ] && run "base-report.$size" "$BASE/stepscope" report "$f"
        run "report.$size" "$SS" report "$f"
        [ -n "$BASE" ] && run "base-compact.$size" "$BASE/bench-analysis" "$f" --compact
        run "compact.$size" "$BA" "$f" --compact
        [ $json = 1 ] && run "json.$size" python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$WORK/t.json"
    done
    if [ -n "$BASE" ]; then
        stats "base-report.$size" "$recs"
        stats "report.$size" "$recs"
        ratio "base-report.$size" "report.$size"
        stats "base-compact.$size" "$recs"
        stats "compact.$size" "$recs"
        ratio "base-compact.$size" "compact.$size"
        echo "   digests: base $(sort -u "$WORK/base-compact.$size.digest" | tr '\n' ' '); this build $(sort -u "$WORK/compact.$size.digest" | tr '\n' ' ')"
    else
        stats "report.$size" "$recs"
        stats "compact.$size" "$recs"
    fi
    if [ $json = 1 ]; then
        stats "json.$size" "$events"
        local r j
        r=$(cut -d' ' -f1 "$WORK/report.$size" | median)
        j=$(cut -d' ' -f1 "$WORK/json.$size" | median)
        python3 -c "import sys; r,j=float(sys.argv[1]),float(sys.argv[2]); print(f'   json.load / report (medians): {j/r:.1f}x')" "$r" "$j"
        rm -f "$WORK/t.json"
    fi
    rm -f "$f"
}

for s in $SIZES; do bench_size "$s"; done
[ "$BIG" != 0 ] && bench_size "$BIG" 1
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
