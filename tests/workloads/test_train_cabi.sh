#!/bin/bash
# CPU test of the C training program on libtorch's C ABI (bench/workloads/c): builds it with the
# C compiler against a torch >= 2.10 and checks that training runs and the loss decreases, that
# the fixed twins compute the same thing as the planted ones, and that bad flags are refused.
# torch is looked for in: $STEPSCOPE_TORCH_DIR, the cache of get_torch_cabi.sh, python3's torch.
# Without one it prints "skipped: torch not installed" and exits 77 (ctest SKIP_RETURN_CODE).
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cache=${STEPSCOPE_CACHE:-$HOME/.cache/stepscope}

torch_ok() { [ -n "$1" ] && [ -f "$1/lib/libtorch_cpu.so" ] && [ -f "$1/lib/libc10.so" ]; }
# python3's torch only if >= 2.10 (torch_call_dispatcher).
py_torch=$(python3 -c 'import os, torch; v = tuple(int(p) for p in torch.__version__.split("+")[0].split(".")[:2]); print(os.path.dirname(torch.__file__) if v >= (2, 10) else "")' 2>/dev/null || true)
torch=""
for cand in "${STEPSCOPE_TORCH_DIR:-}" "$cache"/torch-cabi-*/torch "$py_torch"; do
  if torch_ok "$cand"; then torch=$cand; break; fi
done
if [ -z "$torch" ]; then
  echo "skipped: torch not installed (set STEPSCOPE_TORCH_DIR or run tests/workloads/get_torch_cabi.sh)"
  exit 77
fi
echo "using torch at $torch"
export LD_LIBRARY_PATH="$torch/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_train_cabi.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$root/bench/workloads/c/build.sh" "$torch" "$tmp" cpu || fail "build"
bin="$tmp/train_cabi"
missing=$(ldd "$bin" | grep "not found" || true)
if [ -n "$missing" ]; then
  echo "skipped: torch at $torch needs libraries that are not here: $missing"
  exit 77
fi

# losses FILE: the "value=" of each printed loss, one a line.
losses() { sed -n 's/^loss step=[0-9]* value=//p' "$1"; }

# The brief's run: 3 steps, loss read every step, must go down step after step.
"$bin" --steps 3 --warmup 1 --print-loss >"$tmp/3.out" 2>&1 || { cat "$tmp/3.out"; fail "3-step run"; }
cat "$tmp/3.out"
[ "$(losses "$tmp/3.out" | wc -l)" = 3 ] || fail "expected 3 losses"
losses "$tmp/3.out" | awk 'NR > 1 && $1 >= prev { bad = 1 } { prev = $1 } END { exit bad }' \
  || fail "loss did not decrease at every step"
grep -q '^result ms_per_step=[0-9.]* ' "$tmp/3.out" || fail "no result line"

# A longer run: the loss must fall by at least 40% (it falls ~53% at these sizes).
"$bin" --steps 60 --warmup 2 --data ahead --ahead-batches 60 --print-loss >"$tmp/60.out" 2>&1 \
  || { cat "$tmp/60.out"; fail "60-step run"; }
tail -n 1 "$tmp/60.out"
losses "$tmp/60.out" | awk 'NR == 1 { first = $1 } { last = $1 } END { exit !(last < 0.6 * first) }' \
  || fail "loss did not fall by 40% in 60 steps"

# Fixed twins compute what the planted ones do: same data, same losses.
base="--steps 20 --warmup 1 --print-loss"
for twin in "--data thread" "--data thread --workers 3" "--data ahead --ahead-batches 20" \
    "--data thread --sync-every 5"; do
  # shellcheck disable=SC2086
  "$bin" $base $twin >"$tmp/twin.out" 2>&1 || { cat "$tmp/twin.out"; fail "run $twin"; }
  # shellcheck disable=SC2086
  "$bin" $base >"$tmp/plant.out" 2>&1 || fail "planted run"
  want=$(losses "$tmp/plant.out" | tail -n 1)
  got=$(losses "$tmp/twin.out" | tail -n 1)
  [ -n "$got" ] && [ "$got" = "$want" ] || fail "$twin: final loss $got, planted run $want"
done
# bf16 trains too and ends near fp32.
"$bin" $base --dtype bf16 >"$tmp/bf16.out" 2>&1 || { cat "$tmp/bf16.out"; fail "bf16 run"; }
losses "$tmp/bf16.out" | awk 'NR == 1 { first = $1 } { last = $1 } END { exit !(last < 0.9 * first) }' \
  || fail "bf16 loss did not decrease"

# Refused: pinned copies on the CPU, unknown flags, bad numbers.
for bad in "--copy pinned" "--bogus 1" "--steps 0" "--dtype fp8" "--steps 3 --warmup 3"; do
  # shellcheck disable=SC2086
  "$bin" $bad >"$tmp/bad.out" 2>&1
  rc=$?
  [ $rc = 2 ] && grep -q '^train_cabi: ' "$tmp/bad.out" || { cat "$tmp/bad.out"; fail "'$bad' gave rc=$rc"; }
done
echo "PASS"
