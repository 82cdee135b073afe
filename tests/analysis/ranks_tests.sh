#!/bin/bash
# `stepscope report DIR` over the traces of a multi-GPU job, end to end.
# Usage: ranks_tests.sh CASE STEPSCOPE SST_GEN_RANKS FIXTURES WORKDIR PYTHON [SST_MULTIHOST]
#   fixture  the real DDP fixture (2 H200 ranks + the torchrun launcher): straggler rank 1 for
#            host work, rank 0's exposed comm attributed to waiting; text and JSON
#   many     256 synthetic ranks with a planted straggler: found, priced, output bounded
#   formats  md and html carry the ranks section; -o writes it
#   threads  -j 1, -j 2 and the default give the same bytes; a bad member is one error line
#   imports  Kineto and nsys captures imported on 4 threads at once: same report, no leftovers
#   multihost  the fixture copied to 3 hosts x 2 ranks (bench/multihost) with known clock
#            offsets, drift and NTP errors and host 2 late at every collective: the clocks
#            recovered within 20 us (JSON), host node02 named in the text and JSON; their
#            merged Perfetto export (export DIR) puts the collectives' ends together, and a
#            window of it (--steps) holds every rank of every host
#   export_window  export --steps/--time over the real DDP folder: one span of the common
#            timeline, each rank's own steps inside it, by time the same; the errors
#   nsys     export DIR -f nsys-sqlite of the fixture and of a 2-host copy: one database,
#            every trace's rows (the sum of the single exports'), ids of their own, the times
#            of the merged Perfetto export, the collectives' ends together
set -u
case_name=$1 ss=$2 gen=$3 fx=$4 work=$5 py=$6 mh=${7:-}
rm -rf "$work" && mkdir -p "$work" || exit 1
fail() { echo "FAILED: $*" >&2; exit 1; }
dp=$fx/workloads/traces/cnn_dp-none

# A synthetic job of N ranks with rank S planted (+MS ms of host work per step) in $work/NAME.
job() { "$gen" -o "$work/$1" -n "$2" --straggler "$3" --extra-ms "$4" --steps "${5:-30}" ||
    fail "sst-gen-ranks $*"; }

case $case_name in
fixture)
    out=$("$ss" report "$dp") || fail "exit $?"
    head -1 <<<"$out" | grep -q '^stepscope ranks: 2 of 2 ranks of one job (world size 2)' ||
        fail "first line: $(head -1 <<<"$out")"
    grep -q '^  straggler  rank 1 does 1[2-6]\.[0-9]* ms/step more work' <<<"$out" ||
        fail "straggler: $out"
    grep -A1 '^  straggler' <<<"$out" | grep -q 'most of it host' || fail "why: $out"
    grep -q '^  waiting    rank 0 (median) exposes 13\.[0-9]* ms/step of comm, 1[23]\.' <<<"$out" ||
        fail "waiting: $out"
    grep -q '^  clocks     one clock (host vm (ranks 0-1)): the ends of 85 matched' <<<"$out" ||
        fail "clocks: $out"
    grep -q '^  arrivals   rank 1 arrives last at 100 % of 68 collectives' <<<"$out" ||
        fail "arrivals: $out"
    [ "$(grep -c '^stepscope report: ' <<<"$out")" -eq 3 ] || fail "3 process sections"
    awk '/^stepscope report: / { exit } length($0) > 80 { bad = 1 } END { exit bad }' <<<"$out" ||
        fail "ranks section over 80 columns"
    "$ss" report --format json "$dp" >"$work/dp.json" || fail "json exit $?"
    "$py" - "$work/dp.json" <<'PYEOF' || fail "json content"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "stepscope.job" and d["version"] == 1, d.keys()
k = d["ranks"]
assert k["world_size"] == 2 and k["ranks"] == 2 and k["compared"] == 2, k
s = k["straggler"]
assert s["rank"] == 1 and s["why_category"] == "host", s
assert 12 < s["price_ms_per_step"] < 16, s
r0 = [x for x in k["list"] if x["rank"] == 0][0]
assert r0["waiting_ms_per_step"] > 0.95 * r0["exposed_comm_ms_per_step"] > 12, r0
assert len(d["processes"]) == 3
p0 = [p for p in d["processes"] if p["process"]["rank"] == 0][0]
comm = [f for f in p0["findings"] if f["id"] == "comm_not_overlapped"]
assert not comm, comm  # waiting for rank 1: not priced again on rank 0
PYEOF
    # one rank alone: the plain object, and its comm finding says it may be waiting
    "$ss" report --format json "$dp/vm-14579-r0.sstrace" >"$work/r0.json" || fail "r0 exit $?"
    "$py" - "$work/r0.json" <<'PYEOF' || fail "one rank alone"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "stepscope.report"
c = [f for f in d["findings"] if f["id"] == "comm_not_overlapped"][0]
assert c["confidence"] == "low" and "slower rank" in c["evidence"], c
PYEOF
    ;;
many)
    job j256 256 137 4
    out=$("$ss" report "$work/j256") || fail "exit $?"
    head -1 <<<"$out" | grep -q '^stepscope ranks: 256 of 256 ranks' || fail "first line"
    grep -q '^  S   137 ' <<<"$out" || fail "straggler row: $out"
    grep -q '^  straggler  rank 137 does [34]\.[0-9]* ms/step more work' <<<"$out" ||
        fail "straggler: $out"
    grep -A1 '^  straggler' <<<"$out" | grep -q 'most of it host' || fail "why"
    grep -q '254 rank sections omitted' <<<"$out" || fail "omitted note"
    awk '/^stepscope report: / { exit } length($0) > 80 { bad = 1 } END { exit bad }' <<<"$out" ||
        fail "ranks section over 80 columns"
    [ "$(grep -c '^stepscope report: ' <<<"$out")" -eq 3 ] || fail "straggler, median, launcher"
    lines=$(wc -l <<<"$out")
    [ "$lines" -le 150 ] || fail "$lines lines for 256 ranks"
    [ "$(sed -n '/^stepscope ranks/,/^stepscope report: /p' <<<"$out" | wc -l)" -le 40 ] ||
        fail "ranks section over 40 lines"
    n=$("$ss" report -v "$work/j256" | grep -c '^stepscope report: ') || fail "-v exit"
    [ "$n" -eq 257 ] || fail "-v: $n sections"
    "$ss" report --format json "$work/j256" >"$work/j.json" || fail "json exit $?"
    "$py" - "$work/j.json" <<'PYEOF' || fail "json content"
import json, sys
d = json.load(open(sys.argv[1]))
k = d["ranks"]
assert k["ranks"] == 256 and len(k["list"]) == 256 and len(d["processes"]) == 257
assert k["straggler"]["rank"] == 137 and abs(k["straggler"]["price_ms_per_step"] - 4) < 0.5, k["straggler"]
assert [x["rank"] for x in k["list"]] == list(range(256))
q = k["quantiles"]["waiting_ms_per_step"]
assert 3.5 < q["median"] < 4.5, q
PYEOF
    ;;
formats)
    "$ss" report --format md "$dp" >"$work/dp.md" || fail "md exit $?"
    grep -q '^## Ranks: 2 of 2 ranks' "$work/dp.md" || fail "md ranks heading"
    grep -q '^| S | 1 | ' "$work/dp.md" || fail "md straggler row"
    [ "$(grep -c '^## stepscope report' "$work/dp.md")" -eq 3 ] || fail "md sections"
    "$ss" report --format html -o "$work/dp.html" "$dp" || fail "html exit $?"
    grep -q '<h2>Ranks: 2 of 2 ranks' "$work/dp.html" || fail "html ranks heading"
    grep -q '<b>straggler:</b> rank 1 does' "$work/dp.html" || fail "html straggler"
    [ "$(grep -c '<section>' "$work/dp.html")" -eq 4 ] || fail "html: ranks + 3 sections"
    "$py" -c 'import html.parser,sys; html.parser.HTMLParser().feed(open(sys.argv[1]).read())' \
        "$work/dp.html" || fail "html does not parse"
    job j20 20 3 5 10
    "$ss" report --format md "$work/j20" >"$work/j20.md" || fail "md 20 exit $?"
    grep -q '^| | \.\.\. |' "$work/j20.md" || fail "md: 20 ranks not cut"
    [ "$(grep -c '^## stepscope report' "$work/j20.md")" -eq 3 ] || fail "md: 20 ranks sections"
    ;;
threads)
    job j64 64 9 3 20
    for j in 1 2; do
        "$ss" report -j $j "$work/j64" >"$work/t$j.txt" || fail "-j $j exit $?"
        "$ss" report -j $j --format json "$work/j64" >"$work/t$j.json" || fail "-j $j json"
    done
    "$ss" report "$work/j64" >"$work/td.txt" || fail "default exit $?"
    cmp -s "$work/t1.txt" "$work/t2.txt" && cmp -s "$work/t1.txt" "$work/td.txt" ||
        fail "text differs with the thread count"
    cmp -s "$work/t1.json" "$work/t2.json" || fail "json differs with the thread count"
    head -c 100 /dev/urandom >"$work/j64/gen-zz-noise.sstrace"
    : >"$work/j64/gen-zz-empty.sstrace"
    out=$("$ss" report -j 2 "$work/j64" 2>"$work/err"); rc=$?
    [ $rc -eq 1 ] || fail "bad members: exit $rc"
    [ "$(wc -l <"$work/err")" -eq 2 ] || fail "one line per bad member: $(cat "$work/err")"
    grep -q 'zz-noise' "$work/err" && grep -q 'zz-empty' "$work/err" || fail "members named"
    grep -q '^stepscope ranks: 64 of 64' <<<"$out" || fail "ranks lost with bad members"
    "$ss" report -j 0 "$work/j64" >/dev/null 2>&1; [ $? -eq 2 ] || fail "-j 0: want 2"
    "$ss" report -j x "$work/j64" >/dev/null 2>&1; [ $? -eq 2 ] || fail "-j x: want 2"
    ;;
imports)
    # foreign captures are imported to temporary traces: on 4 threads at once, the same
    # report as on one, and no temporary file left behind
    mkdir "$work/tmp" || exit 1
    "$py" -c 'import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], "wb"))' \
        "$fx/workloads/nsys/mlp-none.sqlite.xz" "$work/mlp-none.sqlite" || fail "unxz"
    set -- "$fx"/workloads/kineto/*.json.gz "$work/mlp-none.sqlite" "$dp"
    for j in 1 4; do
        TMPDIR=$work/tmp "$ss" report -j $j --format json "$@" >"$work/i$j.json" || fail "-j $j exit $?"
    done
    cmp -s "$work/i1.json" "$work/i4.json" || fail "imports: json differs with the thread count"
    grep -q '"schema": "stepscope.job"' "$work/i4.json" || fail "imports: the job's ranks lost"
    [ -z "$(ls -A "$work/tmp")" ] || fail "TMPDIR not empty: $(ls "$work/tmp")"
    ;;
multihost)
    "$mh" -o "$work/job" --hosts 3 --ranks-per-host 2 --offset-s 0,3.5,-120 \
        --drift-ppm 0,20,-15 --ntp-us 0,1500,-800 --jitter-us 3 --slow-host 2 --delay-us 2000 \
        "$dp/vm-14579-r0.sstrace" "$dp/vm-14580-r1.sstrace" || fail "sst-multihost exit $?"
    out=$("$ss" report "$work/job") || fail "exit $?"
    grep -q '^  clocks     3 hosts aligned on 85 matched collectives' <<<"$out" || fail "clocks: $out"
    grep -Eq '^  arrivals   host node02 \(ranks 4-5\) arrives last at ([89][0-9]|100) %' <<<"$out" ||
        fail "arrivals: $out"
    "$ss" report --format json "$work/job" >"$work/job.json" || fail "json exit $?"
    "$py" - "$work/job.json" "$dp/vm-14579-r0.sstrace" <<'PYEOF' || fail "json alignment"
import json, struct, sys
a = json.load(open(sys.argv[1]))["ranks"]["alignment"]
anchor = struct.unpack("<Q", open(sys.argv[2], "rb").read(64)[24:32])[0]
clk = [(0, 0), (3.5e9, 20e-6), (-120e9, -15e-6)]  # what sst-multihost was told
def local(h, t):
    return t + clk[h][0] + (t - anchor) * clk[h][1]
assert [h["host"] for h in a["hosts"]] == ["node00", "node01", "node02"], a["hosts"]
for i, h in enumerate(a["hosts"][1:], 1):
    for k in range(21):  # the whole recording, 10 s from its start
        t = anchor + k * 0.5e9
        L = local(i, t)
        got = L + h["offset_ns"] + h["drift_ppm"] * 1e-6 * (L - h["offset_at_ns"])
        assert abs(got - local(0, t)) < 20e3, (i, k, got - local(0, t))
    assert abs(h["wall_clock_offset_ns"] - h["offset_ns"]) > 500e3, h  # NTP error removed
last = max(a["hosts"], key=lambda h: h["caused_wait_ms"])
assert last["host"] == "node02" and last["last_arrivals"] >= 0.7 * a["priced"], last
assert a["end_spread_p90_us"] < 20 < a["wall_clock_end_spread_p50_us"], a
PYEOF
    "$ss" export "$work/job" -o "$work/job.perfetto.json" 2>/dev/null || fail "export exit $?"
    "$py" - "$work/job.perfetto.json" <<'PYEOF' || fail "merged export"
import collections, json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
names = {e["pid"]: e["args"]["name"] for e in ev if e.get("ph") == "M" and e["name"] == "process_name"}
assert sum(" GPU " in n for n in names.values()) == 6, names
assert any(n.startswith("rank 4 node02 pid ") for n in names.values()), names
ends = collections.defaultdict(list)
for e in ev:
    if e.get("ph") == "X" and e.get("cat") == "kernel" and "ncclDevKernel_All" in e["name"]:
        ends[e["pid"]].append(e["ts"] + e["dur"])
assert len(ends) == 6 and len({len(v) for v in ends.values()}) == 1, ends.keys()
lists = [sorted(v) for v in ends.values()]
worst = max(max(col) - min(col) for col in zip(*lists))
assert worst < 60, worst  # us: the hosts' seconds apart are gone
PYEOF
    # a window of the merged timeline: every rank of every host has its part
    "$ss" export --steps 10-12 "$work/job" -o "$work/w.json" 2>/dev/null || fail "window exit $?"
    "$py" - "$work/w.json" <<'PYEOF' || fail "merged window over 3 hosts"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["metadata"]["window"].startswith("steps 10-12 ("), d["metadata"]
gpus = {e["pid"] for e in d["traceEvents"] if e.get("cat") == "kernel"}
assert len(gpus) == 6, gpus
PYEOF
    ;;
export_window)
    # export --steps / --time over the real DDP folder (launcher + 2 ranks, one host): one
    # span of the common timeline cut from every trace
    "$ss" export "$dp" -o "$work/whole.json" 2>/dev/null || fail "whole exit $?"
    "$ss" export --steps 10-12 "$dp" -o "$work/steps.json" 2>"$work/err" || fail "steps exit $?"
    [ ! -s "$work/err" ] || grep -q '^wrote ' "$work/err" || fail "stderr: $(cat "$work/err")"
    for r in vm-14579-r0 vm-14580-r1; do
        "$ss" export --steps 10-12 "$dp/$r.sstrace" -o "$work/$r.json" 2>/dev/null ||
            fail "single $r exit $?"
    done
    # the same stretch by time, read off the steps window's description, a millisecond wider
    span=$("$py" -c 'import json,sys; w=json.load(open(sys.argv[1]))["metadata"]["window"]
a,b=w.split("(")[1].split(" s")[0].split("-"); print("%.3f-%.3f" % (float(a)-0.001, float(b)+0.001))' \
        "$work/steps.json") || fail "window description"
    "$ss" export --time "$span" "$dp" -o "$work/time.json" 2>/dev/null || fail "time exit $?"
    "$py" - "$work" <<'PYEOF' || fail "merged window"
import collections, json, sys
w = sys.argv[1]
def load(name):
    return json.load(open("%s/%s.json" % (w, name)))
def kernels(ev, pid=None):
    return collections.Counter((e["name"], e["dur"]) for e in ev
                               if e.get("cat") == "kernel" and (pid is None or e["pid"] == pid))
whole, steps, time = load("whole"), load("steps"), load("time")
ev = steps["traceEvents"]
desc = steps["metadata"]["window"]
assert desc.startswith("steps 10-12 (") and desc.endswith(" s)"), desc
assert whole["metadata"].get("window") is None and time["metadata"]["window"].endswith(" s")
names = {e["pid"]: e["args"]["name"] for e in ev if e.get("ph") == "M" and e["name"] == "process_name"}
gpu = {r: [p for p, n in names.items() if n.startswith("rank %d " % r) and " GPU " in n]
       for r in (0, 1)}
assert all(len(v) == 1 for v in gpu.values()), names
# each rank: its own steps 10-12 (single-trace export) inside the common window, which is
# inside the whole run
for r, single in ((0, "vm-14579-r0"), (1, "vm-14580-r1")):
    mine, own = kernels(ev, gpu[r][0]), kernels(load(single)["traceEvents"])
    assert own and not own - mine, (r, sum(own.values()), sum(mine.values()))
    assert not mine - kernels(whole["traceEvents"], gpu[r][0]), r
    assert sum(mine.values()) < sum(own.values()) * 2, r  # a few steps, not the run
# one span: the kernels kept lie within it (plus what overlaps its edges)
a, b = (float(x) for x in desc.split("(")[1].split(" s")[0].split("-"))
ks = [e for e in ev if e.get("cat") == "kernel"]
longest = max(e["dur"] for e in ks)
assert max(e["ts"] + e["dur"] for e in ks) - min(e["ts"] for e in ks) <= (b - a) * 1e6 + 2 * longest + 2e3
# by time, a millisecond wider: at least the same kernels
assert not kernels(ev) - kernels(time["traceEvents"]), "time window misses kernels"
PYEOF
    "$ss" export --steps 99999 "$dp" -o "$work/x.json" 2>"$work/err"
    [ $? -eq 1 ] && grep -q 'no step numbered 99999: the traces' "$work/err" || fail "no such step"
    "$ss" export --time 900-901 "$dp" -o "$work/x.json" 2>"$work/err"
    [ $? -eq 1 ] && grep -q 'nothing recorded in 900.000-901.000 s' "$work/err" || fail "empty time"
    "$ss" export --format nvtxt --steps 10 "$dp" -o "$work/x.nvtxt" 2>/dev/null
    [ $? -eq 2 ] || fail "a folder in another format: usage error"
    [ ! -e "$work/x.json" ] && [ ! -e "$work/x.nvtxt" ] || fail "an output written after an error"
    ;;
nsys)
    # DIR exported merged in both formats, and each of its traces alone
    export_dir() {
        "$ss" export -q -f nsys-sqlite "$1" -o "$1.sqlite" || fail "nsys export $1: exit $?"
        "$ss" export -q "$1" -o "$1.json" || fail "perfetto export $1: exit $?"
        for t in "$1"/*.sstrace; do
            "$ss" export -q -f nsys-sqlite "$t" -o "${t%.sstrace}.one.sqlite" || fail "$t: exit $?"
        done
    }
    mkdir -p "$work/dp" && cp "$dp"/*.sstrace "$work/dp/" || fail "copy"
    "$mh" -o "$work/job" --hosts 2 --ranks-per-host 2 --offset-s 0,3.5 --drift-ppm 0,20 \
        --ntp-us 0,1500 --jitter-us 3 "$dp/vm-14579-r0.sstrace" "$dp/vm-14580-r1.sstrace" ||
        fail "sst-multihost exit $?"
    export_dir "$work/dp" && export_dir "$work/job"
    "$py" - "$work/dp" 3 2 1 "$work/job" 4 4 0 <<'PYEOF' || fail "merged nsys export"
import collections, glob, json, sqlite3, sys
TABLES = ["CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET",
          "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "CUPTI_ACTIVITY_KIND_RUNTIME", "NVTX_EVENTS",
          "ThreadNames", "PROCESSES", "TARGET_INFO_GPU", "TARGET_INFO_CUDA_DEVICE",
          "DIAGNOSTIC_EVENT", "TARGET_INFO_SYSTEM_ENV", "META_DATA_CAPTURE"]
NCCL = ("SELECT k.globalPid, k.start, k.end FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s "
        "ON s.id = k.shortName WHERE s.value LIKE 'ncclDevKernel_All%'")
def one(db, q):
    return db.execute(q).fetchone()[0]
def check(d, n_traces, n_ranks, ref):
    m = sqlite3.connect(d + ".sqlite")
    ones = [sqlite3.connect(f) for f in sorted(glob.glob(d + "/*.one.sqlite"))]
    assert len(ones) == n_traces, ones
    for t in TABLES:  # every trace's rows, none lost, none twice
        got, want = one(m, f"SELECT count(*) FROM {t}"), sum(one(o, f"SELECT count(*) FROM {t}") for o in ones)
        assert got == want, (d, t, got, want)
    assert one(m, "SELECT count(DISTINCT globalPid) FROM PROCESSES") == n_traces, d
    assert one(m, "SELECT count(DISTINCT globalPid) FROM CUPTI_ACTIVITY_KIND_KERNEL") == n_ranks, d
    # ids of their own: correlations, threads, GPUs (a host's device 0 is not another's)
    for q in ["SELECT count(DISTINCT correlationId) FROM CUPTI_ACTIVITY_KIND_KERNEL",
              "SELECT count(DISTINCT correlationId) FROM CUPTI_ACTIVITY_KIND_RUNTIME",
              "SELECT count(DISTINCT globalTid) FROM ThreadNames",
              "SELECT count(DISTINCT contextId) FROM CUPTI_ACTIVITY_KIND_KERNEL",
              "SELECT count(*) FROM (SELECT DISTINCT vmId, id FROM TARGET_INFO_GPU)"]:
        assert one(m, q) == sum(one(o, q) for o in ones), (d, q)
    # launches still meet their kernels in their own process
    q = ("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN CUPTI_ACTIVITY_KIND_RUNTIME r "
         "ON r.correlationId = k.correlationId AND k.globalPid = (r.globalTid & ~16777215)")
    assert one(m, q) == sum(one(o, q) for o in ones) > 0, (d, "launches")
    # the collectives' ends together after alignment, as the merged Perfetto test checks
    ends = collections.defaultdict(list)
    for g, s, e in m.execute(NCCL):
        ends[g].append(e)
    assert len(ends) == n_ranks and len({len(v) for v in ends.values()}) == 1, ends.keys()
    lists = [sorted(v) for v in ends.values()]
    worst = max(max(col) - min(col) for col in zip(*lists))
    assert worst < 60e3, (d, worst)  # ns
    # the times of the merged Perfetto export, its zero apart (slot: globalPid's hardware id
    # bits; Perfetto's microseconds have 3 decimals: exact nanoseconds)
    ev = json.load(open(d + ".json"))["traceEvents"]
    pe, mine = collections.defaultdict(list), collections.defaultdict(list)
    for e in ev:
        if e.get("ph") == "X" and e.get("cat") == "kernel" and "ncclDevKernel_All" in e["name"]:
            pe[(e["pid"] - 256) // 64].append((round(e["ts"] * 1000), round(e["dur"] * 1000)))
    for g, s, e in m.execute(NCCL):
        mine[g >> 48].append((s, e - s))
    diff = {(a[0] - b[0], a[1] - b[1]) for k in mine for a, b in zip(sorted(mine[k]), sorted(pe[k]))}
    assert len(pe) == n_ranks and len(diff) == 1 and min(diff)[1] == 0, (d, diff)
    # rank 0 (slot ref, a trace of the reference host) keeps its own times
    mine = sorted(r[1:] for r in m.execute(NCCL) if r[0] >> 48 == ref)
    assert mine == sorted(r[1:] for r in ones[ref].execute(NCCL)), d
args = sys.argv[1:]
for i in range(0, len(args), 4):
    check(args[i], *map(int, args[i + 1:i + 4]))
PYEOF
    "$ss" export -f nvtxt "$work/dp" -o "$work/x.nvtxt" 2>"$work/err"
    [ $? -eq 2 ] && grep -q 'a folder exports as --format perfetto or nsys-sqlite' \
        "$work/err" || fail "a folder as nvtxt: usage error ($(cat "$work/err"))"
    "$ss" export -f nsys-sqlite --steps 1-2 "$work/dp" -o "$work/x.sqlite" 2>/dev/null
    [ $? -eq 2 ] && [ ! -e "$work/x.sqlite" ] || fail "a folder with --steps: usage error"
    ;;
*) fail "unknown case $case_name" ;;
esac
echo ok
