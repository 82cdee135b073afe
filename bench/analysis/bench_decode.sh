#!/usr/bin/env bash
# bench_decode.sh — `stepscope report` of one large trace, its chunks decoded on the analysis's
# thread (-j 1) against worker threads ahead of it (-j 2...; src/trace/sst_ahead.c), issue #44.
#
#   bench/analysis/bench_decode.sh [BUILD_DIR]        (default build)
#
# Environment: RECORDS (default 10000000), ZSTD (the levels of the traces compared, "0" for raw;
# default "0 1"), THREADS (the -j values, default "1 2"), REPS (default 7),
# WORK (scratch folder, deleted at the end; default /tmp/stepscope-bench-decode).
# The trace is sst-gen's training mix. The runs are interleaved (per repetition every trace and
# every -j in turn) so that machine noise hits all alike; per case: median (min..max) wall time,
# M records/s of the median, median CPU time (user + sys) and peak RSS (/usr/bin/time). The CPU
# pressure (/proc/pressure/cpu, avg10) is printed before and after: other work on the machine
# shows there and as CPU time close to wall time. The reports of every case must be
# byte-identical (the thread count changes nothing).
set -euo pipefail
B=${1:-build}
RECORDS=${RECORDS:-10000000}
ZSTD=${ZSTD:-"0 1"}
THREADS=${THREADS:-"1 2"}
REPS=${REPS:-7}
WORK=${WORK:-/tmp/stepscope-bench-decode}
SS=$B/stepscope GEN=$B/sst-gen

[ -x "$SS" ] && [ -x "$GEN" ] || { echo "bench_decode: build $SS and $GEN first" >&2; exit 2; }
rm -rf "$WORK" && mkdir -p "$WORK"
trap 'rm -rf "$WORK"' EXIT
for z in $ZSTD; do
    if [ "$z" = 0 ]; then "$GEN" -o "$WORK/z$z.sst" --records "$RECORDS" >/dev/null
    else "$GEN" -o "$WORK/z$z.sst" --records "$RECORDS" --zstd "$z" >/dev/null; fi
done
pressure() { sed -n 's/^some avg10=\([0-9.]*\).*/\1 %/p' /proc/pressure/cpu 2>/dev/null || echo "?"; }
echo "# $(date -u +%FT%TZ) $(uname -n), $(nproc) cores, load: $(cut -d' ' -f1-3 /proc/loadavg)," \
     "CPU pressure $(pressure)"
for z in $ZSTD; do
    echo "# zstd $z: $(du -h "$WORK/z$z.sst" | cut -f1), $RECORDS records (+ strings); reps: $REPS"
done

# run Z J: one timed report of trace zZ with -j J; appends "wall_ms rss_kb cpu_s" to $WORK/zZ-jJ.
run() {
    local t0 t1
    t0=$(date +%s%N)
    /usr/bin/time -f "%M %U %S" -o "$WORK/time.txt" "$SS" report -j "$2" "$WORK/z$1.sst" \
        >"$WORK/out-z$1-j$2.txt"
    t1=$(date +%s%N)
    read -r rss user sys <"$WORK/time.txt"
    echo "$(( (t1 - t0) / 1000000 )) $rss $(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')" >>"$WORK/z$1-j$2"
}

for _ in $(seq "$REPS"); do
    for z in $ZSTD; do
        for j in $THREADS; do run "$z" "$j"; done
    done
done
first=$(echo "$THREADS" | cut -d' ' -f1)
for z in $ZSTD; do
    for j in $THREADS; do
        cmp -s "$WORK/out-z$z-j$first.txt" "$WORK/out-z$z-j$j.txt" ||
            { echo "bench_decode: zstd $z -j $j output differs" >&2; exit 1; }
    done
done
python3 - "$WORK" "$RECORDS" "$ZSTD" $THREADS <<'PY'
import statistics, sys
work, records, levels, threads = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(), sys.argv[4:]
for z in levels:
    med = {}
    for j in threads:
        rows = [tuple(map(float, l.split())) for l in open(f"{work}/z{z}-j{j}") if l.strip()]
        w = sorted(r[0] / 1000 for r in rows)
        med[j] = statistics.median(w)
        cpu = statistics.median(r[2] for r in rows)
        print(f"zstd {z} report -j {j:<3} {med[j]:7.3f} s ({w[0]:.3f}..{w[-1]:.3f})  "
              f"{records / med[j] / 1e6:6.2f} M rec/s  cpu {cpu:.2f} s  "
              f"peak RSS {max(r[1] for r in rows) / 1024:6.1f} MB")
    for j in threads[1:]:
        print(f"zstd {z} speed-up -j {j} over -j {threads[0]}: {med[threads[0]] / med[j]:.2f}x (medians)")
PY
echo "# CPU pressure after: $(pressure)"
