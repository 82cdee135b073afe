#!/bin/bash
# CPU smoke test of the fix-truth zoo (bench/zoo): every Python program of zoo.py, --device cpu
# --tiny, 2 timed steps, as the table runs it and with every planted cause fixed; every flag of
# its fix table accepted by its script; then run_zoo.py end to end on one program with a
# stand-in stepscope (tests/zoo/fake_stepscope.sh: the program runs, a committed H200 trace is
# its recording) and judge.py on what it wrote.
#   test_zoo_cpu.sh STEPSCOPE
# A program skips (exit 77) when a package it needs is missing, when it compiles on a torch
# without torch.compile (Debian's 1.13) or captures CUDA graphs (no CUDA here); the test
# accepts those skips and no other. No python with torch at all: "skipped", exit 77.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
stepscope=${1:?usage: test_zoo_cpu.sh STEPSCOPE}
py=""
for cand in ${STEPSCOPE_TEST_PYTHON:-} "$root/.venv-cpu/bin/python" python3 /usr/bin/python3; do
  if "$cand" -c "import torch" >/dev/null 2>&1; then py=$cand; break; fi
done
[ -n "$py" ] || { echo "skipped: no python with torch (set STEPSCOPE_TEST_PYTHON)"; exit 77; }
echo "using $py (torch $("$py" -c 'import torch; print(torch.__version__)'))"
export OMP_NUM_THREADS=1 PYTHONHASHSEED=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_zoo_cpu.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
timeout 1500 "$py" "$here/smoke.py" "$tmp" || exit 1
export FAKE_TRACE="$root/tests/fixtures/h200-dataloader-w0.sstrace" REAL_STEPSCOPE=$stepscope
if ! "$py" -c "import torchvision" 2>/dev/null; then
  echo "1 passed, 0 failed (runner end to end skipped: no torchvision)"; exit 0
fi
timeout 600 "$py" "$root/bench/zoo/run_zoo.py" --stepscope "$here/fake_stepscope.sh" --device cpu \
  --python "$py" --work "$tmp/run" --only plain_cnn_bn_w6 >"$tmp/run.log" 2>&1
rc=$?
# the truth in the pack, the traces beside it in traces-K.tar (files the GPU tool can return)
tar -tzf "$tmp/run/zoo.tar.gz" >"$tmp/tar.txt" 2>/dev/null
tar -tf "$tmp/run/traces-1.tar" >>"$tmp/tar.txt" 2>/dev/null
if [ $rc = 0 ] && grep -q 'truth/plain_cnn_bn_w6.json' "$tmp/tar.txt" &&
   grep -q 'traces/plain_cnn_bn_w6-fixed.sstrace' "$tmp/tar.txt" &&
   "$py" - "$tmp/run/truth/plain_cnn_bn_w6.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
fix = [f for f in t["fixes"] if f["finding"] == "data_loading"][0]
assert fix["flags"] == ["--workers", "6", "--pin"], fix
assert len(fix["before_runs"]) == 2 and len(fix["after_runs"]) == 2, fix
assert t["all_fixed_flags"] == ["--workers", "6", "--pin"], t["all_fixed_flags"]
assert t["split"] == "judge" and t["findings"][0]["id"] == "data_loading", t["findings"]
PY
then echo "ok: run_zoo.py end to end (record, report, the fix from its text, 2 rounds, pack)"
else echo "FAIL: run_zoo.py (rc $rc)"; tail -20 "$tmp/run.log"; exit 1; fi
# the judge reads what the runner wrote (its split: judge)
"$py" "$root/bench/zoo/judge.py" "$stepscope" "$tmp/run" --json >"$tmp/judge.json" &&
  grep -q '"program": "plain_cnn_bn_w6"' "$tmp/judge.json" &&
  echo "ok: judge.py reads the runner's output" || { echo "FAIL: judge.py on the runner's output"; exit 1; }
echo "3 passed, 0 failed"
