#!/bin/bash
# CPU test of the planted host-time cases and the program runners (bench/workloads/host,
# run_twins.py, ../overhead/run_overhead.py): the twins compute the same thing, make_truth.py
# finds each plant's function and line from its marker (and refuses a missing or doubled one),
# the truth runner works end to end, result lines parse, and a recording that holds no kernels
# is never counted as a cheap run. Needs a python with torch (STEPSCOPE_TEST_PYTHON, the
# repository's .venv-cpu, python3, /usr/bin/python3); without one: "skipped: ...", exit 77.
#   test_host_cpu.sh [STEPSCOPE_BINARY]     (the overhead check runs only when it is given)
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
stepscope=${1:-}
py=""
for cand in ${STEPSCOPE_TEST_PYTHON:-} "$root/.venv-cpu/bin/python" python3 /usr/bin/python3; do
  if "$cand" -c "import torch" >/dev/null 2>&1; then py=$cand; break; fi
done
if [ -z "$py" ]; then
  echo "skipped: torch not installed"
  exit 77
fi
echo "using $py (torch $("$py" -c 'import torch; print(torch.__version__)'))"
export OMP_NUM_THREADS=1 PYTHONHASHSEED=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_host_cpu.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok: $*"; }
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }
plants="$root/bench/workloads/host/host_plants.py"

# field JSON_FILE KEY: one key of a result line (the last JSON line of a run's output).
field() { "$py" -c 'import json, sys; print(json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])[sys.argv[2]])' "$1" "$2"; }

# 1. Each plant and its twin: both run, same final loss (same arithmetic), reads as planted.
for case in collate item pyloop; do
  for twin in bad fixed; do
    flag=""; [ $twin = fixed ] && flag=--fix
    # shellcheck disable=SC2086
    timeout 120 "$py" "$plants" --case $case --device cpu --tiny --steps 6 --warmup 1 $flag \
      >"$tmp/$case-$twin.out" 2>"$tmp/$case-$twin.err" || { bad "$case $twin run"; tail -5 "$tmp/$case-$twin.err"; continue 2; }
  done
  lb=$(field "$tmp/$case-bad.out" final_loss) lf=$(field "$tmp/$case-fixed.out" final_loss)
  if [ "$lb" = "$lf" ]; then ok "$case: bad and fixed end at the same loss ($lb)"; else bad "$case: losses $lb vs $lf"; fi
done
[ "$(field "$tmp/item-bad.out" loss_reads)" = 7 ] && [ "$(field "$tmp/item-fixed.out" loss_reads)" = 0 ] \
  && ok "item: 7 reads planted, none in the fixed twin's 7 steps" || bad "item: loss_reads"
"$py" "$plants" --case item --device cpu --tiny --steps 0 >/dev/null 2>&1
[ $? = 2 ] && ok "refused --steps 0" || bad "--steps 0 not refused"

# 2. make_truth.py --locate: the marker lines, inside the planted functions.
if "$py" "$root/bench/workloads/host/make_truth.py" --locate >"$tmp/locate" 2>&1; then
  cat "$tmp/locate"
  for pair in collate:collate_slow item:record_loss_slow pyloop:class_weights_slow; do
    case=${pair%%:*} fn=${pair#*:}
    line=$(awk -v c="$case" '$1 == c { split($2, a, ":"); print a[2] }' "$tmp/locate")
    if grep -q "^$case .*host_plants.py:[0-9]* $fn()" "$tmp/locate" &&
       sed -n "${line}p" "$plants" | grep -q "# PLANT: $case\$"; then
      ok "locate $case: $fn() line $line holds its marker"
    else
      bad "locate $case"
    fi
  done
else
  bad "make_truth.py --locate"; cat "$tmp/locate"
fi
# ... and refuses a plant file with a missing or a doubled marker.
sed 's/# PLANT: item$//' "$plants" >"$tmp/missing.py"
sed 's/^\(\s*history\["steps"\] += 1\)$/\1  # PLANT: item/' "$plants" >"$tmp/double.py"
for f in missing double; do
  if "$py" -c 'import sys; sys.path.insert(0, sys.argv[1]); import make_truth as M; M.locate(sys.argv[2])' \
      "$root/bench/workloads/host" "$tmp/$f.py" >"$tmp/$f.log" 2>&1; then
    bad "locate accepted a $f marker"
  elif grep -q "ValueError" "$tmp/$f.log"; then ok "locate refuses a $f marker"; else bad "locate $f: $(tail -1 "$tmp/$f.log")"; fi
done

# 3. The truth runner end to end (one repetition), then host_truth.json and merge.
if timeout 300 "$py" "$root/bench/workloads/host/make_truth.py" --device cpu --reps 1 --python "$py" \
    --out "$tmp/ht" --extra "--min-speedup 0" >"$tmp/ht.log" 2>&1 &&
   "$py" - "$tmp/ht" >>"$tmp/ht.log" 2>&1 <<'PY'
import json, os, sys
out = sys.argv[1]
truth = json.load(open(os.path.join(out, "host_truth.json")))
assert sorted(e["plant"] for e in truth) == ["collate", "item", "pyloop"], truth
for e in truth:
    assert e["file"] == "bench/workloads/host/host_plants.py", e
    assert e["reps"] == 1 and len(e["saving_per_rep_ms"]) == 1, e
    assert e["bad_ms"] > 0 and e["fixed_ms"] > 0 and e["saving_ms"] is not None, e
    assert e["category"] in ("data", "sync", "host"), e
t = {e["program"]: e for e in json.load(open(os.path.join(out, "truth.json")))}
assert t["host_item"]["bad"]["n_ok"] == 1 and "check" in t["host_item"], t["host_item"]
PY
then ok "make_truth.py end to end"; else bad "make_truth.py end to end"; tail -15 "$tmp/ht.log"; fi
if "$py" "$root/bench/workloads/run_twins.py" merge -o "$tmp/merged.json" "$tmp/ht" >/dev/null 2>&1 &&
   "$py" -c 'import json, sys; a = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2]))
assert [(e["program"], e.get("saving_ms")) for e in a] == [(e["program"], e.get("saving_ms")) for e in b]' \
      "$tmp/merged.json" "$tmp/ht/truth.json"; then ok "merge gives the same truth"; else bad "merge"; fi

# 4. Result lines: the last JSON line with ms_per_step (not a framework's dict print), the C/C++
#    result line, and nothing.
if "$py" - "$root/bench/workloads" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
from run_twins import parse_result
text = "{'train_runtime': '0.1'}\n{\"ms_per_step\": 2.5, \"x\": 1}\nbye\n"
assert parse_result(text) == {"ms_per_step": 2.5, "x": 1}
r = parse_result("config a=1\nresult ms_per_step=4.060 data_ms_per_step=1.5 first_loss=0.1 last_loss=0.05\n")
assert r["ms_per_step"] == 4.06 and r["data_ms_per_step"] == 1.5, r
assert parse_result("no result here\n") is None
PY
then ok "result lines parse"; else bad "parse_result"; fi

# 5. A recording that holds no kernels (no GPU here) is reported, never counted as cheap.
if [ -n "$stepscope" ] && [ -x "$stepscope" ]; then
  if timeout 300 "$py" "$root/bench/overhead/run_overhead.py" --stepscope "$stepscope" --device cpu \
      --python "$py" --programs host_item-fixed --configs plain,full --reps 1 --out "$tmp/ovh.json" \
      >"$tmp/ovh.log" 2>&1 &&
     "$py" - "$tmp/ovh.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
r = d["results"]["host_item-fixed"]
assert r["plain"]["ms_median"] > 0, r["plain"]
assert r["full"]["ms_median"] is None and r["full"]["recorded_nothing"] == 1, r["full"]
assert any(x["config"] == "full" and x["check_kernels"] == 0 for x in d["runs"]), d["runs"]
PY
  then ok "run_overhead: a recording without kernels is not counted"; else bad "run_overhead check"; tail -8 "$tmp/ovh.log"; fi
else
  echo "note: no stepscope binary given: the run_overhead check is left out"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
