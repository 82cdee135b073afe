#!/usr/bin/env bash
# GPU run 5 (H200): a resnet18 fed by a JPEG-decoding DataLoader (the `data` workload),
# recorded by stepscope with 0 workers (planted) and with 8 forked workers (fixed), the
# bad one also under nsys for the kernel-count check; plus the Python shim's real-torch test.
set -u
export ROOT=$PWD PYTHONUNBUFFERED=1 PY=/opt/torch/.venv/bin/python3
OUT=${OUT:-/tmp/run5}; mkdir -p "$OUT"
cmake -S . -B build-gpu -DPython3_EXECUTABLE=$PY >/dev/null && cmake --build build-gpu -j16 >/dev/null 2>&1
SS=$ROOT/build-gpu/stepscope
T=bench/workloads/python/train.py
for v in bad fixed; do
  fix=""; [ $v = fixed ] && fix=--fix
  rm -rf /tmp/dl-$v
  timeout 60 $SS record -o /tmp/dl-$v -- $PY $T --case data $fix --steps 6 --warmup 2 > "$OUT/dl-$v.log" 2>&1
  echo "record $v rc=$?"; tail -4 "$OUT/dl-$v.log"
  n=0; for t in /tmp/dl-$v/*.sstrace; do n=$((n+1)); done; echo "$v: $n trace files"
done
main=$(ls -S /tmp/dl-bad/*.sstrace | head -1); cp "$main" "$OUT/h200-dataloader-w0.sstrace"
tar czf "$OUT/dl-fixed.tgz" -C /tmp dl-fixed
$SS dump --json "$main" > /tmp/dl-bad.jsonl
. bench/gpu/nsys_env.sh
timeout 60 $NSYS profile -t cuda,nvtx --sample=none --cpuctxsw=none --force-overwrite=true -o /tmp/dl-nsys \
   $PY $T --case data --steps 6 --warmup 2 > "$OUT/dl-nsys.log" 2>&1
timeout 40 $NSYS export --type sqlite --force-overwrite=true -o /tmp/dl-nsys.sqlite /tmp/dl-nsys.nsys-rep >> "$OUT/dl-nsys.log" 2>&1
python3 bench/gpu/compare_nsys.py /tmp/dl-bad.jsonl /tmp/dl-nsys.sqlite | tee "$OUT/dl-vs-nsys.txt"
(cd build-gpu && timeout 60 ctest -R markers_pyshim_real_torch --output-on-failure) > "$OUT/pyshim-real.log" 2>&1; tail -5 "$OUT/pyshim-real.log"
