#!/bin/sh
# outside_window.sh BUILD [STEPS] [REPS] — what the default recording costs a step outside its
# GPU window (issue #43, item 3), without a GPU: the Python shim's step and DataLoader marks,
# NVTX through the collector, its writer thread, the C host sampler (10 Hz) and the Python
# stack sampler (100 Hz), on tests/markers' fake torch and tests/collect's fake CUPTI (outside
# a window CUPTI is detached, so the fake stands in for nothing that runs there).
#
# The loop: a DataLoader iteration, BUSY_US of busy Python (default 2000), an optimizer step.
# It times its own steps 300..300+STEPS (after `auto`'s window of steps 8-107, so none of the
# window is in it) and prints the mean step in us. Plain (no stepscope), recorded with the
# defaults and recorded with --host-samples off (no Python stack sampler) run in turn, each
# recorded run between two plain ones, REPS times (default 5); per configuration the median
# (min..max) step, and each recording's cost per step: the median of its runs against the
# plain runs beside them.
set -eu
B=$(cd "$1" && pwd) N=${2:-3000} REPS=${3:-5} BUSY=${BUSY_US:-2000}
SRC=$(cd "$(dirname "$0")/../.." && pwd)
W=$(mktemp -d) && trap 'rm -rf "$W"' EXIT
export LD_LIBRARY_PATH="$B/tests/collect/fake_cupti${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PYTHONPATH="$SRC/tests/markers/fake_torch"
cat >"$W/loop.py" <<'PY'
import ctypes, os, sys, time
import torch
from torch.utils.data import DataLoader
import torch.optim.optimizer as O
class SGD(O.Optimizer):
    def step(self): pass
if "CUDA_INJECTION64_PATH" in os.environ:  # recorded: start the collector as cuInit would
    ctypes.CDLL(os.environ["CUDA_INJECTION64_PATH"]).InitializeInjection()
n, busy, warm = int(sys.argv[1]), int(sys.argv[2]) / 1e6, 300
opt = SGD([1])
for i in range(warm + n):
    if i == warm:
        t0 = time.perf_counter()
    for _ in DataLoader([1]): pass
    t = time.perf_counter() + busy
    while time.perf_counter() < t: pass
    opt.step()
print("%.3f" % ((time.perf_counter() - t0) / n * 1e6))
PY
plain() { python3 "$W/loop.py" "$N" "$BUSY"; }
recorded() { "$B/stepscope" record -q -o "$W/t" "$@" -- python3 "$W/loop.py" "$N" "$BUSY"; rm -rf "$W/t"; }
for r in $(seq 1 "$REPS"); do
    echo "plain $(plain)" >>"$W/runs"
    echo "rec $(recorded)" >>"$W/runs"
    echo "plain $(plain)" >>"$W/runs"
    echo "hsoff $(recorded --host-samples off)" >>"$W/runs"
done
echo "plain $(plain)" >>"$W/runs" # every recorded run between two plain ones
python3 - "$W/runs" "$N" "$BUSY" <<'PY'
import statistics as st, sys
runs = [(l.split()[0], float(l.split()[1])) for l in open(sys.argv[1])]
def show(cfg):
    v = [us for c, us in runs if c == cfg]
    return "%.1f us (%.1f..%.1f), %d runs" % (st.median(v), min(v), max(v), len(v))
def cost(cfg):
    v = [us - (runs[i - 1][1] + runs[i + 1][1]) / 2 for i, (c, us) in enumerate(runs) if c == cfg]
    return "%.1f us/step (%.1f..%.1f)" % (st.median(v), min(v), max(v))
print("steps %s..%s of each run, busy Python %s us a step" % (300, 300 + int(sys.argv[2]), sys.argv[3]))
print("plain                     %s" % show("plain"))
print("recorded                  %s; cost %s" % (show("rec"), cost("rec")))
print("recorded, host samples off %s; cost %s" % (show("hsoff"), cost("hsoff")))
PY
