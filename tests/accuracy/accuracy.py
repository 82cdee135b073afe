#!/usr/bin/env python3
"""Accuracy gates of the report (issue #5) on the planted-bottleneck fixtures of issue #4.

Reads tests/fixtures/workloads/truth.json (measured on the H200: ms/step of each case bad and
fixed, and per cause for the combined cases) and runs `stepscope report --format json` on the
trace recorded of each case's bad configuration (tests/fixtures/workloads/traces/). Gates:

  top      the top-ranked finding is the planted cause (combined cases: both causes, ranked
           in the order of their measured savings)
  share    the planted cause's share of the step within +-5 percentage points of the truth
           (truth: saving / bad ms/step; report: the finding's saving_pct)
  saving   the estimated saving within +-20 % of the measured bad->fixed saving
  clean    the clean program gets no finding above low severity

    accuracy.py STEPSCOPE FIXTURES --gate CASE:GATE     # one gate: exit 0 pass, 1 miss, 77 n/a
    accuracy.py STEPSCOPE FIXTURES --known-miss CASE:GATE  # 0 while it misses, 1 once it passes
    accuracy.py STEPSCOPE FIXTURES --table              # every gate of every case, as a table

A gate is "n/a" (exit 77, ctest skips it visibly) where the truth cannot judge it: the case's
fixed twin was not measurably faster, the committed trace predates the workload's current
definition (traces/stale.json), fewer than 3 runs of bad or fixed succeeded, or the
truth's own uncertainty (half the p10..p90 width of the bad runs) is larger than the gate's
tolerance (share: 5 points of the step; saving: 20 % of the measured saving).
"""
import json
import os
import sys

import gatelib
from gatelib import N_A, report

# The finding each planted cause must produce (ssa_findings.c rule ids).
FINDING = {"data": "data_loading", "pageable": "pageable_h2d", "sync": "sync_points",
           "fp32": "no_mixed_precision", "launch": "launch_bound",
           "empty_cache": "allocator_churn", "cpu_tensors": "cpu_tensors",
           "dp": "data_parallel"}
SHARE_PP = 5.0
SAVING_REL = 0.20
MIN_RUNS = 3


def stale_reason(fixtures, config):
    """Why the committed trace of config no longer matches the truth (traces/stale.json: the
    workload was redefined after the trace was recorded), or None."""
    path = os.path.join(fixtures, "traces", "stale.json")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f).get(config)


def trace_of(fixtures, config):
    if stale_reason(fixtures, config):
        return None
    path = os.path.join(fixtures, "traces", config + ".sstrace")
    if os.path.exists(path):
        return path
    folder = os.path.join(fixtures, "traces", config)  # several processes (torchrun)
    return folder if os.path.isdir(folder) else None


def truth_spread_pct(side):
    """The bad runs' p10..p90 width as a share of their median (None when unknown)."""
    if not side or not side.get("median_ms") or side.get("p10") is None:
        return None
    return 100.0 * (side["p90"] - side["p10"]) / side["median_ms"]


def gates_of(entry):
    if not entry.get("planted"):
        return ["clean"]
    return ["top", "share", "saving"]


def causes_by_saving(entry):
    """Planted causes, largest measured saving first (one cause: itself)."""
    planted = entry["planted"]
    if "per_cause" not in entry:
        return list(planted)
    return sorted(planted, key=lambda c: -(entry["per_cause"][c]["saving_ms"] or 0))


def judge(entry, rep, gate):
    """(status, detail): status 'pass', 'miss' or 'n/a'."""
    findings = rep.get("findings", [])
    ids = [f["id"] for f in findings]
    by_id = {f["id"]: f for f in findings}
    if gate == "clean":
        loud = [f["id"] for f in findings if f["severity"] != "low"]
        return ("miss" if loud else "pass"), "findings above low: %s" % (loud or "none")
    want = [FINDING[c] for c in causes_by_saving(entry)]
    if gate == "top":
        got = ids[:len(want)]
        return ("pass" if got == want else "miss"), "want %s, report ranks %s" % (want, ids)
    if not entry.get("saving_ms") or entry["saving_ms"] <= 0 or \
            (entry.get("check") and not entry["check"].get("ok") and "per_cause" not in entry):
        return "n/a", "truth: the fixed twin is not measurably faster"
    if min(entry["bad"].get("n_ok", 0), entry["fixed"].get("n_ok", 0)) < MIN_RUNS:
        return "n/a", "truth: fewer than %d good runs of bad or fixed" % MIN_RUNS
    spread = truth_spread_pct(entry.get("bad"))
    main = want[0]
    f = by_id.get(main)
    truth_ms = entry["saving_ms"] if len(want) == 1 else \
        entry["per_cause"][causes_by_saving(entry)[0]]["saving_ms"]
    bad_ms = entry["bad"]["median_ms"]
    if gate == "share":
        truth_pct = 100.0 * truth_ms / bad_ms
        if spread is not None and spread > 2 * SHARE_PP:
            return "n/a", "truth too noisy: bad runs spread %.0f %% of the median" % spread
        got = f["saving_pct"] if f else 0.0
        ok = abs(got - truth_pct) <= SHARE_PP
        return ("pass" if ok else "miss"), "%s share %.1f %% vs truth %.1f %%" % (main, got,
                                                                                truth_pct)
    half_ms = (entry["bad"]["p90"] - entry["bad"]["p10"]) / 2
    if half_ms > SAVING_REL * truth_ms:
        return "n/a", "truth too noisy: bad runs +-%.2f ms around the median, tolerance %.2f ms" % (
            half_ms, SAVING_REL * truth_ms)
    got = f["saving_ms_per_step"] if f else 0.0
    ok = abs(got - truth_ms) <= SAVING_REL * truth_ms
    return ("pass" if ok else "miss"), "%s saving %.2f ms vs truth %.2f ms (%+.0f %%)" % (
        main, got, truth_ms, 100.0 * (got - truth_ms) / truth_ms)


def load(fixtures):
    with open(os.path.join(fixtures, "truth.json")) as f:
        return {e["case"]: e for e in json.load(f) if "bad" in e}


def one_gate(stepscope, fixtures, spec, expect_miss=False):
    case, _, gate = spec.partition(":")
    entry = load(fixtures).get(case)
    if entry is None or gate not in gates_of(entry):
        print("no such gate: %s" % spec)
        return 2
    trace = trace_of(fixtures, entry["bad"]["config"])
    if trace is None:
        why = stale_reason(fixtures, entry["bad"]["config"])
        print("n/a: %s" % ("stale trace of %s: %s" % (entry["bad"]["config"], why) if why
                           else "no trace of %s" % entry["bad"]["config"]))
        return N_A
    status, detail = judge(entry, report(stepscope, trace), gate)
    return gatelib.verdict(spec, status, detail, expect_miss, "ACCURACY_PASS")


def table(stepscope, fixtures):
    rows = []
    for case, entry in load(fixtures).items():
        trace = trace_of(fixtures, entry["bad"]["config"])
        rep = report(stepscope, trace) if trace else None
        for gate in gates_of(entry):
            why = stale_reason(fixtures, entry["bad"]["config"])
            status, detail = judge(entry, rep, gate) if rep else (
                "n/a", "stale trace: " + why if why else "no trace")
            rows.append((case, gate, status, detail))
    print("| case | gate | result | detail |\n|---|---|---|---|")
    for r in rows:
        print("| %s | %s | %s | %s |" % r)
    return 0


if __name__ == "__main__":
    sys.exit(gatelib.main(sys.argv[1:], one_gate, table, __doc__))
