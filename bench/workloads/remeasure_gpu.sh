#!/bin/bash
# remeasure_gpu.sh — one device call that measures planted cases again with their repetitions
# kept (tests/accuracy/README.md: a truth too noisy to judge is measured again, never passed),
# from the repository's root on the GPU machine: first the bad twins recorded with default
# options (run_truth.py --reps 0 --record), then REPS interleaved repetitions of every
# configuration (bad and fixed of one repetition back to back; what fits the budget). The
# stepscope is an installed prefix packed as .lab/prefix.txz (carried; gpu_batch.sh's header
# says how to make it). Results: $OUT/cap.tgz (captures) and $OUT/rt.tgz (truth.json); the
# committed form is tests/fixtures/workloads/remeasured/NAME/ (its README says what to copy).
#
#   CASES=sync,launch REPS=10 B=420 bash bench/workloads/remeasure_gpu.sh
set -u
export PYTHONUNBUFFERED=1
. bench/gpu_prefix.sh
[ -n "$SS" ] || { echo "remeasure_gpu.sh: no stepscope (carry .lab/prefix.txz)" >&2; exit 2; }
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu --format=csv,noheader
C=${CASES:?comma list of run_truth.py cases}
python3 bench/workloads/run_truth.py --cases "$C" --reps 0 --record --stepscope "$SS" \
  --out /tmp/cap --budget-s 120 2>&1 | tail -8
tar czf "$OUT/cap.tgz" -C /tmp cap
timeout -s INT "${T:-430}" python3 bench/workloads/run_truth.py --cases "$C" --reps "${REPS:-10}" \
  --out /tmp/rt --budget-s "${B:-420}" 2>&1 | tail -25
tar czf "$OUT/rt.tgz" -C /tmp rt
