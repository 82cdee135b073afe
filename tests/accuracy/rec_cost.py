#!/usr/bin/env python3
"""Checks the report's estimate of stepscope's own recording cost against the ground truth.

Every configuration of tests/fixtures/workloads/truth.json was timed plain on the H200 (median
ms/step over >= 3 processes) and recorded once (traces/CONFIG.sstrace). The recorded steps are
longer than plain by the collector's cost; `stepscope report --format json` estimates that cost
(recording_cost.ms_per_step: launches/step x the per-launch cost calibrated for the mode, at
most the idle time in short gaps). Recorded mean - estimate should then be close to plain.

--check passes when, over the configurations whose plain runs spread less than --max-spread
(p10..p90 width / median: data-loading cases move by 20-30 % between processes, so they
cannot judge a few ms), the median absolute error of the corrected step is at most --tolerance
and smaller than that of the recorded step itself.

    python3 tests/accuracy/rec_cost.py build/stepscope tests/fixtures/workloads [--check]
"""
import argparse
import json
import os
import statistics
import sys

from gatelib import report


def rows(stepscope, fixtures, max_spread):
    with open(os.path.join(fixtures, "truth.json")) as f:
        truth = json.load(f)
    seen = set()
    for case in truth:
        for side in ("bad", "fixed"):
            t = case[side]
            cfg = t["config"]
            trace = os.path.join(fixtures, "traces", cfg + ".sstrace")
            if cfg in seen or not os.path.exists(trace) or t.get("n_ok", 0) < 3:
                continue
            seen.add(cfg)
            j = report(stepscope, trace)
            mean, cost = j["steps"]["mean_ms"], j["recording_cost"]["ms_per_step"]
            plain = t["median_ms"]
            spread = (t["p90"] - t["p10"]) / plain
            yield {"config": cfg, "recorded": mean, "cost": cost, "corrected": mean - cost,
                   "plain": plain, "spread": spread, "judged": spread < max_spread,
                   "err_before": mean / plain - 1, "err_after": (mean - cost) / plain - 1}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("stepscope")
    ap.add_argument("fixtures")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--max-spread", type=float, default=0.25)
    ap.add_argument("--tolerance", type=float, default=0.10)
    args = ap.parse_args()
    got = list(rows(args.stepscope, args.fixtures, args.max_spread))
    print("| config | recorded ms/step | recording cost | corrected | plain (spread) | "
          "error recorded | error corrected |")
    print("|---|---|---|---|---|---|---|")
    for r in got:
        print("| %s%s | %.2f | %.2f | %.2f | %.2f (%.0f %%) | %+.0f %% | %+.0f %% |" % (
            r["config"], "" if r["judged"] else " (not judged)", r["recorded"], r["cost"],
            r["corrected"], r["plain"], 100 * r["spread"], 100 * r["err_before"],
            100 * r["err_after"]))
    judged = [r for r in got if r["judged"]]
    if len(judged) < 5:
        print("rec_cost: only %d configurations can judge" % len(judged))
        return 77 if args.check else 0
    before = statistics.median(abs(r["err_before"]) for r in judged)
    after = statistics.median(abs(r["err_after"]) for r in judged)
    print("median |error| over %d judged configurations: recorded %.1f %%, corrected %.1f %%"
          % (len(judged), 100 * before, 100 * after))
    if args.check and not (after <= args.tolerance and after < before):
        print("rec_cost: FAIL: the corrected step should be within %.0f %% of plain (median) "
              "and closer than the recorded one" % (100 * args.tolerance))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
