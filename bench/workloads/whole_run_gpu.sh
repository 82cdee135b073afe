#!/bin/bash
# GPU call W: issue #43's whole-run plants (recorded with default options, then plain twins
# interleaved), or with COST=1 the 3,000-step cost benchmark (plain vs default, interleaved).
set -u
export PYTHONUNBUFFERED=1
W=/tmp/w; mkdir -p $W; t0=$(date +%s)
SS=$PWD/.lab/prefix/bin/stepscope
P=bench/workloads/frameworks/whole_run.py
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu --format=csv,noheader
left() { echo $(( ${BUDGET:-560} - ($(date +%s) - t0) )); }
plain() { python3 $P "$@" 2>>$W/plain.log | grep '^{'; }
if [ "${COST:-0}" = 1 ]; then
  for r in 1 2; do
    [ $(left) -lt 90 ] && break
    plain --plant none --steps 3000 > $W/cost-plain-r$r.json
    $SS record -o $W/cost-rec-r$r -- python3 $P --plant none --steps 3000 2>$W/cost-rec-r$r.log | grep '^{' > $W/cost-rec-r$r.json
    ls -la $W/cost-rec-r$r* >> $W/sizes.txt
    echo "cost round $r at $(( $(date +%s) - t0 )) s"
    tar cf $OUT/cost.tar -C $W --exclude='cost-rec-r?' .
  done
  exit 0
fi
for plant in ${PLANTS:-save drift epochs}; do
  [ $(left) -lt 100 ] && { echo "out of time before $plant"; break; }
  $SS record -o $W/$plant-bad -- python3 $P --plant $plant 2>$W/$plant-bad.log | grep '^{' > $W/$plant-bad-rec.json
  $SS record -o $W/$plant-fixed -- python3 $P --plant $plant --fix 2>$W/$plant-fixed.log | grep '^{' > $W/$plant-fixed-rec.json
  for r in 1 2; do
    plain --plant $plant > $W/$plant-bad-r$r.json
    plain --plant $plant --fix > $W/$plant-fixed-r$r.json
  done
  $SS report $W/$plant-bad > $W/$plant-bad.report.txt 2>&1
  echo "$plant done at $(( $(date +%s) - t0 )) s: $(du -sh $W/$plant-bad | cut -f1)"
  tar czf $OUT/whole-$plant.tgz -C $W $(cd $W; ls -d $plant-*)
done
cp $W/plain.log $OUT/ 2>/dev/null
