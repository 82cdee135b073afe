#!/bin/bash
# GPU call W: issue #43's whole-run plants (recorded with default options, then plain twins
# interleaved), with COST=1 the 3,000-step cost benchmark (plain vs default, interleaved), with
# CHECKS=1 the window checks on real CUPTI.
set -u
export PYTHONUNBUFFERED=1
W=/tmp/w; mkdir -p $W; t0=$(date +%s)
. bench/gpu_prefix.sh
# the installed prefix travels packed (carry .lab/prefix.txz); a missing binary stops here, not
# as recorded runs that wrote nothing (2026-12-07: 8 of them, a GPU call lost)
[ -n "$SS" ] || { echo "whole_run_gpu.sh: no stepscope (carry .lab/prefix.txz)" >&2; exit 2; }
P=bench/workloads/frameworks/whole_run.py
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu --format=csv,noheader
left() { echo $(( ${BUDGET:-560} - ($(date +%s) - t0) )); }
plain() { python3 $P "$@" 2>>$W/plain.log | grep '^{'; }
# CHECKS=1: the collector's windows on real CUPTI: --capture every:300,steps:20 over 1,000 steps
# (4 windows, cupti.reattached 1..3), and auto's re-window when a loop slows from step 600.
if [ "${CHECKS:-0}" = 1 ]; then
  { $SS record --capture every:300,steps:20 -o $W/every -- python3 $P --plant none --steps 1000
    echo "exit $?"; $SS dump $W/every/*.sstrace -t capture,env | grep -E "capture|cupti|window"
    STEPSCOPE_AUTO_STEPS=20 $SS record -o $W/rewin -- \
      python3 bench/workloads/frameworks/pace_change.py 1000 600
    echo "exit $?"; $SS dump $W/rewin/*.sstrace -t capture,env | grep -E "capture|cupti|window"
    $SS report $W/rewin; } > $OUT/checks.txt 2>&1
  exit 0
fi
# COST=1: plain, default and default without host samples over 3,000 steps, one process each,
# the order rotated every round (the host drifts within a round: a fixed order biases the later
# configurations); ratios against the plain runs around each one. CFGS="plain rec": those two
# only (more rounds in a call). Resumable: a run whose result is there is not run again.
if [ "${COST:-0}" = 1 ]; then
  cfgs=(${CFGS:-plain rec hsoff}); n=${#cfgs[@]}
  for r in $(seq 1 ${ROUNDS:-6}); do
    for k in $(seq 0 $(( n - 1 ))); do
      cfg=${cfgs[$(( (r - 1 + k) % n ))]}; f=$W/cost-$cfg-r$r.json
      [ -s $f ] && continue
      [ $(left) -lt 50 ] && break 2
      case $cfg in
        plain) plain --plant none --steps 3000 > $f ;;
        rec) $SS record -o $W/t-rec-r$r -- python3 $P --plant none --steps 3000 2>$W/rec-r$r.log | grep '^{' > $f ;;
        hsoff) $SS record --host-samples off -o $W/t-hsoff-r$r -- python3 $P --plant none \
                 --steps 3000 2>$W/hsoff-r$r.log | grep '^{' > $f ;;
      esac
      echo "$cfg r$r at $(( $(date +%s) - t0 )) s"
    done
    tar cf $OUT/cost.tar -C $W --exclude='t-*' .
  done
  exit 0
fi
# PAIR="A B": two configurations run at the same time, one process each, ROUNDS pairs (the
# host's pace moves by +-15 % over minutes on the H100 hosts lent: started together, both runs
# of a pair see the same host; which one starts first alternates). A configuration: plain, rec
# (3,000 steps, --plant none; rec with default options), and to split rec's cost: hsoff
# (--host-samples off), nowin (a window that never opens: marks, samplers and an idle CUPTI,
# never attached to record), norewin (auto without its re-window); PLANT-bad / PLANT-fixed
# (plain, default steps). Resumable like COST. whole_run_cost.py --pairs reads them.
rec_cfg() {  # rec_cfg TAG OUT [record options]: the healthy 3,000-step run, recorded
  local tag=$1 out=$2; shift 2
  $SS record "$@" -o $W/t-$tag -- python3 $P --plant none --steps 3000 2>$W/$tag.log | grep '^{' > $out
}
run_cfg() {  # run_cfg CFG OUT TAG
  case $1 in
    plain) plain --plant none --steps 3000 > $2 ;;
    rec) rec_cfg $3 $2 ;;
    hsoff) rec_cfg $3 $2 --host-samples off ;;
    nowin) rec_cfg $3 $2 --capture steps:1000000-1000001 ;;
    norewin) STEPSCOPE_AUTO_REWINDOW=0 rec_cfg $3 $2 ;;
    *-bad) plain --plant ${1%-bad} > $2 ;;
    *-fixed) plain --plant ${1%-fixed} --fix > $2 ;;
  esac
}
# PIN="0-7 8-15": each run of a pair on a CPU set of its own (taskset; its DataLoader workers
# inherit it), so that the two processes do not take each other's cores; which configuration
# gets which set alternates every two rounds (the start order every round), so neither set's
# place next to the GPU favours a configuration.
pinned() {  # pinned SET CFG OUT TAG: run_cfg on CPU set SET ("" none)
  local set=$1; shift
  [ -n "$set" ] && taskset -cp "$set" $BASHPID >/dev/null
  run_cfg "$@"
}
if [ -n "${PAIR:-}" ]; then
  set -- $PAIR
  pins=(${PIN:-} "" "")
  for r in $(seq 1 ${ROUNDS:-12}); do
    fa=$W/pair-$1-r$r.json; fb=$W/pair-$2-r$r.json
    [ -s $fa ] && [ -s $fb ] && continue
    [ $(left) -lt ${RUN_S:-60} ] && break
    ca=${pins[$(( (r - 1) / 2 % 2 ))]}; cb=${pins[$(( 1 - (r - 1) / 2 % 2 ))]}
    if [ $((r % 2)) = 1 ]; then (pinned "$ca" $1 $fa $1-r$r) & sleep 0.2; (pinned "$cb" $2 $fb $2-r$r) &
    else (pinned "$cb" $2 $fb $2-r$r) & sleep 0.2; (pinned "$ca" $1 $fa $1-r$r) & fi
    wait
    echo "pair r$r at $(( $(date +%s) - t0 )) s"
    tar cf $OUT/pairs.tar -C $W --exclude='t-*' .
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
