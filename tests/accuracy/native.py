#!/usr/bin/env python3
"""Accuracy gates of the report on the C and C++ training programs (issue #21).

The programs (bench/workloads/c/train_cabi.c over libtorch's C ABI, bench/workloads/cxx/
train_cxx.cpp over its C++ API) were timed plain and recorded on the H200 on 2026-12-01:
tests/fixtures/h200-1201/truth-native.json (made from 066c412:bench/gpu/results/2026-12-01/extra/
truth-c/truth.json and the record-core logs: plain ms/step of each case bad and fixed, the
recorded run's own timing, the trace). Gates, per case:

  step     the report's median step of bad and of fixed within 5 % of the plain timing
  top      the first finding the fixed twin does not also have is the planted cause (a
           finding both twins share, e.g. fp32 GEMMs in every case but dtype, is not planted)
  saving   the planted finding's saving within +-20 % of the measured bad->fixed saving
  clean    the fixed twin has no finding of the planted cause above low severity
  fix      every finding's fix is in the program's language: no Python API named

    native.py STEPSCOPE FIXTURES --gate CASE:GATE        # exit 0 pass, 1 miss, 77 n/a
    native.py STEPSCOPE FIXTURES --known-miss CASE:GATE  # 0 while it misses, 1 once it passes
    native.py STEPSCOPE FIXTURES --table                 # every gate, as a Markdown table

A saving gate is n/a (exit 77) where the truth cannot judge it: half the bad runs' p10..p90
width is larger than the tolerance.
"""
import json
import os
import sys

import gatelib
from gatelib import report

FINDING = {"data": "data_loading", "copy": "pageable_h2d", "sync": "sync_points",
           "dtype": "no_mixed_precision"}
GATES = ("step", "top", "saving", "clean", "fix")
STEP_REL = 0.05
SAVING_REL = 0.20
PYTHON_WORDS = ("DataLoader", "torch.autocast", "torch.compile", ".item()", "py-spy",
                "torch.cuda.", "non_blocking=True", "torch.backends")


def planted(entry):
    return FINDING[entry["case"].split("_", 1)[1]]


def judge(entry, bad, fixed, gate):
    """(status, detail): status 'pass', 'miss' or 'n/a'."""
    want = planted(entry)
    by_id = {f["id"]: f for f in bad["findings"]}
    fixed_ids = {f["id"] for f in fixed["findings"] if f["severity"] != "low"}
    if gate == "step":
        rows = []
        ok = True
        for side, rep in (("bad", bad), ("fixed", fixed)):
            got, truth = rep["steps"]["median_ms"], entry[side]["median_ms"]
            ok &= abs(got - truth) <= STEP_REL * truth
            rows.append("%s %.2f vs %.2f plain (%+.0f %%)" % (side, got, truth,
                                                             100 * (got - truth) / truth))
        return ("pass" if ok else "miss"), "; ".join(rows)
    if gate == "top":
        own = [f["id"] for f in bad["findings"] if f["id"] not in fixed_ids]
        got = own[0] if own else None
        return ("pass" if got == want else "miss"), "want %s, first of the bad twin's own: %s" % (
            want, got)
    if gate == "clean":
        return ("miss" if want in fixed_ids else "pass"), "fixed twin's findings above low: %s" % (
            sorted(fixed_ids) or "none")
    if gate == "fix":
        bad_fix = [f["id"] for f in bad["findings"] + fixed["findings"]
                   if any(w in f["fix"] for w in PYTHON_WORDS)]
        return ("miss" if bad_fix else "pass"), "fixes naming Python APIs: %s" % (bad_fix or "none")
    truth = entry["bad"]["median_ms"] - entry["fixed"]["median_ms"]
    half = (entry["bad"]["p90"] - entry["bad"]["p10"]) / 2
    if half > SAVING_REL * truth:
        return "n/a", "truth too noisy: bad runs +-%.2f ms, tolerance %.2f ms" % (
            half, SAVING_REL * truth)
    f = by_id.get(want)
    got = f["saving_ms_per_step"] if f else 0.0
    ok = abs(got - truth) <= SAVING_REL * truth
    rec = entry["bad"].get("recorded") or {}
    note = ""
    if rec and entry["fixed"].get("recorded"):
        rtruth = rec["ms_per_step"] - entry["fixed"]["recorded"]["ms_per_step"]
        note = "; the recorded runs' own timers: %.2f ms" % rtruth
    return ("pass" if ok else "miss"), "%s saving %.2f ms vs %.2f ms measured plain (%+.0f %%)%s" % (
        want, got, truth, 100 * (got - truth) / truth, note)


def load(fixtures):
    with open(os.path.join(fixtures, "h200-1201", "truth-native.json")) as f:
        return {e["case"]: e for e in json.load(f) if "fixed" in e}


def reports(stepscope, fixtures, entry):
    base = os.path.join(fixtures, "h200-1201")
    return [report(stepscope, os.path.join(base, entry[s]["trace"])) for s in ("bad", "fixed")]


def one_gate(stepscope, fixtures, spec, expect_miss=False):
    case, _, gate = spec.partition(":")
    entry = load(fixtures).get(case)
    if entry is None or gate not in GATES:
        print("no such gate: %s" % spec)
        return 2
    status, detail = judge(entry, *reports(stepscope, fixtures, entry), gate)
    return gatelib.verdict(spec, status, detail, expect_miss, "NATIVE_PASS")


def table(stepscope, fixtures):
    print("| case | gate | result | detail |\n|---|---|---|---|")
    for case, entry in load(fixtures).items():
        reps = reports(stepscope, fixtures, entry)
        for gate in GATES:
            print("| %s | %s | %s | %s |" % ((case, gate) + judge(entry, *reps, gate)))
    return 0


if __name__ == "__main__":
    sys.exit(gatelib.main(sys.argv[1:], one_gate, table, __doc__))
