#!/bin/bash
# On the H200: builds train_cabi against the machine's torch 2.11 (libtorch_cuda linked) and runs
# each planted cause bad and fixed, interleaved, REPS times, printing ms/step of each run.
#   bench/workloads/c/build_gpu.sh [OUT_DIR]     (REPS=5 by default)
# With STEPSCOPE=path/to/stepscope and RECORD_DIR=DIR it then records each case bad and fixed
# once (DIR/<case>-<twin>/, 30 steps) for the report's accuracy tests.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
torch=${TORCH_DIR:-/opt/torch/.venv/lib/python3.12/site-packages/torch}
out=${1:-build-cabi-gpu}
reps=${REPS:-5}
"$here/build.sh" "$torch" "$out" cuda
bin="$out/train_cabi"
# Libraries libtorch_cuda needs from the venv's nvidia-* wheels (cudnn, cublas, nccl, ...).
nv=$(dirname "$torch")/nvidia
export LD_LIBRARY_PATH="$torch/lib$(for d in "$nv"/*/lib "$nv"/lib; do [ -d "$d" ] && printf ':%s' "$d"; done)${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
common="--device cuda --steps 60 --warmup 10"
# case name | shared flags | planted | fixed. 2026-11-29 (H200): host preparation of a batch
# (--transform-iters 1, 512 x 256) took 2.8 ms against ~1 ms of GPU work, so one producer
# thread could not help (3.0 vs 3.2 ms/step): the data twin now uses 4 producer threads. The
# sync case had a 0.15 ms step with nothing to overlap (no measurable cost); now each step
# also prepares its batch inline (2.8 ms) against ~4 ms of GPU work, which a per-step loss
# read serialises. Both sizes are still to be measured.
cases=(
  "data|--batch 512 --in 256 --hidden 65536 --out 8 --copy pinned --transform-iters 1 --sync-every 50|--data inline|--data thread --workers 4"
  "copy|--batch 8192 --in 4096 --hidden 1024 --out 8 --data ahead --ahead-batches 4 --transform-iters 0 --sync-every 50|--copy pageable|--copy pinned"
  "sync|--batch 512 --in 256 --hidden 262144 --out 8 --data inline --transform-iters 1 --copy pinned|--sync-every 1|--sync-every 50"
  "dtype|--batch 4096 --in 4096 --hidden 8192 --out 64 --data ahead --ahead-batches 2 --transform-iters 0 --copy pinned --sync-every 50|--dtype fp32|--dtype bf16"
)
for c in "${cases[@]}"; do
  IFS='|' read -r name shared bad fixed <<<"$c"
  for ((r = 1; r <= reps; r++)); do
    for twin in bad fixed; do
      flags=$bad; [ $twin = fixed ] && flags=$fixed
      # shellcheck disable=SC2086
      res=$("$bin" $common $shared $flags | grep '^result ')
      echo "case=$name twin=$twin rep=$r $res"
    done
  done
done
[ -n "${STEPSCOPE:-}" ] && [ -n "${RECORD_DIR:-}" ] || exit 0
mkdir -p "$RECORD_DIR"
for c in "${cases[@]}"; do
  IFS='|' read -r name shared bad fixed <<<"$c"
  for twin in bad fixed; do
    flags=$bad; [ $twin = fixed ] && flags=$fixed
    # shellcheck disable=SC2086
    "$STEPSCOPE" record -q -o "$RECORD_DIR/$name-$twin" -- "$bin" $common $shared $flags \
        --steps 40 --warmup 10 | grep '^result ' | sed "s/^/record case=$name twin=$twin /"
  done
done
