#!/bin/bash
# CPU smoke test of the real-framework programs (bench/workloads/frameworks): every program,
# bad and fixed, --device cpu --tiny through run_twins.py smoke; then what each must show on the
# CPU: the graph twin skips (77), the steady-state recompile happens in the planted twin's timed
# steps and not in the fixed one's, Lightning starts no Open MPI `orted`, --json-out holds the
# result line, --torch-profiler counts its kernels, refused arguments exit 2.
# Needs a python with torch >= 2.0 (STEPSCOPE_TEST_PYTHON, the repository's .venv-cpu, python3,
# /usr/bin/python3): without one "skipped: ...", exit 77. A framework that is not installed
# (transformers, lightning, timm, torchvision) skips its programs, which the test accepts.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
fw="$root/bench/workloads/frameworks"
py=""
for cand in ${STEPSCOPE_TEST_PYTHON:-} "$root/.venv-cpu/bin/python" python3 /usr/bin/python3; do
  if "$cand" -c "import sys, torch; sys.exit(int(torch.__version__.split('.')[0]) < 2)" >/dev/null 2>&1; then
    py=$cand; break
  fi
done
if [ -z "$py" ]; then
  echo "skipped: no python with torch >= 2.0 (set STEPSCOPE_TEST_PYTHON)"
  exit 77
fi
echo "using $py (torch $("$py" -c 'import torch; print(torch.__version__)'))"
export OMP_NUM_THREADS=1 PYTHONHASHSEED=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_frameworks_cpu.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok: $*"; }
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }

# 1. Every configuration once: ok, or skipped only for CUDA graphs or a missing framework.
timeout 900 "$py" "$root/bench/workloads/run_twins.py" smoke --device cpu --python "$py" \
  --programs frameworks --out "$tmp/smoke" >"$tmp/smoke.log" 2>&1
rc=$?
grep '^\[run_twins [0-9:]*\] smoke' "$tmp/smoke.log"
if [ $rc = 0 ] && "$py" - "$tmp/smoke/smoke.json" "$root/bench/workloads" <<'PY'
import importlib.util, json, sys
sys.path.insert(0, sys.argv[2])
import programs as P
runs = json.load(open(sys.argv[1]))
want = {c for p, vs in P.select("frameworks") for c in p.configs()}
assert set(runs) == want, sorted(set(runs) ^ want)
for config, run in runs.items():
    program = P.BY_NAME[config.rsplit("-", 1)[0]]
    missing = [m for m in program.needs if importlib.util.find_spec(m) is None]
    if run["status"] == "skipped":
        assert config == "cuda_graph-fixed" or missing, (config, run)
        continue
    assert run["status"] == "ok", (config, run)
    res = run["result"]
    assert res["ms_per_step"] > 0 and res["steps"] == 3 and res["device"] == "cpu", res
    assert res["variant"] == config.rsplit("-", 1)[1], (config, res["variant"])
    assert res["held_out"] if program.held_out else not res.get("held_out"), (config, res)
PY
then ok "smoke: every framework configuration ran (or skipped for CUDA / a missing framework)"
else bad "smoke (rc $rc)"; tail -20 "$tmp/smoke.log"; fi

# result FILE KEY: a key of the JSON result line in a run's output.
result() { "$py" -c 'import json, sys
for line in open(sys.argv[1]):
    if line.startswith("{") and "ms_per_step" in line: d = json.loads(line)
print(d[sys.argv[2]])' "$1" "$2"; }
small="--device cpu --tiny --steps 3 --warmup 1"

# 2. The graph twin needs CUDA.
# shellcheck disable=SC2086
"$py" "$fw/cuda_graph.py" $small --fix >"$tmp/graph.out" 2>&1
[ $? = 77 ] && grep -q '^skipped: CUDA graphs' "$tmp/graph.out" && ok "cuda_graph --fix skips on the CPU" \
  || bad "cuda_graph --fix: $(tail -1 "$tmp/graph.out")"

# 3. Steady-state recompilation: planted recompiles inside the timed steps, the fixed twin not.
for twin in bad fixed; do
  flag=""; [ $twin = fixed ] && flag=--fix
  # shellcheck disable=SC2086
  timeout 300 "$py" "$fw/compile_mlp.py" --device cpu --tiny --steps 6 --warmup 1 --recompile \
    --shape-every 2 --backend aot_eager $flag >"$tmp/recompile-$twin.out" 2>&1 || bad "compile_mlp --recompile $flag"
done
nb=$(result "$tmp/recompile-bad.out" graphs_compiled_timed 2>/dev/null)
nf=$(result "$tmp/recompile-fixed.out" graphs_compiled_timed 2>/dev/null)
[ "${nb:-0}" -ge 3 ] && [ "$nf" = 0 ] && ok "recompile: $nb graphs compiled in the planted twin's timed steps, 0 in the fixed one's" \
  || bad "recompile: planted $nb, fixed $nf"

# 4. Lightning without the MPI probe: no orted among its processes.
if "$py" -c "import lightning" >/dev/null 2>&1 || "$py" -c "import pytorch_lightning" >/dev/null 2>&1; then
  # shellcheck disable=SC2086
  timeout 300 "$py" "$fw/lightning_cnn.py" $small --fix >"$tmp/light.out" 2>&1
  [ "$(result "$tmp/light.out" orted 2>/dev/null)" = False ] && ok "lightning: no orted (helpers: $(result "$tmp/light.out" helper_processes))" \
    || bad "lightning orted check: $(tail -2 "$tmp/light.out")"
fi

# 5. --json-out holds the result line; --torch-profiler runs and reports its count.
# shellcheck disable=SC2086
"$py" "$fw/eager_mlp.py" $small --json-out "$tmp/r.json" --torch-profiler >"$tmp/eager.out" 2>&1 &&
  "$py" -c 'import json, sys
a = json.load(open(sys.argv[1]))
b = [json.loads(l) for l in open(sys.argv[2]) if l.startswith("{")][-1]
assert a == b and a["torch_profiler"] is True and a["profiled_kernels"] == 0, (a, b)' "$tmp/r.json" "$tmp/eager.out" \
  && ok "--json-out equals the result line; --torch-profiler counted 0 GPU kernels on the CPU" \
  || bad "--json-out / --torch-profiler: $(tail -2 "$tmp/eager.out")"

# 6. Refused arguments.
for args in "compile_mlp.py --fix" "compile_mlp.py --recompile --mode reduce-overhead" \
    "eager_mlp.py --steps 0" "timm_vit.py --warmup -1"; do
  # shellcheck disable=SC2086
  "$py" "$fw"/$args --device cpu --tiny >"$tmp/refused.out" 2>&1
  [ $? = 2 ] && ok "refused: $args" || bad "not refused: $args"
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
