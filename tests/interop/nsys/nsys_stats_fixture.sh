#!/usr/bin/env bash
# The real `nsys stats` (Nsight Systems 2025.3.2, on the H200 machine, 2026-11-30) read
# stepscope's nsys-sqlite export of these fixtures; its CSVs are committed in
# tests/fixtures/interop/nsys-stats/ (made by bench/interop/nsys_check.sh, job nsys-chk of
# 066c412:bench/gpu/plan-next.txt). Here, without nsys: the fixture is exported again and the committed
# CSVs are compared with the trace by bench/interop/nsys_compare.py — kernel instances exact and
# time per kernel name within 0.1 %, copy/memset counts and bytes, API calls per name, NVTX
# ranges. A change of the exporter or the trace reader that nsys would read differently fails.
# And `nsys analyze` on the pageable case named the pageable memcpy rule (its output, .xz).
#   nsys_stats_fixture.sh STEPSCOPE ROOT WORKDIR PYTHON
set -u
SS=$1 ROOT=$2 W=$3 PY=$4
FX=$ROOT/tests/fixtures/interop/nsys-stats
rm -rf "$W" && mkdir -p "$W" || exit 1
fails=0
for name in h200-cnn-launchbound h200-gpubound-bf16 wide-pageable wide-none mlp-sync; do
    trace=$ROOT/tests/fixtures/$name.sstrace
    [ -f "$trace" ] || trace=$ROOT/tests/fixtures/workloads/traces/$name.sstrace
    for r in cuda_gpu_kern_sum cuda_api_sum cuda_gpu_mem_time_sum cuda_gpu_mem_size_sum nvtx_sum; do
        cp "$FX/${name}_$r.csv" "$W/" || { echo "FAIL $name: no committed $r CSV"; exit 1; }
    done
    "$SS" export "$trace" -o "$W/$name.sqlite" --format nsys-sqlite || { echo "FAIL $name: export"; fails=$((fails + 1)); continue; }
    "$SS" dump --json -t kernel,memcpy,memset,api,nvtx_push,nvtx_start "$trace" >"$W/$name.jsonl" || { echo "FAIL $name: dump"; fails=$((fails + 1)); continue; }
    "$PY" "$ROOT/bench/interop/nsys_compare.py" "$W/$name" "$W/$name.sqlite" "$W/$name.jsonl" || fails=$((fails + 1))
done
# pageable H2D copies of >= 100 MB (the planted 134 MB batch) listed by the rule: the bad twin
# only (both list small pageable copies made at start-up)
big_pageable() { xz -dc "$FX/$1.analyze.txt.xz" | awk '$3 == "Pageable" && $4 == "Device" && $5 + 0 >= 100' | wc -l; }
bad=$(big_pageable wide-pageable) fixed=$(big_pageable wide-none)
if [ "$bad" -gt 0 ] && [ "$fixed" = 0 ]; then
    echo "PASS nsys analyze: its pageable memcpy rule lists $bad copies >= 100 MB in wide-pageable, none in wide-none"
else
    echo "FAIL nsys analyze output: $bad big pageable copies in wide-pageable, $fixed in wide-none"
    fails=$((fails + 1))
fi
echo "nsys_stats_fixture: $fails failure(s)"
[ "$fails" = 0 ]
