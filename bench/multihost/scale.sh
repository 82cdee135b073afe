#!/bin/bash
# Issue #44 item 3: `report` over a folder of many rank traces, and `export` of 64 of them
# merged, whole and a window of 3 steps (--steps 10-12). The ranks are sst-multihost copies of the real 2-GPU DDP recording
# (tests/fixtures/workloads/traces/cnn_dp-none), HOSTS x 8 ranks with per-host offsets and
# drift (offsets 0-999 s: a monotonic clock never reads below 0), one host slowed; each command's wall time and peak RSS (GNU time), REPS times.
#   bench/multihost/scale.sh BUILD_DIR [HOSTS] [REPS]      (HOSTS 128: 1,024 ranks)
set -eu
B=$1; HOSTS=${2:-128}; REPS=${3:-3}
SRC=$(cd "$(dirname "$0")/../.." && pwd)/tests/fixtures/workloads/traces/cnn_dp-none
W=${TMPDIR:-/tmp}/ss-scale-$HOSTS; rm -rf "$W"; mkdir -p "$W"
offsets=$(seq -s, 0 $((HOSTS - 1)) | awk -F, '{for(i=1;i<=NF;i++) printf "%s%.1f", (i>1?",":""), ($i*37)%1000}')
drifts=$(seq -s, 0 $((HOSTS - 1)) | awk -F, '{for(i=1;i<=NF;i++) printf "%s%d", (i>1?",":""), ($i*7)%61-30}')
"$B/sst-multihost" -o "$W/job" --hosts "$HOSTS" --ranks-per-host 8 --offset-s "$offsets" \
    --drift-ppm "$drifts" --jitter-us 3 --slow-host $((HOSTS / 2)) --delay-us 2000 \
    "$SRC"/vm-14579-r0.sstrace "$SRC"/vm-14580-r1.sstrace
mkdir -p "$W/job64"
for f in $(ls "$W/job" | head -64); do ln -s "$W/job/$f" "$W/job64/$f"; done
echo "ranks: $(ls "$W/job" | wc -l), $(du -sh "$W/job" | cut -f1); records: $(for f in "$W"/job/*; do "$B/stepscope" info --json "$f" | grep -o '"records": *[0-9]*' | grep -o '[0-9]*$'; done | awk '{s+=$1} END {print s}')"
measure() {  # label command...
    local label=$1; shift
    /usr/bin/time -f "$label %e s %M KB" "$@" > /dev/null 2>> "$W/times.txt" || echo "$label failed" >> "$W/times.txt"
}
for r in $(seq "$REPS"); do
    measure "report-j1" "$B/stepscope" report -j 1 "$W/job"
    measure "report-j2" "$B/stepscope" report -j 2 "$W/job"
    measure "export64" "$B/stepscope" export -f perfetto -o "$W/merged.json" --force "$W/job64"
    measure "export64-steps" "$B/stepscope" export -f perfetto --steps 10-12 -o "$W/window.json" --force "$W/job64"
done
grep -v "^$" "$W/times.txt" | grep -E " s [0-9]+ KB|failed" | sort | awk '{print}'
"$B/stepscope" report "$W/job" | sed -n 1,30p
