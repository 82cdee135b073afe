#!/bin/bash
# The report's environment checks on real H200 traces of misconfigured runs
# (tests/fixtures/env/README.md says how they were recorded):
#   nocudnn_text, nocudnn_json  torch.backends.cudnn.enabled=False: cudnn warns, im2col counted
#   cudnn_pass                  the same check passes where convolutions ran through cuDNN
#   clb_text, clb_json          CUDA_LAUNCH_BLOCKING=1: the check fails, the finding is priced
# Usage: env_real_cases.sh CASE STEPSCOPE FIXTURES WORKDIR PYTHON
set -u
case_name=$1 ss=$2 fx=$3 work=$4 py=$5
rm -rf "$work" && mkdir -p "$work" || exit 1
fail() { echo "FAILED [$case_name]: $*" >&2; exit 1; }
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}exitcode=86"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}halt_on_error=1:exitcode=87"

nocudnn=$fx/env/h200-nocudnn.sstrace
clb=$fx/env/h200-launch-blocking.sstrace
[ -f "$nocudnn" ] && [ -f "$clb" ] || fail "missing fixtures in $fx/env"

report() {
    "$ss" report "$@" >"$work/out" 2>"$work/err" || fail "exit $? from report $*: $(head -c 600 "$work/err")"
    if grep -qE 'Sanitizer|runtime error:' "$work/err"; then fail "sanitizer: $(head -c 2000 "$work/err")"; fi
}
has() { grep -qE -- "$1" "$work/out" || fail "output lacks /$1/: $(head -c 3000 "$work/out")"; }
lacks() { grep -qE -- "$1" "$work/out" && fail "output has /$1/: $(grep -E -- "$1" "$work/out" | head -3)"; }

# The JSON checks share these helpers: env(d) maps id -> entry; the order and the keys are
# docs/report-json.md's.
PYHEAD='
import json, sys
IDS = ["launch_blocking", "driver_runtime", "cudnn", "open_files", "cpu_cores",
       "dataloader_workers", "omp_threads", "visible_devices", "nccl_env", "alloc_conf"]
def load(path):
    d = json.load(open(path))
    assert d["schema"] == "stepscope.report" and d["version"] == 1, (d["schema"], d["version"])
    env = d["environment"]
    assert [c["id"] for c in env] == IDS, [c["id"] for c in env]
    for c in env:
        assert set(c) == {"id", "title", "status", "value", "fix"}, c
        assert (c["fix"] is not None) == (c["status"] in ("warn", "fail")), c
    return d, {c["id"]: c for c in env}
def only(env, want):
    # every check passes but those named in want (id -> status)
    st = {i: c["status"] for i, c in env.items()}
    exp = {i: want.get(i, "pass") for i in IDS}
    assert st == exp, (st, exp)
'

case $case_name in
nocudnn_text)
    report "$nocudnn"
    has '^  env        9 pass, 1 warn, 0 fail, 0 skip \(-v lists every check\)$'
    has '^    \[warn\] cudnn: cuDNN 9\.19\.0 is loaded, yet 80 convolution kernels ran as$'
    has '^           im2col/col2im \+ GEMM \(PyTorch.s fallback without cuDNN\)$'
    has '^           fix: torch\.backends\.cudnn\.enabled = True \(the default\);$'
    lacks '^    \[(pass|fail|skip)\]'
    lacks 'CUDA_LAUNCH_BLOCKING'
    report -v "$nocudnn"
    has '^    \[pass\] launch_blocking: not set$'
    has '^    \[warn\] cudnn: '
    [ "$(grep -cE '^    \[(pass|warn|fail|skip)\] ' "$work/out")" = 10 ] || fail "-v: not every check"
    report --format md "$nocudnn"
    has '^\| warn \| `cudnn` \| cuDNN 9\.19\.0 is loaded, yet 80 convolution kernels ran as im2col/col2im'
    ;;
nocudnn_json)
    report --format json "$nocudnn"
    "$py" -c "$PYHEAD"'
d, env = load(sys.argv[1])
only(env, {"cudnn": "warn"})
c = env["cudnn"]
assert "im2col" in c["value"], c
assert c["value"].startswith("cuDNN 9.19.0 is loaded, yet 80 convolution kernels"), c
assert "torch.backends.cudnn.enabled = True" in c["fix"], c
# the count is the trace'"'"'s: im2col/col2im launches among its kernels (PyTorch'"'"'s
# fallback; col2im only when the input needs a gradient, not here)
n = sum(k["count"] for k in d["top_kernels"] if "im2col" in k["name"] or "col2im" in k["name"])
assert n == 80, (n, d["top_kernels"])
assert not any(f["id"] == "launch_blocking" for f in d["findings"]), d["findings"]
assert d["gpu_left_to"] is None, d["gpu_left_to"]
' "$work/out" || fail "json"
    ;;
cudnn_pass)
    # h200-cnn-launchbound: convolutions through cuDNN (implicit-GEMM fprop/wgrad kernels) and
    # no im2col; the launch-blocking trace is the same program
    for t in "$fx/h200-cnn-launchbound.sstrace" "$clb"; do
        report --format json "$t"
        "$py" -c "$PYHEAD"'
d, env = load(sys.argv[1])
c = env["cudnn"]
assert c["status"] == "pass", (sys.argv[2], c)
assert c["value"] == "cuDNN 9.19.0; no convolution ran without it", (sys.argv[2], c)
names = [k["name"] for k in d["top_kernels"]]
assert any("implicit_gemm" in n and ("fprop" in n or "wgrad" in n) for n in names), names
assert not any("im2col" in n or "col2im" in n for n in names), names
' "$work/out" "$t" || fail "cudnn on $t"
    done
    report "$fx/h200-cnn-launchbound.sstrace"
    has '^  env        10 pass, 0 warn, 0 fail, 0 skip \(-v lists every check\)$'
    ;;
clb_text)
    report "$clb"
    has '^  env        9 pass, 0 warn, 1 fail, 0 skip \(-v lists every check\)$'
    has '^    \[fail\] launch_blocking: CUDA_LAUNCH_BLOCKING=1: every kernel launch waits$'
    has '^           fix: unset CUDA_LAUNCH_BLOCKING \(a debugging switch\)$'
    lacks '^    \[(pass|warn|skip)\]'
    has '^  [0-9]+\. \[high\] CUDA_LAUNCH_BLOCKING=1 serialises host and GPU$'
    ;;
clb_json)
    report --format json "$clb"
    "$py" -c "$PYHEAD"'
d, env = load(sys.argv[1])
only(env, {"launch_blocking": "fail"})
c = env["launch_blocking"]
assert c["value"] == "CUDA_LAUNCH_BLOCKING=1: every kernel launch waits for the kernel", c
assert c["fix"] == "unset CUDA_LAUNCH_BLOCKING (a debugging switch)", c
f = [f for f in d["findings"] if f["id"] == "launch_blocking"]
assert len(f) == 1, [x["id"] for x in d["findings"]]
f = f[0]
assert f["severity"] == "high", f
assert "CUDA_LAUNCH_BLOCKING" in f["evidence"] and "unset CUDA_LAUNCH_BLOCKING" in f["fix"], f
# the estimate: the shorter of GPU busy and GPU idle time per step
busy = sum(x["ms_per_step"] for x in d["categories"] if x["gpu_busy"])
idle = sum(x["ms_per_step"] for x in d["categories"] if not x["gpu_busy"])
assert busy > 0 and idle > 0, (busy, idle)
assert abs(f["saving_ms_per_step"] - min(busy, idle)) < 0.01, (f, busy, idle)
assert d["steps"]["source"] == "step_records", d["steps"]
' "$work/out" || fail "json"
    ;;
*)
    fail "unknown case"
    ;;
esac
echo "ok [$case_name]"
