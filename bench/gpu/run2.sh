#!/usr/bin/env bash
# GPU run 2 (H200): build, the collector's CUPTI checks (incl. torch.profiler hand-over),
# the real-trace fixtures with their nsys comparison, and the overhead benchmark.
set -u
export ROOT=$PWD PYTHONUNBUFFERED=1 PY=/opt/torch/.venv/bin/python3
OUT=${OUT:-/tmp/run2}; mkdir -p "$OUT/fixtures"
OUT=/tmp/check timeout 200 bash bench/gpu/check_collector.sh > "$OUT/check.log" 2>&1
grep -E "PASS|FAIL|SKIP|failures" "$OUT/check.log"
timeout 150 bash bench/gpu/make_fixtures.sh "$OUT/fixtures"
ls -la "$OUT/fixtures"
. bench/gpu/nsys_env.sh
python3 bench/overhead/run_overhead.py --stepscope build-gpu/stepscope \
   --floor build-gpu/libcupti_floor.so --nsys "$NSYS" --reps 5 --cnn-steps 300 --gpu-steps 20 \
   --budget-s 250 --out "$OUT/overhead.json" 2>&1 | tee "$OUT/overhead.log" | tail -40
tar czf "$OUT/fixtures.tgz" -C "$OUT" fixtures && rm -rf "$OUT/fixtures"
tar czf "$OUT/check.tgz" --exclude='*.jsonl' --exclude='*.sstrace' --exclude='*.nsys-rep' -C /tmp check/full/log check/light/log check/takeover check/takeover-noshim 2>/dev/null
ls -la "$OUT"
