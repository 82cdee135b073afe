#!/usr/bin/env bash
# check_collector.sh — checks the collector's CUPTI half on a real GPU (the H200 machine).
#
#   bash bench/gpu/check_collector.sh            # from the repository root
#
# Builds stepscope, then runs, each under libstepscope.so (CUDA_INJECTION64_PATH):
#   1. full mode: a CUDA C program with exactly known work (1000 runtime launches, 100 driver
#      launches through cuLaunchKernel, 10 pageable H2D, 10 pinned async H2D, 10 pageable D2H,
#      5 memsets, stream/device/event syncs, malloc/free, getters that must be filtered);
#      checks the record counts, copy kinds, filtered getters and that GPU timestamps lie on
#      the host's CLOCK_MONOTONIC between the program's own readings;
#   2. light mode: same program, no kernel records, copies still there;
#   3. torch.profiler under `stepscope record` (Python shim on): a torch loop that runs
#      torch.profiler for 2 s in the middle; torch.profiler must see CUDA events (on its own
#      clock: inside its window), the program must exit 0, the collector must say
#      "torch.profiler started", and its trace must have kernels before and after the window
#      and none inside, with CAPTURE off/on (reason taken_over) around it;
#   3b. the same with STEPSCOPE_PYSHIM=0 (the heuristic watch is the only guard): torch.profiler
#      must see CUDA events and the program exit 0; what the collector noticed is printed;
#   4. conflict: the same CUDA program under nsys with our injection set too: exit 0, and
#      either our "another CUPTI client" notice or no CUPTI records in our trace.
#   5. detach: the launch-bound CNN (bench/overhead/models.py) under `record --capture
#      steps:100-150`: exit 0, CUPTI detached after the window (ENV cupti.detached=1), no kernel
#      started after it, and every thread of an API record named by a THREAD record;
#   5b. takeover.py under `record --capture seconds:0-1`: the collector detaches CUPTI before
#      torch.profiler starts, which must then see CUDA events; exit 0.
# Prints PASS/FAIL per check and exits non-zero if any failed. Writes everything under
# ${OUT:-/tmp/ssc-gpu-check}. Needs nvcc, and for 3 the torch venv of BRIEF.md.
set -u
OUTDIR=${OUT:-/tmp/ssc-gpu-check}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$ROOT/build-gpu
PY=${PY:-/opt/torch/.venv/bin/python3}
NSYS=${NSYS:-$(command -v nsys || ls /opt/nvidia/nsight-compute/*/host/target-linux-x64/nsys 2>/dev/null | head -1)}
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}
mkdir -p "$OUTDIR"
FAILS=0
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; FAILS=$((FAILS + 1)); }

cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=${BUILD_TYPE:-RelWithDebInfo} >"$OUTDIR/cmake.log" 2>&1 &&
    cmake --build "$BUILD" -j16 >>"$OUTDIR/cmake.log" 2>&1 || { tail -30 "$OUTDIR/cmake.log"; exit 1; }
LIB=$BUILD/libstepscope.so
SS=$BUILD/stepscope

# ---- the CUDA test program ---------------------------------------------------------------
cat >"$OUTDIR/work.cu" <<'EOF'
#include <cuda.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
__global__ void empty(int *p) { if (p && threadIdx.x == 1000000) *p = 1; }
static unsigned long long mono(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000ull + t.tv_nsec; }
int main(void) {
    cudaFree(0);                                     /* context */
    unsigned long long t0 = mono();
    int *d; cudaMalloc(&d, 1 << 24);
    char *pageable = (char *)malloc(1 << 24), *pinned; cudaMallocHost(&pinned, 1 << 24);
    cudaStream_t s; cudaStreamCreate(&s);
    cudaEvent_t e; cudaEventCreate(&e);
    for (int i = 0; i < 1000; i++) empty<<<1, 32, 0, s>>>(nullptr);
    cudaFunction_t f; cudaGetFuncBySymbol(&f, (const void *)empty);
    void *noarg = nullptr; void *args[] = {&noarg};
    for (int i = 0; i < 100; i++) cuLaunchKernel((CUfunction)f, 1, 1, 1, 32, 1, 1, 0, s, args, 0);
    for (int i = 0; i < 10; i++) cudaMemcpy(d, pageable, 1 << 20, cudaMemcpyHostToDevice);
    for (int i = 0; i < 10; i++) cudaMemcpyAsync(d, pinned, 1 << 20, cudaMemcpyHostToDevice, s);
    for (int i = 0; i < 10; i++) cudaMemcpy(pageable, d, 1 << 20, cudaMemcpyDeviceToHost);
    for (int i = 0; i < 5; i++) cudaMemsetAsync(d, 0, 1 << 20, s);
    int dev, n; for (int i = 0; i < 100; i++) { cudaGetDevice(&dev); cudaGetLastError(); cudaGetDeviceCount(&n); }
    cudaEventRecord(e, s); cudaEventSynchronize(e);
    cudaStreamSynchronize(s);
    cudaDeviceSynchronize();
    cudaFree(d); cudaFreeHost(pinned);
    unsigned long long t1 = mono();
    printf("T0=%llu T1=%llu err=%s\n", t0, t1, cudaGetErrorString(cudaGetLastError()));
    return 0;
}
EOF
nvcc -O2 -o "$OUTDIR/work" "$OUTDIR/work.cu" -lcuda >"$OUTDIR/nvcc.log" 2>&1 ||
    { cat "$OUTDIR/nvcc.log"; exit 1; }

# Runs a command under the collector, output folder $1; stdout+stderr in $1/log.
under() {
    local dir=$1; shift
    rm -rf "$dir"; mkdir -p "$dir"
    env CUDA_INJECTION64_PATH="$LIB" STEPSCOPE_OUTPUT_DIR="$dir" "$@" >"$dir/log" 2>&1
}
# JSON Lines of every record of every trace in $1 into $1/all.jsonl.
dump_all() {
    : >"$1/all.jsonl"
    for t in "$1"/*.sstrace; do [ -f "$t" ] && "$SS" dump --json "$t" >>"$1/all.jsonl"; done
}

# ---- 1. full mode -------------------------------------------------------------------------
D=$OUTDIR/full
under "$D" env STEPSCOPE_MODE=full "$OUTDIR/work"; rc=$?
[ $rc -eq 0 ] && pass "full: exit 0" || fail "full: exit $rc"
dump_all "$D"
python3 - "$D" <<'EOF' || FAILS=$((FAILS + 1))
import json, re, sys
d = sys.argv[1]
recs = [json.loads(l) for l in open(d + "/all.jsonl") if l.strip()]
t0, t1 = map(int, re.search(r"T0=(\d+) T1=(\d+)", open(d + "/log").read()).groups())
by = lambda t: [r for r in recs if r.get("type") == t]
bad = 0
def check(ok, what):
    global bad
    print(("PASS: " if ok else "FAIL: ") + what)
    bad += not ok
k = by("kernel"); m = by("memcpy"); api = by("api")
check(len(k) == 1100, f"full: kernels = {len(k)} (want 1100)")
check(all(t0 <= r["t"] <= r["end"] <= t1 for r in k + m),
      "full: every kernel/copy lies inside the program's CLOCK_MONOTONIC [T0,T1]")
kinds = {}
for r in m:
    key = (str(r.get("kind")), str(r.get("src")), str(r.get("dst")))
    kinds[key] = kinds.get(key, 0) + 1
print("  memcpy kinds:", kinds)
check(len(m) == 30, f"full: memcpy = {len(m)} (want 30)")
check(sum(v for (c, s, _), v in kinds.items() if "h2d" in c.lower() and "pageable" in s.lower()) == 10, "full: 10 pageable H2D")
check(sum(v for (c, s, _), v in kinds.items() if "h2d" in c.lower() and "pinned" in s.lower()) == 10, "full: 10 pinned H2D")
check(sum(v for (c, _, t), v in kinds.items() if "d2h" in c.lower()) == 10, "full: 10 D2H")
check(len(by("memset")) == 5, f"full: memset = {len(by('memset'))} (want 5)")
check(len(by("sync")) >= 3, f"full: sync records = {len(by('sync'))} (want >= 3)")
rt = [r for r in api if "runtime" in str(r.get("domain")).lower()]
drv = [r for r in api if "driver" in str(r.get("domain")).lower()]
# CUPTI 13 cbids: cudaGetDeviceCount 3, cudaGetLastError 10, cudaGetDevice 17,
# cudaLaunchKernel 211, __cudaLaunchKernel 505 (<<<>>> in CUDA 13); cuLaunchKernel 307.
cb = lambda rs: {r["cbid"] for r in rs}
check(not (cb(rt) & {3, 10, 17}), "full: cudaGetDevice/GetLastError/GetDeviceCount filtered")
nlaunch = sum(1 for r in rt if r["cbid"] in (211, 505))
check(nlaunch == 1000, f"full: runtime launch records = {nlaunch} (want 1000)")
check(sum(1 for r in drv if r["cbid"] == 307) >= 100, "full: >= 100 cuLaunchKernel records")
print(f"  runtime API records: {len(rt)}, driver API records: {len(drv)}, cbids rt={sorted(cb(rt))} drv={sorted(cb(drv))}")
check(len(drv) >= 100, f"full: >= 100 driver API records (cuLaunchKernel), got {len(drv)}")
check(len(rt) >= 1000 + 30 + 5, f"full: >= 1035 runtime API records, got {len(rt)}")
print("  NOTE: if driver records >> 100, the runtime's internal driver calls are recorded too")
check(len(by("device")) >= 1, "full: DEVICE record")
dropped = by("dropped"); print("  dropped:", dropped)
env = {r.get("key"): r.get("value") for r in by("env") if str(r.get("key", "")).startswith("cupti.")}
print("  cupti stats:", env)
sys.exit(1 if bad else 0)
EOF

# ---- 2. light mode ------------------------------------------------------------------------
D=$OUTDIR/light
under "$D" env STEPSCOPE_MODE=light "$OUTDIR/work"; rc=$?
[ $rc -eq 0 ] && pass "light: exit 0" || fail "light: exit $rc"
dump_all "$D"
nk=$(grep -c '"type":"kernel"' "$D/all.jsonl"); nm=$(grep -c '"type":"memcpy"' "$D/all.jsonl")
[ "$nk" -eq 0 ] && pass "light: no kernels" || fail "light: $nk kernels"
[ "$nm" -eq 30 ] && pass "light: 30 memcpy" || fail "light: $nm memcpy"

# ---- 3. torch.profiler inside a recorded program ----------------------------------------
if [ -x "$PY" ]; then
    cat >"$OUTDIR/takeover.py" <<'EOF'
import time, torch
x = torch.randn(1024, 1024, device="cuda")
def work(sec):
    end = time.time() + sec
    while time.time() < end:
        for _ in range(20): y = x @ x
        torch.cuda.synchronize()
work(3)
print("WINDOW_START_NS", time.monotonic_ns(), flush=True)
with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU,
                                        torch.profiler.ProfilerActivity.CUDA]) as p:
    work(2)
print("WINDOW_END_NS", time.monotonic_ns(), flush=True)
ev = p.events()
cuda = [e for e in ev if e.device_type == torch.autograd.DeviceType.CUDA]
cpu = [e for e in ev if e.device_type == torch.autograd.DeviceType.CPU]
print("PROFILER_CUDA_EVENTS", len(cuda))
if cuda and cpu:
    # Same clock as its CPU events (a foreign timestamp callback would put them far away).
    lo = min(e.time_range.start for e in cpu) - 1e6
    hi = max(e.time_range.end for e in cpu) + 1e6
    print("PROFILER_CUDA_IN_WINDOW", sum(lo <= e.time_range.start <= hi for e in cuda))
work(3)
EOF
    # 3a. under `stepscope record`: the shim announces the profiler
    D=$OUTDIR/takeover
    rm -rf "$D"; mkdir -p "$D"
    "$SS" record -o "$D" -- "$PY" "$OUTDIR/takeover.py" >"$D/log" 2>&1; rc=$?
    [ $rc -eq 0 ] && pass "takeover: exit 0" || fail "takeover: exit $rc"
    if grep -q "python shim disabled" "$D/log"; then fail "takeover: $(grep -m1 'python shim disabled' "$D/log")"; fi
    grep -q "torch.profiler started: it records GPU activity until it stops" "$D/log" &&
        pass "takeover: notice printed" || fail "takeover: no notice"
    n=$(sed -n 's/PROFILER_CUDA_EVENTS //p' "$D/log")
    [ "${n:-0}" -gt 0 ] && pass "takeover: torch.profiler saw $n CUDA events" ||
        fail "takeover: torch.profiler saw no CUDA events"
    m=$(sed -n 's/PROFILER_CUDA_IN_WINDOW //p' "$D/log")
    [ -n "$m" ] && [ "$m" = "$n" ] && pass "takeover: torch.profiler's CUDA events on its own clock" ||
        fail "takeover: only ${m:-?} of $n torch.profiler CUDA events inside its window (clock?)"
    dump_all "$D"
    python3 - "$D" <<'PYEOF' || FAILS=$((FAILS + 1))
import json, re, sys
d = sys.argv[1]
recs = [json.loads(l) for l in open(d + "/all.jsonl") if l.strip()]
log = open(d + "/log").read()
w0 = int(re.search(r"WINDOW_START_NS (\d+)", log).group(1))
w1 = int(re.search(r"WINDOW_END_NS (\d+)", log).group(1))
caps = [(r["state"], r["reason"], r["t"]) for r in recs if r.get("type") == "capture"]
print("  capture records:", [(s, why) for s, why, _ in caps])
off = [t for s, why, t in caps if s == "off" and why == "taken_over"]
on = [t for s, why, t in caps if s == "on" and why == "taken_over"]
k = [r for r in recs if r.get("type") == "kernel"]
bad = 0
def check(ok, what):
    global bad
    print(("PASS: " if ok else "FAIL: ") + what)
    bad += not ok
check(len(off) == 1 and len(on) == 1 and off[0] < on[0],
      "takeover: CAPTURE off taken_over, then on taken_over")
if len(off) == 1 and len(on) == 1:
    before = sum(r["end"] <= off[0] for r in k)
    inside = sum(off[0] < r["t"] < on[0] for r in k)
    after = sum(r["t"] >= on[0] for r in k)
    print(f"  kernels before/inside/after the profiler window: {before}/{inside}/{after}")
    check(before > 0 and after > 0, "takeover: our kernels before and after the profiler window")
    check(inside == 0, "takeover: none of ours while torch.profiler recorded")
    # the stop mark comes after the profiler has parsed its results: allow 30 s for that
    check(w0 <= off[0] and on[0] <= w1 + 30_000_000_000,
          "takeover: the gap lies around the program's profiler window")
sys.exit(1 if bad else 0)
PYEOF
    grep -n "stepscope\|unknown buffer" "$D/log" | head -8 | sed 's/^/  /'

    # 3b. the shim off: the heuristic watch is the only guard; torch.profiler must still work
    D=$OUTDIR/takeover-noshim
    rm -rf "$D"; mkdir -p "$D"
    STEPSCOPE_PYSHIM=0 "$SS" record -o "$D" -- "$PY" "$OUTDIR/takeover.py" >"$D/log" 2>&1; rc=$?
    [ $rc -eq 0 ] && pass "takeover (no shim): exit 0" || fail "takeover (no shim): exit $rc"
    n=$(sed -n 's/PROFILER_CUDA_EVENTS //p' "$D/log")
    [ "${n:-0}" -gt 0 ] && pass "takeover (no shim): torch.profiler saw $n CUDA events" ||
        fail "takeover (no shim): torch.profiler saw no CUDA events"
    echo "  (no shim) CUDA events in the profiler's window: $(sed -n 's/PROFILER_CUDA_IN_WINDOW //p' "$D/log") of $n"
    dump_all "$D"
    echo "  (no shim) kernels recorded: $(grep -c '"type":"kernel"' "$D/all.jsonl")"
    grep '"type":"capture"' "$D/all.jsonl" | sed 's/^/  (no shim) /'
    grep -n "stepscope\|unknown buffer" "$D/log" | head -8 | sed 's/^/  (no shim) /'
else
    echo "SKIP: takeover (no $PY)"
fi

# ---- 4. conflict with nsys ----------------------------------------------------------------
if [ -n "$NSYS" ] && [ -x "$NSYS" ]; then
    D=$OUTDIR/conflict
    under "$D" "$NSYS" profile -t cuda -o "$D/nsys" --force-overwrite true "$OUTDIR/work"; rc=$?
    [ $rc -eq 0 ] && pass "conflict: exit 0" || fail "conflict: exit $rc"
    dump_all "$D"
    nk=$(grep -c '"type":"kernel"' "$D/all.jsonl")
    if grep -q "another CUPTI client" "$D/log" || [ "$nk" -eq 0 ]; then
        pass "conflict: notice or no CUPTI records ($nk kernels)"
    else
        fail "conflict: $nk kernels recorded while nsys held CUPTI"
    fi
else
    echo "SKIP: conflict (no nsys)"
fi

# ---- 5. detach after the capture window ----------------------------------------------------
if [ -x "$PY" ]; then
    D=$OUTDIR/detach
    rm -rf "$D"; mkdir -p "$D"
    "$SS" record -o "$D" --capture steps:100-150 -- "$PY" "$ROOT/bench/overhead/models.py" \
        --workload cnn --steps 300 >"$D/log" 2>&1; rc=$?
    [ $rc -eq 0 ] && pass "detach: exit 0" || fail "detach: exit $rc"
    dump_all "$D"
    python3 - "$D" <<'PYEOF' || FAILS=$((FAILS + 1))
import json, sys
d = sys.argv[1]
recs = [json.loads(l) for l in open(d + "/all.jsonl") if l.strip()]
bad = 0
def check(ok, what):
    global bad
    print(("PASS: " if ok else "FAIL: ") + what)
    bad += not ok
env = {r["key"]: r["value"] for r in recs if r.get("type") == "env"}
check(env.get("cupti.detached") == "1", "detach: cupti.detached = %s" % env.get("cupti.detached"))
caps = [(r["state"], r["reason"], r["t"]) for r in recs if r.get("type") == "capture"]
print("  capture records:", [(s, why) for s, why, _ in caps])
offs = [t for s, why, t in caps if s == "off" and why == "window"]
ons = [t for s, why, t in caps if s == "on" and why == "window"]
k = [r for r in recs if r.get("type") == "kernel"]
if offs and ons:
    inside = sum(ons[0] <= r["t"] <= offs[-1] for r in k)
    late = sum(r["t"] > offs[-1] + 100_000_000 for r in k)
    print(f"  kernels inside the window: {inside}, started > 100 ms after it: {late}")
    check(inside > 0 and late == 0, "detach: kernels inside the window only")
else:
    check(False, "detach: no window edges")
api_tids = {r["tid"] for r in recs if r.get("type") == "api"}
named = {r["tid"] for r in recs if r.get("type") == "thread"}
print(f"  API threads {sorted(api_tids)}, named {sorted(api_tids & named)}")
check(api_tids and api_tids <= named, "thread names: every launching thread named")
sys.exit(1 if bad else 0)
PYEOF
    grep -n "ms_per_step\|stepscope:" "$D/log" | head -5 | sed 's/^/  /'

    D=$OUTDIR/detach-profiler
    rm -rf "$D"; mkdir -p "$D"
    "$SS" record -o "$D" --capture seconds:0-1 -- "$PY" "$OUTDIR/takeover.py" >"$D/log" 2>&1; rc=$?
    [ $rc -eq 0 ] && pass "detach, then torch.profiler: exit 0" || fail "detach, then torch.profiler: exit $rc"
    n=$(sed -n 's/PROFILER_CUDA_EVENTS //p' "$D/log")
    [ "${n:-0}" -gt 0 ] && pass "detach, then torch.profiler: it saw $n CUDA events" ||
        fail "detach, then torch.profiler: it saw no CUDA events"
    dump_all "$D"
    grep -q '"key":"cupti.detached","value":"1"' "$D/all.jsonl" &&
        pass "detach, then torch.profiler: detached first" ||
        fail "detach, then torch.profiler: no cupti.detached=1"
    grep -n "stepscope" "$D/log" | head -5 | sed 's/^/  /'
else
    echo "SKIP: detach (no $PY)"
fi

echo "failures: $FAILS"
exit $((FAILS > 0))
