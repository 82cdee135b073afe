#!/usr/bin/env python3
"""whole_run_cost.py --pairs (issue #43's cost benchmark, runs made at the same time): each
pair's ratio and difference, their median and the mean's 95 % interval, on made-up results;
a pair whose twin is missing or cut short is left out.

    test_whole_run_pairs.py
"""
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
COST = os.path.join(ROOT, "bench", "workloads", "whole_run_cost.py")


def write(folder, cfg, r, ms):
    steps = [ms] * 300
    with open(os.path.join(folder, "pair-%s-r%d.json" % (cfg, r)), "w") as f:
        json.dump({"ms_per_step": ms, "step_ms_each": steps}, f)


def main():
    bad = []
    with tempfile.TemporaryDirectory() as d:
        # plain moves 10 -> 14 ms over the rounds; rec is 2 % over its own pair each time
        for r, plain in enumerate([10.0, 11.0, 12.0, 13.0, 14.0], 1):
            write(d, "plain", r, plain)
            write(d, "rec", r, plain * (1.02 if r % 2 else 1.04))
        write(d, "plain", 6, 10.0)  # its twin never came
        with open(os.path.join(d, "pair-rec-r7.json"), "w") as f:
            f.write('{"ms_per')  # cut short
        write(d, "plain", 7, 10.0)
        out = subprocess.run([sys.executable, COST, d, "--pairs", "plain,rec"],
                             capture_output=True, text=True, timeout=60).stdout
    print(out)
    whole = next((l for l in out.splitlines() if l.startswith("rec / plain, whole run")), "")
    if "1.020x (1.020x..1.040x); mean 1.028x +- 0.014x, 5 pairs" not in whole:
        bad.append("whole-run ratio line: %r" % whole)
    if sum(l.startswith("r") and "ratio" in l for l in out.splitlines()) != 5:
        bad.append("5 pairs listed (r6 and r7 have no usable twin)")
    for b in bad:
        print("FAIL: " + b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
