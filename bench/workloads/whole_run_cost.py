#!/usr/bin/env python3
"""Ratios of whole_run_gpu.sh COST=1's runs (issue #43): each recorded run against the plain
runs just before and after it in the order they ran (the host drifts over minutes; a run's
neighbours cancel most of it), per configuration the median and range. Also the ratios of the
steps after the GPU window alone (steps 200-2999, medians).

    python3 bench/workloads/whole_run_cost.py DIR [--order fixed|rotated] [--cfgs plain,rec]

--order fixed reads runs made plain, rec, hsoff in every round (before the rotation); --cfgs
the configurations the runs rotated through (whole_run_gpu.sh's CFGS; default all three).
"""
import argparse
import glob
import json
import os
import re
import statistics as st

CFGS = ("plain", "rec", "hsoff")


def load(folder):
    runs = {}
    for path in glob.glob(os.path.join(folder, "cost-*-r*.json")):
        m = re.match(r"cost-(\w+)-r(\d+)\.json$", os.path.basename(path))
        try:
            d = json.load(open(path))
        except (OSError, ValueError):
            continue  # a run cut short
        runs[(m.group(1), int(m.group(2)))] = d
    return runs


def run_order(runs, rotated, cfgs=CFGS):
    order, n = [], len(cfgs)
    for r in sorted({k[1] for k in runs}):
        for k in range(n):
            cfg = cfgs[(r - 1 + k) % n] if rotated else cfgs[k]
            if (cfg, r) in runs:
                order.append((cfg, r))
    return order


def figures(d):
    late = d["step_ms_each"][200:]
    return d["ms_per_step"], st.median(late) if late else d["ms_per_step"]


def neighbour_ratios(runs, order, cfg):
    out = []
    for i, key in enumerate(order):
        if key[0] != cfg:
            continue
        plain = [order[j] for j in (i - 1, i + 1, i - 2, i + 2)
                 if 0 <= j < len(order) and order[j][0] == "plain"][:2]
        if not plain:
            continue
        mine = figures(runs[key])
        base = [figures(runs[p]) for p in plain]
        out.append(tuple(mine[k] / st.mean(b[k] for b in base) for k in range(2)))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("folder")
    ap.add_argument("--order", choices=("fixed", "rotated"), default="rotated")
    ap.add_argument("--cfgs", default=",".join(CFGS))
    a = ap.parse_args()
    cfgs = tuple(a.cfgs.split(","))
    runs = load(a.folder)
    order = run_order(runs, a.order == "rotated", cfgs)
    for key in order:
        whole, late = figures(runs[key])
        print("%-6s r%d  %.3f ms/step  (steps 200-: median %.3f)" % (key[0], key[1], whole, late))
    for cfg in cfgs[1:]:
        rat = neighbour_ratios(runs, order, cfg)
        if rat:
            w, l = [x[0] for x in rat], [x[1] for x in rat]
            print("%-6s vs neighbouring plain runs: whole %.3fx (%.3f..%.3f), after the window "
                  "%.3fx (%.3f..%.3f), %d runs" % (cfg, st.median(w), min(w), max(w),
                                                   st.median(l), min(l), max(l), len(rat)))


if __name__ == "__main__":
    main()
