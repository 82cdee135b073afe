#!/usr/bin/env bash
# GPU run 1 (H200): build, the collector's CUPTI checks, and a torch CNN / GPU-bound model
# recorded by stepscope and by nsys for the kernel-count / kernel-time comparison.
# Usage on the GPU machine, from the repository root: bash bench/gpu/run1.sh  (writes $OUT)
set -u
export ROOT=$PWD
OUT=${OUT:-/tmp/run1}; mkdir -p "$OUT"
nvidia-smi -L
export PY=/opt/torch/.venv/bin/python3
OUT=/tmp/check bash bench/gpu/check_collector.sh 2>&1 | tee "$OUT/check.log"
. bench/gpu/nsys_env.sh
SS=$ROOT/build-gpu/stepscope
for w in cnn gpu; do
  steps=60; [ $w = gpu ] && steps=20
  rm -rf /tmp/rec-$w
  $SS record -o /tmp/rec-$w -- $PY bench/overhead/models.py --workload $w --steps $steps --warmup 5 2>&1 | tee "$OUT/record-$w.log"
  for t in /tmp/rec-$w/*.sstrace; do $SS dump --json "$t"; done > /tmp/rec-$w.jsonl
  $SS info /tmp/rec-$w/*.sstrace > "$OUT/info-$w.txt" 2>&1
  $NSYS profile -t cuda,nvtx --sample=none --cpuctxsw=none --force-overwrite=true -o /tmp/nsys-$w \
     $PY bench/overhead/models.py --workload $w --steps $steps --warmup 5 > "$OUT/nsys-$w.log" 2>&1
  $NSYS export --type sqlite --force-overwrite=true -o /tmp/nsys-$w.sqlite /tmp/nsys-$w.nsys-rep >> "$OUT/nsys-$w.log" 2>&1
  python3 bench/gpu/compare_nsys.py /tmp/rec-$w.jsonl /tmp/nsys-$w.sqlite 2>&1 | tee "$OUT/compare-$w.txt"
done
tar czf "$OUT/traces.tgz" -C /tmp rec-cnn rec-gpu check 2>/dev/null
ls -la "$OUT"
