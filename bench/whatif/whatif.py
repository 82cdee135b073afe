#!/usr/bin/env python3
"""What-if accuracy (issue #31): each finding's price against the saving its fix measured, on
the committed GPU-recorded twins (a planted program and its fixed twin, both recorded on the
H200). A benchmark, not a test: it prints where the prices stand; `--check` gates the mean and
worst absolute error over the twins whose measured saving can judge 5 % (ctest
`bench.whatif`).

    whatif.py STEPSCOPE FIXTURES             # the table, then the summary lines
    whatif.py STEPSCOPE FIXTURES --check     # ... and exit 1 when MAE > 5 % or worst > 15 %
    whatif.py STEPSCOPE FIXTURES --json      # one JSON object per twin, one per line

The price is the finding's saving_ms_per_step on the bad twin; when the fixed twin still has
the same finding (its fix removed the planted part only), the fixed twin's price is taken off.

Two measured savings per twin, each with its own uncertainty:

  recorded  the twins' own recordings: (bad's mean step - its recording cost) - (fixed's mean
            step - its recording cost), the steps and costs the two reports measure. The same
            processes the prices come from: it judges the what-if model and nothing else.
            Uncertainty: the standard errors of the two means, plus half the spread of the
            recording-cost difference (a measured cost's quartiles; a calibrated cost's range
            over programs when the twins' launch counts differ).
  plain     the runs without stepscope of the truth files (tests/fixtures/workloads/truth.json,
            tests/fixtures/h200-1201/truth-native.json, truth-host.json): bad median - fixed
            median. Other processes: it adds the recording's observer effect and the host's
            speed drifting between processes. Uncertainty: half the p10..p90 width of the bad
            and of the fixed runs, combined.

A twin is judged against the first of (recorded, plain) whose uncertainty is within
JUDGE_PCT of its saving; neither: not judged, and the table says why. The recorded saving
comes first because it measures what the price models (the program's host speed moves between
processes: the C programs' data preparation took 2.48 ms/step in the recorded run and 3.09 in
the plain ones). A combined case (two planted causes, one all-fixed twin recorded) has only the
plain per-cause savings.

Held out (never looked at while changing a what-if model; judged once at the end): the
programs marked held_out below — the C++ twins (the C twins of the same plants were used to
tune), the held-out framework programs, and combo3.
"""
import glob
import json
import math
import os
import subprocess
import sys

JUDGE_PCT = 5.0
# The two twins ran in two processes, and a host-bound step moves by 10-40 % between processes
# on the H200 (docs/performance.md): the fixed twin's host-bound part (its GPU-idle time, less
# the recording's cost) is known to +-10 % at best. The bad twin's is the one the price read.
HOST_DRIFT = 0.10
MAE_MAX, WORST_MAX = 5.0, 15.0


def twin(name, finding, bad, fixed, truth=None, held_out=False, other_fix=None):
    """other_fix: why the twin's fix is not the finding's (then its saving is not the price's
    to match: shown, not judged)."""
    return {"name": name, "finding": finding, "bad": bad, "fixed": fixed, "truth": truth,
            "held_out": held_out, "other_fix": other_fix}


WL = "workloads/traces/"
CORE = "h200-1201/core/"
FW = "h200-1201/fw/"
GB = "h200-1204/gpubound/"
# (twin name, the finding its plant must get, bad trace, fixed trace, plain truth)
TWINS = [
    twin("data", "data_loading", WL + "cnn_jpeg-data", WL + "cnn_jpeg-none", ("wl", "data")),
    twin("pageable", "pageable_h2d", WL + "wide-pageable", WL + "wide-none", ("wl", "pageable")),
    twin("sync", "sync_points", WL + "mlp-sync", WL + "mlp-none", ("wl", "sync")),
    twin("fp32", "no_mixed_precision", WL + "mlp_big-fp32", WL + "mlp_big-none", ("wl", "fp32")),
    twin("launch", "launch_bound", WL + "mlp-launch", WL + "mlp-none", ("wl", "launch")),
    twin("empty_cache", "allocator_churn", WL + "cnn_mem-empty_cache", WL + "cnn_mem-none",
         ("wl", "empty_cache")),
    twin("cpu_tensors", "cpu_tensors", WL + "mlp-cpu_tensors", WL + "mlp-none",
         ("wl", "cpu_tensors")),
    twin("combo1:data", "data_loading", WL + "cnn_jpeg-data-sync", None, ("wl", "combo1", "data")),
    twin("combo1:sync", "sync_points", WL + "cnn_jpeg-data-sync", None, ("wl", "combo1", "sync")),
    twin("combo2:pageable", "pageable_h2d", WL + "wide-cpu_tensors-pageable", None,
         ("wl", "combo2", "pageable")),
    twin("combo2:cpu_tensors", "cpu_tensors", WL + "wide-cpu_tensors-pageable", None,
         ("wl", "combo2", "cpu_tensors")),
    twin("combo3:fp32", "no_mixed_precision", WL + "mlp_big-fp32-sync", None,
         ("wl", "combo3", "fp32"), held_out=True),
    twin("combo3:sync", "sync_points", WL + "mlp_big-fp32-sync", None, ("wl", "combo3", "sync"),
         held_out=True),
] + [
    twin("%s_%s" % (lang, case), finding, CORE + "%s_%s-bad" % (lang, case),
         CORE + "%s_%s-fixed" % (lang, case), ("native", "%s_%s" % (lang, case)),
         held_out=lang == "cxx")
    for lang in ("cabi", "cxx")
    for case, finding in (("data", "data_loading"), ("copy", "pageable_h2d"),
                          ("sync", "sync_points"), ("dtype", "no_mixed_precision"))
] + [
    twin("host_collate", "data_loading", CORE + "host_collate-bad", CORE + "host_collate-fixed",
         ("host", "collate")),
    twin("host_item", "sync_points", CORE + "host_item-bad", CORE + "host_item-fixed",
         ("host", "item")),
    twin("host_pyloop", "launch_bound", CORE + "host_pyloop-bad", CORE + "host_pyloop-fixed",
         ("host", "pyloop"), other_fix="the plant's fix vectorises the loop: its kernels and "
         "its longer host gaps go too, where launch_bound's fix (compile, graphs) keeps them"),
    twin("eager_mlp", "unfused_optimizer", FW + "eager_mlp-bad", FW + "eager_mlp-fixed",
         other_fix="the fixed twin also runs clip_grad_norm_ foreach: ~440 launches/step more "
         "go than the optimizer's"),
    twin("timm_vit", "no_mixed_precision", FW + "timm_vit-bad", FW + "timm_vit-fixed"),
    twin("hf_trainer_gpt2", "no_mixed_precision", FW + "hf_trainer_gpt2-bad",
         FW + "hf_trainer_gpt2-fixed"),
    twin("lightning_cnn", "data_loading", FW + "lightning_cnn-bad", FW + "lightning_cnn-fixed"),
    twin("cuda_graph", "launch_bound", FW + "cuda_graph-bad", FW + "cuda_graph-fixed"),
    twin("compile_recompile", "recompiles", FW + "compile_recompile-bad",
         FW + "compile_recompile-fixed"),
    twin("heldout_resnet50", "data_loading", FW + "heldout_resnet50-bad",
         FW + "heldout_resnet50-fixed", held_out=True),
    twin("heldout_bert", "sync_points", FW + "heldout_bert-bad", FW + "heldout_bert-fixed",
         held_out=True),
    # recorded for issue #28's cause line; its pricing was never tuned on
    twin("alloc_transformer", "allocator_churn", "h200-1204/alloc/alloc-bad",
         "h200-1204/alloc/alloc-fixed", held_out=True),
] + [
    # issue #31's GPU-side rules, on a GPU-bound bf16 MLP (gpubound_twins.py): recorded once
    # their rules were written and never tuned on since (held out)
    twin("gpubound_" + case, finding, GB + case + "-bad", GB + case + "-fixed",
         ("gpu", "gpubound_" + case), held_out=True)
    for case, finding in (("optimizer", "unfused_optimizer"),
                          ("elementwise", "unfused_elementwise"),
                          ("copies", "device_copies"), ("fp32", "no_mixed_precision"))
]


def trace_path(fx, rel):
    """A trace file, or the largest trace of a folder (the process that ran the program)."""
    path = os.path.join(fx, rel)
    if os.path.exists(path + ".sstrace"):
        return path + ".sstrace"
    found = sorted(glob.glob(os.path.join(path, "*.sstrace")), key=os.path.getsize)
    return found[-1] if found else None


def report(stepscope, path):
    # damage accepted: cxx_data-fixed's CUPTI dropped a record while recording (issue #41)
    p = subprocess.run([stepscope, "report", "--accept-damage", "--format", "json", "-v", path],
                       capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        sys.exit("%s: %s" % (path, p.stderr.strip()))
    return json.loads(p.stdout)


def price(rep, finding):
    for f in rep["findings"] if rep else []:
        if f["id"] == finding:
            return f["saving_ms_per_step"]
    return 0.0


def steady_steps_ms(rep):
    return [(s["end_ns"] - s["begin_ns"]) / 1e6 for s in rep.get("step_list", [])
            if not s["warmup"]]


def mean_and_se(rep):
    v = steady_steps_ms(rep)
    if len(v) < 2:
        return rep["steps"]["mean_ms"], float("inf")
    m = sum(v) / len(v)
    sd = math.sqrt(sum((x - m) ** 2 for x in v) / (len(v) - 1))
    return m, sd / math.sqrt(len(v))


def rec_cost(rep):
    """(ms/step, half its range) of the recording's own cost as the report states it."""
    rc = rep["recording_cost"]
    lo, hi = rc.get("ms_per_step_low", rc["ms_per_step"]), rc.get("ms_per_step_high",
                                                                   rc["ms_per_step"])
    return rc["ms_per_step"], (hi - lo) / 2


def idle_ms(rep):
    return sum(c["ms_per_step"] for c in rep["categories"] if not c["gpu_busy"])


def recorded_saving(bad, fixed):
    """(saving, uncertainty) measured on the twins' own recordings."""
    mb, sb = mean_and_se(bad)
    mf, sf = mean_and_se(fixed)
    cb, ub = rec_cost(bad)
    cf, uf = rec_cost(fixed)
    drift = HOST_DRIFT * max(idle_ms(fixed) - cf, 0)
    return (mb - cb) - (mf - cf), math.sqrt(sb ** 2 + sf ** 2 + drift ** 2) + abs(ub - uf)


def half_width(side):
    if side.get("p10") is None or side.get("p90") is None:
        return float("inf")
    return (side["p90"] - side["p10"]) / 2


def load_truths(fx):
    with open(os.path.join(fx, "workloads", "truth.json")) as f:
        wl = {e["case"]: e for e in json.load(f) if "bad" in e}
    with open(os.path.join(fx, "h200-1201", "truth-native.json")) as f:
        native = {e["case"]: e for e in json.load(f) if "fixed" in e}
    with open(os.path.join(fx, "h200-1201", "truth-host.json")) as f:
        host = {e["plant"]: e for e in json.load(f)}
    with open(os.path.join(fx, "h200-1204", "gpubound", "truth.json")) as f:
        gpu = {e["program"]: e["variants"] for e in json.load(f)}
    return {"wl": wl, "native": native, "host": host, "gpu": gpu}


def plain_saving(truths, ref):
    """(saving, uncertainty, how many runs) of the runs without stepscope, or None."""
    if not ref:
        return None
    kind, key = ref[0], ref[1]
    if kind == "host":
        h = truths["host"][key]
        return h["saving_ms"], (h["saving_max_ms"] - h["saving_min_ms"]) / 2, h["reps"]
    e = truths[kind][key]
    unc = math.hypot(half_width(e["bad"]), half_width(e["fixed"]))
    runs = min(e["bad"].get("n_ok", 0), e["fixed"].get("n_ok", 0))
    if len(ref) == 3:  # one cause of a combined case: bad - the variant with it fixed
        return e["per_cause"][ref[2]]["saving_ms"], unc, runs
    return e["bad"]["median_ms"] - e["fixed"]["median_ms"], unc, runs


def judge(row):
    """The reference the twin is judged against: the first that resolves JUDGE_PCT."""
    for ref in ("recorded", "plain"):
        s, u = row.get(ref + "_ms"), row.get(ref + "_unc")
        if s is None or s <= 0:
            continue
        if row.get(ref + "_runs", 3) >= 2 and 100 * u / s <= JUDGE_PCT:
            return ref
    return None


def measure(stepscope, fx, truths, t):
    bad = report(stepscope, trace_path(fx, t["bad"]))
    fixed = report(stepscope, trace_path(fx, t["fixed"])) if t["fixed"] else None
    row = {"name": t["name"], "finding": t["finding"], "held_out": t["held_out"],
           "price_ms": price(bad, t["finding"]) - price(fixed, t["finding"]),
           "fixed_keeps": price(fixed, t["finding"]) > 0, "other_fix": t["other_fix"]}
    if fixed:
        row["recorded_ms"], row["recorded_unc"] = recorded_saving(bad, fixed)
    plain = plain_saving(truths, t["truth"])
    if plain:
        row["plain_ms"], row["plain_unc"], row["plain_runs"] = plain
    row["judged_by"] = None if t["other_fix"] else judge(row)
    for ref in ("plain", "recorded"):
        if row.get(ref + "_ms"):
            row[ref + "_err_pct"] = 100 * (row["price_ms"] - row[ref + "_ms"]) / row[ref + "_ms"]
    return row


def cell(row, ref):
    if ref + "_ms" not in row:
        return "-"
    return "%.2f ±%.2f (%+.0f %%)" % (row[ref + "_ms"], row[ref + "_unc"],
                                     row.get(ref + "_err_pct", float("nan")))


def print_table(rows):
    print("| twin | finding | price ms/step | recorded saving (error) | plain saving (error) "
          "| judged by |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        judged = r["judged_by"] or ("not judged: " + r["other_fix"] if r["other_fix"] else
                                    "not judged: no saving known within %.0f %%" % JUDGE_PCT)
        if r["held_out"]:
            judged += " (held out)"
        shared = " (less the fixed twin's)" if r["fixed_keeps"] else ""
        print("| %s | %s | %.2f%s | %s | %s | %s |" % (r["name"], r["finding"], r["price_ms"],
                                                     shared, cell(r, "recorded"),
                                                     cell(r, "plain"), judged))


def summary(rows, which):
    errs = [abs(r[r["judged_by"] + "_err_pct"]) for r in rows if r["judged_by"]]
    if not errs:
        print("%s: no twin judged" % which)
        return None
    mae, worst = sum(errs) / len(errs), max(errs)
    print("%s: %d twins judged, mean |error| %.1f %%, worst %.1f %%" % (which, len(errs), mae,
                                                                      worst))
    return mae, worst


def main(argv):
    if len(argv) < 2 or (len(argv) == 3 and argv[2] not in ("--check", "--json")):
        sys.stderr.write(__doc__)
        return 2
    stepscope, fx = argv[0], argv[1]
    truths = load_truths(fx)
    rows = [measure(stepscope, fx, truths, t) for t in TWINS]
    if len(argv) == 3 and argv[2] == "--json":
        for r in rows:
            print(json.dumps(r))
        return 0
    print_table(rows)
    print()
    tuned = summary([r for r in rows if not r["held_out"]], "tuned on")
    held = summary([r for r in rows if r["held_out"]], "held out")
    every = summary(rows, "all")
    if len(argv) == 3 and every:
        ok = every[0] <= MAE_MAX and every[1] <= WORST_MAX
        print("%s: mean |error| <= %.0f %% and worst <= %.0f %% over the judged twins" % (
            "pass" if ok else "FAIL", MAE_MAX, WORST_MAX))
        return 0 if ok else 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
