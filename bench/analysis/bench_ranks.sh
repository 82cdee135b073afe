#!/usr/bin/env bash
# bench_ranks.sh — `stepscope report DIR` over the traces of a synthetic multi-GPU job (one per
# rank, bench/gen/sst_gen_ranks.c), analysed on 1 thread against N threads (issue #8).
#
#   bench/analysis/bench_ranks.sh [BUILD_DIR]        (default build-ranks)
#
# Environment: RANKS (default 256), STEPS per rank (default 200), KERNELS per step (default 48),
# THREADS (the -j values compared, default "1 $(nproc)"), REPS (default 5),
# WORK (scratch folder, deleted at the end; default /tmp/stepscope-bench-ranks).
# The cases run interleaved (1, N, 1, N, ...) so that machine noise hits both alike; per case:
# median (min..max) wall time, median CPU time (user + sys) and peak RSS (/usr/bin/time), then
# the speed-up of the medians. The CPU pressure (/proc/pressure/cpu, avg10) is printed before
# and after: other work on the machine shows there and in wall time far above CPU time.
# The text reports of every case must be byte-identical (the thread count changes nothing).
set -euo pipefail
B=${1:-build-ranks}
RANKS=${RANKS:-256}
STEPS=${STEPS:-200}
KERNELS=${KERNELS:-48}
THREADS=${THREADS:-"1 $(nproc)"}
REPS=${REPS:-5}
WORK=${WORK:-/tmp/stepscope-bench-ranks}
SS=$B/stepscope GEN=$B/sst-gen-ranks

[ -x "$SS" ] && [ -x "$GEN" ] || { echo "bench_ranks: build $SS and $GEN first" >&2; exit 2; }
rm -rf "$WORK" && mkdir -p "$WORK"
trap 'rm -rf "$WORK"' EXIT
"$GEN" -o "$WORK/job" -n "$RANKS" --steps "$STEPS" --kernels "$KERNELS" --straggler 7 --extra-ms 3
records=$("$SS" report --format json "$WORK/job" | python3 -c '
import json, sys
print(sum(p["trace"]["records"] for p in json.load(sys.stdin)["processes"]))')
pressure() { sed -n 's/^some avg10=\([0-9.]*\).*/\1 %/p' /proc/pressure/cpu 2>/dev/null || echo "?"; }
echo "# $(date -u +%FT%TZ) $(uname -n), $(nproc) cores, load: $(cut -d' ' -f1-3 /proc/loadavg)," \
     "CPU pressure $(pressure)"
echo "# $RANKS ranks x $STEPS steps x $KERNELS kernels: $(du -sh "$WORK/job" | cut -f1)," \
     "$records records; build: $B, reps: $REPS"

# run J: one timed report with -j J; appends "wall_ms rss_kb cpu_s" to $WORK/jJ.
run() {
    local t0 t1
    t0=$(date +%s%N)
    /usr/bin/time -f "%M %U %S" -o "$WORK/time.txt" "$SS" report -j "$1" "$WORK/job" \
        >"$WORK/out-$1.txt"
    t1=$(date +%s%N)
    read -r rss user sys <"$WORK/time.txt"
    echo "$(( (t1 - t0) / 1000000 )) $rss $(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')" >>"$WORK/j$1"
}

for _ in $(seq "$REPS"); do
    for j in $THREADS; do run "$j"; done
done
first=$(echo "$THREADS" | cut -d' ' -f1)
for j in $THREADS; do
    cmp -s "$WORK/out-$first.txt" "$WORK/out-$j.txt" || { echo "bench_ranks: -j $j output differs" >&2; exit 1; }
done
python3 - "$WORK" "$records" $THREADS <<'PY'
import statistics, sys
work, records, threads = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
med = {}
for j in threads:
    rows = [tuple(map(float, l.split())) for l in open(f"{work}/j{j}") if l.strip()]
    w = sorted(r[0] / 1000 for r in rows)
    med[j] = statistics.median(w)
    cpu = statistics.median(r[2] for r in rows)
    print(f"report -j {j:<3} {med[j]:7.3f} s ({w[0]:.3f}..{w[-1]:.3f})  "
          f"{records / med[j] / 1e6:6.2f} M rec/s  cpu {cpu:.2f} s  "
          f"peak RSS {max(r[1] for r in rows) / 1024:6.1f} MB")
for j in threads[1:]:
    print(f"speed-up -j {j} over -j {threads[0]}: {med[threads[0]] / med[j]:.2f}x (medians)")
PY
echo "# CPU pressure after: $(pressure)"
