#!/bin/bash
# CPU smoke test of the planted-bottleneck workloads (bench/workloads): every case, bad and
# fixed, with tiny sizes on the CPU; the combos with one cause fixed; a Kineto capture; the
# argument errors; and the ground-truth runner end to end on two cases. Needs a python with
# torch (and torchvision for the CNN cases): STEPSCOPE_TEST_PYTHON, else python3. Without
# torch it prints "skipped: torch not installed" and exits 77 (ctest SKIP_RETURN_CODE).
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
train="$root/bench/workloads/python/train.py"
# The first interpreter that has torch: STEPSCOPE_TEST_PYTHON, python3 on PATH, or the
# system one (CI installs Debian's CPU-only python3-torch for it).
py=""
for cand in ${STEPSCOPE_TEST_PYTHON:-} python3 /usr/bin/python3; do
  if "$cand" -c "import torch" >/dev/null 2>&1; then py=$cand; break; fi
done
if [ -z "$py" ]; then
  echo "skipped: torch not installed"
  exit 77
fi
echo "using $py (torch $("$py" -c 'import torch; print(torch.__version__)'))"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_train_cpu.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0

# check_json FILE EXPECTED_PLANTED: the run's JSON names those causes and a positive ms/step.
check_json() {
  "$py" - "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
want = sorted(c for c in sys.argv[2].split(",") if c)
assert sorted(d["planted"]) == want, (d["planted"], want)
assert d["ms_per_step"] > 0 and d["steps"] == 3, d
assert d["step_ms"]["p10"] <= d["step_ms"]["median"] <= d["step_ms"]["p90"], d["step_ms"]
PY
}

# run EXPECTED_PLANTED ARGS...: one training run that must succeed.
run() {
  local want=$1
  shift
  rm -f "$tmp/out.json"
  if timeout 150 "$py" "$train" "$@" --device cpu --tiny --steps 3 --json-out "$tmp/out.json" \
      >"$tmp/log" 2>&1 && check_json "$tmp/out.json" "$want" >>"$tmp/log" 2>&1; then
    passed=$((passed + 1))
    echo "ok: train.py $*"
  else
    failed=$((failed + 1))
    echo "FAIL: train.py $*"
    tail -n 15 "$tmp/log"
    return 1
  fi
}

# expect_error ARGS...: train.py must refuse these arguments with exit status 2.
expect_error() {
  timeout 60 "$py" "$train" "$@" --device cpu --tiny >"$tmp/log" 2>&1
  local rc=$?
  if [ "$rc" -eq 2 ]; then
    passed=$((passed + 1))
    echo "ok: refused: train.py $*"
  else
    failed=$((failed + 1))
    echo "FAIL: train.py $* exited $rc, expected 2"
    tail -n 5 "$tmp/log"
  fi
}

# The planted causes of each case (cases.py), in the order of the case list.
declare -A planted=(
  [data]=data [pageable]=pageable [sync]=sync [fp32]=fp32 [launch]=launch
  [empty_cache]=empty_cache [cpu_tensors]=cpu_tensors [dp]=dp [clean]=""
  [combo1]=data,sync [combo2]=pageable,cpu_tensors
)
for case in data pageable sync fp32 launch empty_cache cpu_tensors dp clean combo1 combo2; do
  run "${planted[$case]}" --case "$case"
  run "" --case "$case" --fix
done
run sync --case combo1 --fix-causes data
run data --case combo1 --fix-causes sync
run cpu_tensors --case combo2 --fix-causes pageable
run pageable --case combo2 --fix-causes cpu_tensors

# A Kineto capture: a gzipped trace with ProfilerStep ranges.
if run sync --case sync --profile-kineto "$tmp/k.json.gz"; then
  if "$py" -c "import gzip,sys; t=gzip.open(sys.argv[1]).read(); sys.exit(b'ProfilerStep#' not in t)" \
      "$tmp/k.json.gz"; then
    echo "ok: kineto capture has ProfilerStep ranges"
  else
    passed=$((passed - 1))
    failed=$((failed + 1))
    echo "FAIL: kineto capture has no ProfilerStep ranges"
  fi
fi

expect_error --case combo1 --fix-causes fp32
expect_error --case nosuchcase
expect_error --case data --set nosuchkey=1
expect_error --case data --steps 0

# The runner end to end: truth.json with both variants timed and the combo's per-cause savings.
if timeout 240 "$py" "$root/bench/workloads/run_truth.py" --python "$py" --device cpu --tiny \
    --reps 1 --cases combo1,clean --kineto --capture-steps 3 --budget-s 0 --out "$tmp/rt" \
    >"$tmp/rt.log" 2>&1 &&
   "$py" - "$tmp/rt" >>"$tmp/rt.log" 2>&1 <<'PY'
import json, os, sys
out = sys.argv[1]
truth = {e["case"]: e for e in json.load(open(os.path.join(out, "truth.json")))}
assert set(truth) == {"combo1", "clean"}, truth.keys()
c = truth["combo1"]
assert c["bad"]["n_ok"] == 1 and c["fixed"]["n_ok"] == 1, c
assert set(c["per_cause"]) == {"data", "sync"} and sorted(c["rank"]) == ["data", "sync"], c
assert truth["clean"]["planted"] == [] and truth["clean"]["saving_ms"] == 0.0
caps = json.load(open(os.path.join(out, "captures.json")))["kineto"]
assert all(v["status"] == "ok" for v in caps.values()) and len(caps) == 2, caps
for v in caps.values():
    assert os.path.getsize(os.path.join(out, v["file"])) > 0
PY
then
  passed=$((passed + 1))
  echo "ok: run_truth.py end to end"
else
  failed=$((failed + 1))
  echo "FAIL: run_truth.py end to end"
  tail -n 20 "$tmp/rt.log"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
