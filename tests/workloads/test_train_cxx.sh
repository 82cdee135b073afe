#!/bin/bash
# CPU test of the C++ training program over libtorch's C++ API (bench/workloads/cxx): builds it
# against a torch that has the C++ headers and checks that it trains, that the fixed twins
# compute what the planted ones do, that bad flags are refused, and — when the C-ABI program
# builds against the same torch — that the two programs print the same losses (same model,
# data and initial weights; autograd here, hand-written backward there).
# torch is looked for in: $STEPSCOPE_TORCH_DIR, the cache of get_torch_cabi.sh --cxx, python3's
# torch. Without one it prints "skipped: ..." and exits 77 (ctest SKIP_RETURN_CODE).
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cache=${STEPSCOPE_CACHE:-$HOME/.cache/stepscope}
nvtx=${NVTX_INCLUDE:-/usr/local/cuda/include}

has_cxx() {
  [ -n "$1" ] && [ -f "$1/lib/libtorch_cpu.so" ] && [ -f "$1/lib/libc10.so" ] &&
    [ -f "$1/include/torch/csrc/api/include/torch/torch.h" ]
}
py_torch=$(python3 -c 'import os, torch; print(os.path.dirname(torch.__file__))' 2>/dev/null || true)
torch=""
for cand in "${STEPSCOPE_TORCH_DIR:-}" "$cache"/torch-cabi-*/torch "$py_torch"; do
  if has_cxx "$cand"; then torch=$cand; break; fi
done
if [ -z "$torch" ]; then
  echo "skipped: no torch with C++ headers (set STEPSCOPE_TORCH_DIR or run tests/workloads/get_torch_cabi.sh --cxx)"
  exit 77
fi
if [ ! -f "$nvtx/nvtx3/nvToolsExt.h" ]; then
  echo "skipped: no nvtx3 headers in $nvtx (CUDA toolkit)"
  exit 77
fi
echo "using torch at $torch"
export LD_LIBRARY_PATH="$torch/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export OMP_NUM_THREADS=1 # the shared 2-core machines: no thread pool fighting the other tests
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_train_cxx.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# cpu: the C++ program only needs the CPU libraries here, whatever else the torch folder holds.
WERROR=1 "$root/bench/workloads/cxx/build.sh" "$torch" "$tmp" direct cpu || fail "build"
bin="$tmp/train_cxx"
missing=$(ldd "$bin" | grep "not found" || true)
if [ -n "$missing" ]; then
  echo "skipped: torch at $torch needs libraries that are not here: $missing"
  exit 77
fi

losses() { sed -n 's/^loss step=[0-9]* value=//p' "$1"; }

"$bin" --steps 3 --warmup 1 --print-loss >"$tmp/3.out" 2>&1 || { cat "$tmp/3.out"; fail "3-step run"; }
cat "$tmp/3.out"
[ "$(losses "$tmp/3.out" | wc -l)" = 3 ] || fail "expected 3 losses"
losses "$tmp/3.out" | awk 'NR > 1 && $1 >= prev { bad = 1 } { prev = $1 } END { exit bad }' \
  || fail "loss did not decrease at every step"
grep -q '^result ms_per_step=[0-9.]* data_ms_per_step=[0-9.]* ' "$tmp/3.out" || fail "no result line"

"$bin" --steps 60 --warmup 2 --data ahead --ahead-batches 60 --print-loss >"$tmp/60.out" 2>&1 \
  || { cat "$tmp/60.out"; fail "60-step run"; }
tail -n 1 "$tmp/60.out"
losses "$tmp/60.out" | awk 'NR == 1 { first = $1 } { last = $1 } END { exit !(last < 0.6 * first) }' \
  || fail "loss did not fall by 40% in 60 steps"

# Fixed twins compute what the planted ones do: same data, same losses.
base="--steps 20 --warmup 1 --print-loss"
# shellcheck disable=SC2086
"$bin" $base >"$tmp/plant.out" 2>&1 || fail "planted run"
want=$(losses "$tmp/plant.out" | tail -n 1)
for twin in "--data thread" "--data thread --workers 3" "--data ahead --ahead-batches 20" \
    "--data thread --sync-every 5"; do
  # shellcheck disable=SC2086
  "$bin" $base $twin >"$tmp/twin.out" 2>&1 || { cat "$tmp/twin.out"; fail "run $twin"; }
  got=$(losses "$tmp/twin.out" | tail -n 1)
  [ -n "$got" ] && [ "$got" = "$want" ] || fail "$twin: final loss $got, planted run $want"
done
# shellcheck disable=SC2086
"$bin" $base --dtype bf16 >"$tmp/bf16.out" 2>&1 || { cat "$tmp/bf16.out"; fail "bf16 run"; }
losses "$tmp/bf16.out" | awk 'NR == 1 { first = $1 } { last = $1 } END { exit !(last < 0.9 * first) }' \
  || fail "bf16 loss did not decrease"

for bad in "--copy pinned" "--bogus 1" "--steps 0" "--dtype fp8" "--steps 3 --warmup 3" "--device"; do
  # shellcheck disable=SC2086
  "$bin" $bad >"$tmp/bad.out" 2>&1
  rc=$?
  [ $rc = 2 ] && grep -q '^train_cxx: ' "$tmp/bad.out" || { cat "$tmp/bad.out"; fail "'$bad' gave rc=$rc"; }
done

# Every case of bench/workloads/programs.py (its flags, both twins) is accepted: shrunk to a few
# tiny CPU steps by later flags (pinned copies need CUDA: pageable here).
shrink="--device cpu --batch 8 --in 8 --hidden 8 --out 2 --copy pageable --ahead-batches 2 --steps 3 --warmup 1"
# table_cases KIND: the flags of each configuration of that kind, one a line.
table_cases() {
  python3 - "$root/bench/workloads" "$1" <<'PY'
import shlex, sys
sys.path.insert(0, sys.argv[1])
import programs as P
for p in P.PROGRAMS:
    if p.kind == sys.argv[2]:
        for v, extra in p.variants.items():
            print(" ".join(shlex.quote(a) for a in p.argv + extra + p.truth))
PY
}
# run_table_cases KIND BINARY: each configuration runs, shrunk.
run_table_cases() {
  local cases flags
  cases=$(table_cases "$1")
  [ -n "$cases" ] || fail "no $1 cases in programs.py"
  while IFS= read -r flags; do
    # shellcheck disable=SC2086
    "$2" $flags $shrink >"$tmp/case.out" 2>&1 || { cat "$tmp/case.out"; fail "programs.py $1 case: $flags"; }
  done <<<"$cases"
  echo "ok: the $(echo "$cases" | wc -l) $1 configurations of programs.py run (shrunk)"
}
run_table_cases cxx "$bin"

# The C program on the same torch (>= 2.10 for its dispatcher calls) must print the same losses.
if "$root/bench/workloads/c/build.sh" "$torch" "$tmp/c" cpu >"$tmp/c.log" 2>&1; then
  # shellcheck disable=SC2086
  "$tmp/c/train_cabi" $base >"$tmp/c.out" 2>&1 || { cat "$tmp/c.out"; fail "train_cabi run"; }
  diff <(losses "$tmp/c.out") <(losses "$tmp/plant.out") >"$tmp/diff" ||
    { cat "$tmp/diff"; fail "train_cxx and train_cabi print different losses"; }
  echo "ok: train_cxx and train_cabi print the same 20 losses"
  run_table_cases cabi "$tmp/c/train_cabi"
else
  echo "note: train_cabi did not build against this torch (see below); loss comparison left out"
  tail -n 3 "$tmp/c.log"
fi
echo "PASS"
