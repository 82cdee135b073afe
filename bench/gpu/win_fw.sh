#!/bin/bash
# win_fw.sh OUT BUDGET_S — the recording's own cost measured inside one process (issue #18):
# framework programs recorded with a GPU capture window that opens after their warm-up, so
# each trace holds uninstrumented steps (collector loaded, CUPTI idle: step markers only)
# before the window and recorded steps inside it; each also run plain (no stepscope) for the
# truth, alternated. The report's measured-cost estimate is judged against plain vs recorded.
#   traces: OUT/CONFIG-rN/*.sstrace; plain ms/step: OUT/CONFIG-plain-rN.json (the program's line)
set -u
out=$1 budget=${2:-300}
py=${PLAN_PYTHON:-python3}
mkdir -p "$out"
t0=$SECONDS
cmd() { "$py" -c 'import sys; sys.path.insert(0, "bench/workloads"); import programs as P
name, _, var = sys.argv[1].rpartition("-")
print(" ".join(P.command(P.BY_NAME[name], var, ["--steps", "90", "--warmup", "5"], python=sys.argv[2])))' "$1" "$py"; }
for r in 1 2; do
  for c in eager_mlp-bad eager_mlp-fixed timm_vit-fixed hf_trainer_gpt2-fixed cuda_graph-fixed \
           compile_default-plain heldout_bert-fixed; do
    [ $((SECONDS - t0)) -lt $((budget - 40)) ] || { echo "budget: stopped before $c r$r"; exit 0; }
    argv=$(cmd "$c") || continue
    echo "== $c round $r: $argv"
    timeout 120 $argv > "$out/$c-plain-r$r.log" 2>&1
    timeout 150 build-gpu/stepscope record -q -o "$out/$c-r$r" --capture steps:45-85 -- $argv \
      > "$out/$c-rec-r$r.log" 2>&1
    ls -l "$out/$c-r$r" 2>/dev/null | tail -n +2
  done
done
