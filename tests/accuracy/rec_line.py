#!/usr/bin/env python3
"""Checks the report's `recording` line of the default `--capture auto` on real H200 runs.

tests/fixtures/h200-1204/overhead/truth.json lists runs recorded on the H200 (the auto window
opens at step 8, so the cost is measured in the trace against steps 3-7) with the plain runs of
the same program timed in the same round, interleaved (bench/overhead/run_overhead.py). The
recorded steps' median less the stated cost must be within --tolerance of the plain median
(issue #27: 15 %), on the basis `measured` with at least 4 unrecorded steps (the analysis's minimum: steps 4-7 of a program that marks no step 0). Rows marked not
judged are printed with their error (a known miss: see their why_not_judged).

    python3 tests/accuracy/rec_line.py build/stepscope tests/fixtures/h200-1204/overhead
"""
import argparse
import json
import os
import statistics
import sys

from gatelib import report


def judge(stepscope, folder, row, tolerance):
    """(ok, line) for one row of the truth."""
    j = report(stepscope, os.path.join(folder, row["trace"]))
    rec = j["recording_cost"]
    plain = statistics.median(row["plain_runs"])
    err = (j["steps"]["median_ms"] - rec["ms_per_step"]) / plain - 1
    basis_ok = rec["basis"] == "measured" and rec.get("baseline_steps", 0) >= 4
    ok = basis_ok and abs(err) <= tolerance
    line = "%s (%s host): stated %.2f ms/step (%s, %d unrecorded steps), recorded median %.2f, " \
           "plain %.2f: %+.1f %%" % (row["trace"], row["host"], rec["ms_per_step"], rec["basis"],
                                    rec.get("baseline_steps", 0), j["steps"]["median_ms"],
                                    plain, 100 * err)
    return ok, line


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("stepscope")
    ap.add_argument("folder")
    ap.add_argument("--tolerance", type=float, default=0.15)
    args = ap.parse_args()
    with open(os.path.join(args.folder, "truth.json")) as f:
        rows = json.load(f)
    failed = 0
    for row in rows:
        ok, line = judge(args.stepscope, args.folder, row, args.tolerance)
        if not row["judged"]:
            print("not judged: %s (%s)" % (line, row["why_not_judged"]))
            continue
        print("%s: %s" % ("pass" if ok else "FAIL", line))
        failed += not ok
    judged = sum(1 for r in rows if r["judged"])
    print("rec_line: %d of %d judged runs within %.0f %% on a measured basis"
          % (judged - failed, judged, 100 * args.tolerance))
    return 1 if failed or not judged else 0


if __name__ == "__main__":
    sys.exit(main())
