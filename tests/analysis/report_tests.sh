#!/bin/bash
# `stepscope report` end to end. Usage: report_tests.sh CASE STEPSCOPE FIXTURES WORKDIR PYTHON
set -u
case_name=$1 ss=$2 fx=$3 work=$4 py=$5
rm -rf "$work" && mkdir -p "$work" || exit 1
fail() { echo "FAILED: $*" >&2; exit 1; }
w0=$fx/h200-dataloader-w0.sstrace

case $case_name in
text)
    out=$("$ss" report "$w0") || fail "exit $?"
    grep -q '^  steps      7 of 8 (step_records' <<<"$out" || fail "steps line: $out"
    grep -Eq '^  data +[0-9.]+ +[6-9][0-9]\.[0-9]' <<<"$out" || fail "data row: $out"
    grep -q 'GPU busy' <<<"$out" || fail "no GPU busy"
    grep -q '^  1. \[high\] GPU waits for data loading' <<<"$out" || fail "top finding: $out"
    grep -q 'DataLoader(num_workers=' <<<"$out" || fail "no DataLoader fix: $out"
    # a two-finding report stays well inside the screen (60 lines, report.screen): 41 lines
    # since each finding says its held-out evidence
    [ "$(wc -l <<<"$out")" -le 45 ] || fail "more than one screen"
    ! grep -q $'\033' <<<"$out" || fail "colour on a pipe"
    awk 'length($0) > 80 { bad = 1 } END { exit bad }' <<<"$out" || fail "lines over 80 columns"
    out=$("$ss" report -v "$fx/h200-gpubound-bf16.sstrace") || fail "exit $?"
    grep -q 'top kernels' <<<"$out" || fail "-v has no top kernels"
    out=$("$ss" report -v "$w0") || fail "exit $?"
    grep -q 'warm-up' <<<"$out" || fail "-v marks no warm-up step"
    ;;
widths)
    # The text report follows $COLUMNS (80 and below: 80): at every width and over every
    # fixture, -v or not, no line is wider; names are demangled and never cut, so the widest
    # kernel name of a width is the whole one or a structural short form (<...>, (...)). Two
    # fixtures dropped records while recording: damage, accepted (its banner wraps too).
    find "$fx" -name '*.sstrace' | sort >"$work/all"
    [ -s "$work/all" ] || fail "no fixtures under $fx"
    while read -r f; do
        for cols in 40 80 100 132 200; do
            limit=$(( cols < 80 ? 80 : cols ))
            for v in "" -v; do
                COLUMNS=$cols "$ss" report --accept-damage $v "$f" >"$work/out" 2>/dev/null </dev/null ||
                    fail "$f $v: exit $? at COLUMNS=$cols"
                awk -v w="$limit" 'length($0) > w { print; bad = 1 } END { exit bad }' "$work/out" ||
                    fail "$f $v: lines over $limit columns at COLUMNS=$cols"
            done
        done
    done <"$work/all"
    out=$(COLUMNS=100 "$ss" report -v "$w0") || fail "exit $?"
    grep -q '_ZN2at6native' <<<"$out" && fail "a mangled name where a demangled one fits: $out"
    grep -q 'reduction   at::native::batch_norm_collect_statistics_channels_last_kernel<...>(...)$' \
        <<<"$(COLUMNS=132 "$ss" report -v "$w0")" || fail "132 columns: no whole-scope name"
    grep -q '^  step time  median' <<<"$out" || fail "no step time line"
    ;;
window)
    # A --capture steps:100-150 recording: only the window's steps are analysed.
    out=$("$ss" report "$fx/h200-cnn-window.sstrace") || fail "exit $?"
    # 50 steps in the window, one of them a one-off stall (step 109, 15.4 ms: 4.5x the median)
    grep -q '^  steps      49 of 50 (step_records' <<<"$out" || fail "steps line: $out"
    grep -q '1 step over 3x the median left out of the breakdown' <<<"$out" || fail "outlier: $out"
    grep -q '279 outside the GPU capture window: not counted' <<<"$out" || fail "outside: $out"
    # its steps outside the window (after CUPTI was detached; 274 steady ones, the one the window opened in left out) measure the recording's cost
    grep -q "is stepscope's own cost, measured" <<<"$out" || fail "recording cost basis: $out"
    grep -q 'against 274 steps without it' <<<"$out" || fail "baseline steps: $out"
    "$ss" report --format json "$fx/h200-cnn-window.sstrace" >"$work/w.json" || fail "json exit"
    "$py" -c 'import json,sys; d=json.load(open(sys.argv[1]))["steps"]; assert d["outside_capture"] == 279 and d["analysed"] == 49 and d["outliers_left_out"] == 1, d' "$work/w.json" || fail "json outside_capture"
    ;;
auto_default)
    # Real H100 recordings with record's defaults (issue #39, tests/fixtures/h100-1206): a loop
    # whose whole step is one CUDA graph (the shim marks 4 steps, then only replays), one that
    # marks no step at all (a hand-written SGD update), a warm-up-heavy one; and a torch.profiler
    # trace of the launch-bound eager MLP.
    h=$fx/h100-1206
    "$ss" report --format json "$h/auto/cuda_graph-fixed.sstrace" >"$work/graph.json" || fail "graph: exit $?"
    "$py" - "$work/graph.json" <<'PYEOF' || fail "graph loop"
import json, sys
d = json.load(open(sys.argv[1])); st, rc = d["steps"], d["recording_cost"]
assert st["source"] == "graph_launches" and st["analysed"] >= 20, st
assert st["window_opened"] == "graph_replays", st
# estimated per kernel launch call (not the graph launch, which blocks for its graph), and
# said per graph launch
assert rc.get("launch_call_us", 0) < 100 and rc["us_per_graph_launch"] > 0, rc
PYEOF
    out=$("$ss" report "$h/auto/cuda_graph-fixed.sstrace") || fail "graph text: exit $?"
    grep -q 'opened its GPU window at the 8th CUDA graph replay' <<<"$out" || fail "graph text: $out"
    "$ss" report --format json "$h/auto/manual_sgd.sstrace" >"$work/manual.json" || fail "manual: exit $?"
    "$py" - "$work/manual.json" <<'PYEOF' || fail "no-step loop"
import json, sys
st = json.load(open(sys.argv[1]))["steps"]
assert st["source"] == "detected" and st["analysed"] >= 20, st
assert st["window_opened"] == "backward_calls", st
PYEOF
    # every measured cost of every committed recording lies inside its own range
    find "$fx" -name '*.sstrace' | sort | while read -r t; do
        "$ss" report --format json --accept-damage "$t" 2>/dev/null
    done | "$py" -c '
import json, sys
text, n, bad = sys.stdin.read(), 0, []
dec, i = json.JSONDecoder(), 0
while i < len(text):
    while i < len(text) and text[i].isspace(): i += 1
    if i >= len(text): break
    obj, i = dec.raw_decode(text, i)
    for d in obj if isinstance(obj, list) else [obj]:
        rc = d.get("recording_cost", {})
        if rc.get("basis") != "measured": continue
        n += 1
        if not rc["ms_per_step_low"] <= rc["ms_per_step"] <= rc["ms_per_step_high"]:
            bad.append((d["file"], rc))
assert n >= 10 and not bad, (n, bad)
print("measured costs inside their ranges: %d" % n)' || fail "a measured cost outside its range"
    # findings whose savings overlap (combo3: fp32 GEMMs and a sync every step) say so, and
    # all of them fixed is not their sum; the data-loading fixture's do not
    "$ss" report --format json "$fx/workloads/traces/mlp_big-fp32-sync.sstrace" >"$work/combo.json" || fail "combo: exit $?"
    "$py" -c 'import json,sys; a=json.load(open(sys.argv[1]))["all_fixed"]; assert a["overlap"] and a["ms_per_step"] < a["sum_ms_per_step"], a' "$work/combo.json" || fail "combo: all_fixed"
    "$ss" report "$fx/workloads/traces/mlp_big-fp32-sync.sstrace" | tr -s ' \n' ' ' | grep -q "all of them fixed: .* not their sum" || fail "combo: no 'together' line"
    "$ss" report --format json "$w0" | "$py" -c 'import json,sys; a=json.load(sys.stdin)["all_fixed"]; assert not a["overlap"], a' || fail "w0: all_fixed overlaps"
    # torch.profiler's trace of the launch-bound eager MLP (planted: a per-parameter optimizer
    # and per-tensor clipping): the optimizer and the launches first, as in stepscope's own
    # (launch_bound's price leaves the optimizer's gaps to the optimizer's finding)
    "$ss" report --format json "$h/kineto/eager_mlp-bad.json.gz" >"$work/kineto.json" || fail "kineto: exit $?"
    "$py" -c 'import json,sys; f=[x["id"] for x in json.load(open(sys.argv[1]))["findings"]]; assert set(f[:2]) == {"launch_bound", "unfused_optimizer"}, f' "$work/kineto.json" || fail "kineto: top findings"
    ;;
whole_run)
    # The whole run on real recordings (issue #43): tests/analysis/whole_run_check.py says what
    "$py" "$(dirname "$0")/whole_run_check.py" "$ss" "$fx/h100-1206/whole" || fail "whole run"
    out=$("$ss" report "$fx/h100-1206/whole/save-bad.sstrace") || fail "text: exit $?"
    grep -q '^  whole run  1220 steps' <<<"$out" || fail "text: no whole-run head: $out"
    grep -Eq 'every 200 steps \+1[0-9]{2}\.[0-9] ms' <<<"$out" || fail "text: no stall line: $out"
    [ "$(wc -l <<<"$out")" -le 60 ] || fail "text: more than one screen"
    "$ss" report --format md "$fx/h100-1206/whole/drift-bad.sstrace" | grep -q '^### Whole run' ||
        fail "md: no whole-run section"
    "$ss" report --format html -o "$work/d.html" "$fx/h100-1206/whole/drift-bad.sstrace" &&
        grep -q 'aria-label="step time over the whole run"' "$work/d.html" || fail "html: no chart"
    # killed mid-run: the series up to the cut, said incomplete
    head -c 900000 "$fx/h100-1206/whole/save-bad.sstrace" >"$work/killed.sstrace"
    out=$("$ss" report --accept-damage "$work/killed.sstrace") || fail "killed: exit $?"
    grep -q 'INCOMPLETE: the series stops where the trace' <<<"$(tr -s ' \n' ' ' <<<"$out")" ||
        fail "killed: not said incomplete: $out"
    ;;
framework_fixes)
    # Fixes in the program's framework (issue #40): an HF Trainer program is told its
    # TrainingArguments, a Lightning one its DataLoader in train_dataloader() and its Trainer's
    # precision; a plain loop keeps torch's own words.
    out=$("$ss" report "$fx/h200-1201/fw/hf_trainer_gpt2-bad/vm-5693.sstrace" | tr -s ' \n' ' ') || fail "hf: exit $?"
    grep -q "fix: TrainingArguments(bf16=True)" <<<"$out" || fail "hf: mixed precision fix: $out"
    grep -q "TrainingArguments(torch_compile=True)" <<<"$out" || fail "hf: compile fix: $out"
    ! grep -q "torch.autocast" <<<"$out" || fail "hf: autocast advice: $out"
    out=$("$ss" report "$fx"/h200-1201/fw/lightning_cnn-bad/*.sstrace | tr -s ' \n' ' ') || fail "lightning: exit $?"
    grep -q "DataLoader(num_workers=[0-9]*, pin_memory=True, persistent_workers=True) in the LightningModule's or LightningDataModule's train_dataloader()" <<<"$out" ||
        fail "lightning: data fix: $out"
    out=$("$ss" report "$w0" | tr -s ' \n' ' ') || fail "w0: exit $?"
    grep -q "fix: DataLoader(num_workers=6, pin_memory=True, persistent_workers=True)" <<<"$out" || fail "w0: plain fix: $out"
    # Lightning's own per-step read of its progress-bar values (the sync's library frame is
    # lightning's convert_tensors_to_scalars: the H100 zoo recording, the bar refreshed every
    # step) is told as self.log's prog_bar; a loop's own loss.item() keeps the generic words
    out=$("$ss" report -v "$fx/zoo/traces/lightning_cnn_progress-before.sstrace" | tr -s ' \n' ' ') ||
        fail "lightning sync: exit $?"
    grep -q "fix: self.log(..., prog_bar=True) makes Lightning read the value back every step" <<<"$out" ||
        fail "lightning sync: prog_bar fix: $out"
    out=$("$ss" report -v "$fx/zoo/traces/hf_gpt2_loop_item_fp32-before.sstrace" | tr -s ' \n' ' ') ||
        fail "loop sync: exit $?"
    grep -q "fix: avoid .item(), .cpu(), print(tensor)" <<<"$out" && ! grep -q "prog_bar" <<<"$out" ||
        fail "loop sync: generic fix: $out"
    # nn.TransformerEncoder's causal-mask check (the syncs' library frame, the H100 zoo
    # recording): is_causal=True removes the sync, and comes before compiling (a graph break
    # there left the encoder eager); a loop's own .item() gets neither
    out=$("$ss" report -v "$fx/zoo/traces/plain_lm_bf16-before.sstrace" | tr -s ' \n' ' ') ||
        fail "mask sync: exit $?"
    grep -q "fix: nn.TransformerEncoder compares the mask with a causal one on the host at every call (_detect_is_causal_mask): pass is_causal=True" <<<"$out" ||
        fail "mask sync: sync fix: $out"
    grep -q "fix: pass is_causal=True with the mask to nn.TransformerEncoder first (its mask check syncs: a graph break that leaves the encoder eager), then torch.compile(model)" <<<"$out" ||
        fail "mask sync: compile fix: $out"
    out=$("$ss" report -v "$fx/zoo/traces/hf_gpt2_loop_item_fp32-before.sstrace" | tr -s ' \n' ' ')
    ! grep -q "is_causal" <<<"$out" || fail "loop sync: mask advice: $out"
    ;;
sampled)
    # Launch calls recorded in one step of 8 (real H200 runs, --capture all: a full recording
    # of the timm ViT, a light one of the eager MLP): only steps with launch calls are analysed,
    # as the trace's own API records show, and the per-step launches are theirs, not 1/8 of them.
    for f in vit60-full-s8 mlp100-light-s8; do
        t=$fx/h200-1204/sampled/$f.sstrace
        out=$("$ss" report "$t") || fail "$f: exit $?"
        grep -q 'without launch calls (1 step in 8 has them' <<<"$out" || fail "$f: no sampling line: $out"
        # a light recording has no kernel to say the GPU ran behind its launches
        [ "$f" != mlp100-light-s8 ] || ! grep -q 'GPU ran behind the host' <<<"$out" ||
            fail "$f: host-ahead caution in a light recording: $out"
        "$ss" report --format json -v "$t" >"$work/$f.json" || fail "$f: json exit"
        "$ss" dump --json -t api "$t" >"$work/$f.api" || fail "$f: dump"
        "$py" - "$work/$f.json" "$work/$f.api" <<'PYEOF' || fail "$f: sampled steps"
import bisect, json, statistics, sys
d = json.load(open(sys.argv[1]))
launch = sorted(r["t"] for r in map(json.loads, open(sys.argv[2])) if r["cbid"] == 211)
st = d["steps"]
assert st["launch_sample"] == 8 and st["launch_unsampled"] >= 5 * st["analysed"] > 0, st
per = []
for s in d["step_list"]:
    n = bisect.bisect_left(launch, s["end_ns"]) - bisect.bisect_left(launch, s["begin_ns"])
    assert n > 0, ("a step without launch calls was analysed", s["begin_ns"])
    per.append(n)
got = d["per_step"]["launches"]
assert got >= 0.9 * statistics.median(per), (got, statistics.median(per))
PYEOF
        # What recording launch calls cost, measured as the report says: each sampled step
        # (launches on at its middle, by the CAPTURE records) less the mean of the unsampled
        # steps beside it, from the 4th step on; the same median, recomputed from the dump.
        "$ss" dump --json -t step,capture "$t" >"$work/$f.sc" || fail "$f: dump steps"
        "$py" - "$work/$f.json" "$work/$f.sc" "$f" <<'PYEOF' || fail "$f: launch calls' cost"
import json, statistics, sys
rc = json.load(open(sys.argv[1]))["recording_cost"]
begin, end, sw = {}, {}, []
for r in map(json.loads, open(sys.argv[2])):
    if r["type"] == "capture" and "launches" in str(r.get("what")):
        sw.append((r["t"], r["state"] == "on"))
    elif r["type"] == "step" and r.get("phase") in ("begin", "end"):
        (begin if r["phase"] == "begin" else end)[r["step"]] = r["t"]
sw.sort()
def on_at(t):
    state = True
    for at, v in sw:
        if at > t:
            break
        state = v
    return state
steps = sorted(s for s in begin if s in end)
dur = {s: end[s] - begin[s] for s in steps}
on = {s: on_at((begin[s] + end[s]) // 2) for s in steps}
pairs = [dur[s] - (dur[s - 1] + dur[s + 1]) / 2 for i, s in enumerate(steps)
         if i >= 3 and on[s] and on.get(s - 1) is False and on.get(s + 1) is False]
want = statistics.median(pairs) / 1e6
assert rc["launch_calls_steps"] == len(pairs), (rc, len(pairs))
assert abs(rc["launch_calls_ms_per_step"] - want) < 0.02, (rc, want)
assert rc["launch_calls_low"] < rc["launch_calls_ms_per_step"] < rc["launch_calls_high"], rc
if sys.argv[3] == "mlp100-light-s8":
    # the eager MLP is host-bound: its ~1980 launch callbacks a step show (+2.1 ms)
    assert rc["launch_calls_low"] > 0.5, rc
    assert rc["ms_per_step"] >= rc["launch_calls_ms_per_step"], rc
PYEOF
        tr '\n' ' ' <<<"$out" | tr -s ' ' |
            grep -q 'recording launch calls: [+-][0-9.]* ms .* a sampled step against its neighbours (measured, [0-9]* steps)' ||
            fail "$f: no measured launch calls in the recording line: $out"
    done
    ;;
json)
    "$ss" report --format json -v "$w0" >"$work/one.json" || fail "exit $?"
    "$py" - "$work/one.json" <<'PYEOF' || fail "json content"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "stepscope.report" and d["version"] == 1
assert d["steps"]["source"] == "step_records" and d["steps"]["analysed"] == 7
cats = {c["name"]: c for c in d["categories"]}
assert cats["data"]["pct"] > 60, cats["data"]
assert abs(sum(c["pct"] for c in d["categories"]) - 100) < 1e-6
for s in d["step_list"]:
    assert sum(s["cat_ns"].values()) == s["end_ns"] - s["begin_ns"]
f = d["findings"]
assert f and f[0]["id"] == "data_loading" and f[0]["severity"] == "high", f
assert abs(f[0]["saving_ms_per_step"] - 85.4) < 0.2 * 85.4, f[0]
assert all(a["saving_ms_per_step"] >= b["saving_ms_per_step"] for a, b in zip(f, f[1:]))
assert "num_workers=" in f[0]["fix"] and f[0]["speedup"] > 1
PYEOF
    "$ss" report --format json "$w0" "$fx/h200-dataloader-w8.sstrace" >"$work/two.json" ||
        fail "exit $?"
    "$py" -c 'import json,sys; d=json.load(open(sys.argv[1])); assert len(d)==2' \
        "$work/two.json" || fail "two traces give an array of two"
    # no finding's text fills its buffer (struct ssa_finding: evidence 640, estimate 320, fix
    # 400 bytes): snprintf would have cut it mid-number (the zoo's EfficientNet once did)
    for t in "$fx"/zoo/traces/*.sstrace "$fx"/h200-1201/fw/*/*.sstrace; do
        "$ss" report --format json "$t" >"$work/cut.json" || fail "$t: exit $?"
        "$py" -c 'import json,sys; f=json.load(open(sys.argv[1]))["findings"]; cut=[(x["id"],k) for x in f for k,n in (("evidence",639),("estimate",319),("fix",399)) if len(x[k].encode())>=n]; assert not cut, cut' \
            "$work/cut.json" || fail "$t: a finding's text cut at its buffer's end"
    done
    ;;
usage)
    "$ss" report >/dev/null 2>&1; [ $? -eq 2 ] || fail "no TRACE: want 2"
    "$ss" report --format xml "$w0" >/dev/null 2>&1; [ $? -eq 2 ] || fail "bad format: want 2"
    "$ss" report --help | grep -q 'usage: stepscope report' || fail "--help"
    "$ss" --help | grep -q '^  report' || fail "verb not listed"
    ;;
bad_inputs)
    : >"$work/empty"
    err=$("$ss" report "$work/empty" 2>&1 >/dev/null); rc=$?
    [ $rc -eq 1 ] || fail "empty: exit $rc"
    grep -q '^stepscope report: .*empty' <<<"$err" || fail "empty: message '$err'"
    [ "$(wc -l <<<"$err")" -eq 1 ] || fail "one line"
    "$ss" report "$work/missing" >/dev/null 2>&1; [ $? -eq 1 ] || fail "missing: want 1"
    "$ss" report "$work" >/dev/null 2>&1; [ $? -eq 1 ] || fail "directory: want 1"
    head -c 100 /dev/urandom >"$work/noise"
    "$ss" report "$work/noise" >/dev/null 2>&1; [ $? -eq 1 ] || fail "noise: want 1"
    "$ss" report "$fx/synthetic-small.sstrace" >/dev/null || fail "synthetic fixture"
    ;;
truncated)
    size=$(stat -c %s "$w0")
    head -c $((size / 2)) "$w0" >"$work/half.sstrace"
    # a cut trace: said first, steps by period flagged, exit 1 unless accepted (issue #29)
    out=$("$ss" report "$work/half.sstrace" 2>"$work/err"); rc=$?
    [ $rc -eq 1 ] && [ "$(wc -l <"$work/err")" -eq 1 ] || fail "half: exit $rc, $(cat "$work/err")"
    [ "$(sed -n 2p <<<"$out" | cut -c1-12)" = "  INCOMPLETE" ] || fail "half: not said first: $out"
    grep -q 'truncated' <<<"$out" || fail "half: state not said: $out"
    # the issue's example: cut to 30000 bytes, steps by period in the fragment, said so
    head -c 30000 "$w0" >"$work/cut.sstrace"
    out=$("$ss" report --accept-damage "$work/cut.sstrace") || fail "cut: exit $?"
    grep -q 'found by period' <<<"$out" || fail "cut: period steps not flagged: $out"
    out=$("$ss" report --accept-damage "$work/half.sstrace") || fail "half accepted: exit $?"
    "$ss" report --accept-damage --format json "$work/half.sstrace" |
        grep -q '"incomplete": true' || fail "half: JSON incomplete not true"
    "$ss" report --format json "$w0" | grep -q '"incomplete": false' || fail "whole: incomplete"
    head -c 200 "$w0" >"$work/head.sstrace"
    out=$("$ss" report --accept-damage "$work/head.sstrace") || fail "head: exit $?"
    grep -q 'no step markers' <<<"$out" || fail "head: $out"
    ;;
graph_optimizer)
    # An optimizer replayed in a CUDA graph (the H100 zoo recording graph_mlp_healthy): its
    # operations are no launches, so the recording's per-launch cost takes nothing off its
    # idle gaps: the price is the span's busy time x (1 - 7/21) plus span - busy, as the
    # finding's own evidence gives them (before: the gaps lost to 223 launches' cost, 0.38)
    "$ss" report --format json "$fx/zoo/traces/graph_mlp_healthy-before.sstrace" >"$work/g.json" ||
        fail "graph optimizer: exit $?"
    "$py" - "$work/g.json" <<'PYEOF' || fail "graph optimizer: price"
import json, re, sys
d = json.load(open(sys.argv[1]))
d = d[0] if isinstance(d, list) else d
f = next(f for f in d["findings"] if f["id"] == "unfused_optimizer")
span, busy = map(float, re.search(r"spans ([0-9.]+) ms/step of the GPU's time: ([0-9.]+) busy",
                                  f["evidence"]).groups())
want = busy * (1 - 7 / 21) + span - busy
sys.exit(0 if abs(f["saving_ms_per_step"] - want) < 0.011 else
         print("saving %.3f, want %.3f" % (f["saving_ms_per_step"], want)) or 1)
PYEOF
    ;;
*) fail "unknown case $case_name" ;;
esac
echo ok
