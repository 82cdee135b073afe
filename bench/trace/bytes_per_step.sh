#!/bin/sh
# bytes_per_step.sh BUILD [STEPS] — how much a trace grows per step outside GPU windows (issue
# #43, item 3): step marks, NVTX ranges, host samples at the default rates, no GPU window after
# the first. Two loops, each recorded for STEPS and 3 x STEPS steps (the difference is the
# steady growth, without the start's strings and ENV records), with the fake CUPTI of
# tests/collect (no GPU needed; outside windows CUPTI records nothing anyway):
#   C       tests/collect/cupti_prog steady: a step range (stepscope_step_begin/end) around 3
#           launches and ~1 ms of sleep
#   Python  the shim with tests/markers' fake torch: a DataLoader iteration and an optimizer
#           step (the shim's step and data ranges) around 2 ms of busy Python; its stacks
#           sampled at the default 100 Hz
# Prints one line per loop: on disk (zstd, as the collector writes when libzstd.so.1 loads)
# and raw (the records' own bytes), per step, and the steps' mean time.
set -eu
B=$(cd "$1" && pwd) N=${2:-2000}
SRC=$(cd "$(dirname "$0")/../.." && pwd)
W=$(mktemp -d) && trap 'rm -rf "$W"' EXIT
export LD_LIBRARY_PATH="$B/tests/collect/fake_cupti${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
cat >"$W/loop.py" <<'PY'
import ctypes, os, sys, time
import torch
from torch.utils.data import DataLoader
import torch.optim.optimizer as O
class SGD(O.Optimizer):
    def step(self): pass
ctypes.CDLL(os.environ["CUDA_INJECTION64_PATH"]).InitializeInjection()  # as cuInit would
opt = SGD([1])
for i in range(int(sys.argv[1])):
    for _ in DataLoader([1]): pass
    t = time.perf_counter() + 0.002
    while time.perf_counter() < t: pass
    opt.step()
PY
# file_bytes record_bytes span_ns of the one trace in $1
sizes() {
    "$B/stepscope" info --json "$1"/*.sstrace | python3 -c '
import json, sys; d = json.load(sys.stdin)
print(d["file_bytes"], d["record_bytes"])'
}
run() { # name, then the program: recorded for N and 3N steps
    name=$1; shift
    for n in "$N" $((3 * N)); do
        rm -rf "$W/$n"
        t0=$(date +%s%N)
        PYTHONPATH="$SRC/tests/markers/fake_torch" "$B/stepscope" record -q -o "$W/$n" -- "$@" "$n" >/dev/null
        echo "$(sizes "$W/$n") $(( $(date +%s%N) - t0 ))"
    done | paste -s -d' ' | awk -v name="$name" -v n="$N" '{
        printf "%-7s %6.1f B/step on disk, %6.1f B/step raw, %.2f ms/step (%d and %d steps)\n",
               name, ($4 - $1) / (2 * n), ($5 - $2) / (2 * n), ($6 - $3) / (2 * n) / 1e6, n, 3 * n }'
}
run C sh -c '"$0" steady "$1" 1000 "$1" 0' "$B/cupti_prog"
command -v python3 >/dev/null && run Python python3 "$W/loop.py"
