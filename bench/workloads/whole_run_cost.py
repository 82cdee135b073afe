#!/usr/bin/env python3
"""Ratios of whole_run_gpu.sh COST=1's runs (issue #43): each recorded run against the plain
runs just before and after it in the order they ran (the host drifts over minutes; a run's
neighbours cancel most of it), per configuration the median and range. Also the ratios of the
steps after the GPU window alone (steps 200-2999, medians).

    python3 bench/workloads/whole_run_cost.py DIR [--order fixed|rotated] [--cfgs plain,rec]
    python3 bench/workloads/whole_run_cost.py DIR --pairs plain,rec

--pairs A,B reads whole_run_gpu.sh PAIR="A B"'s runs (the two run at the same time): per pair
B's ms/step over A's, whole and after the window, and B's whole-run time less A's; median,
range and the mean's 95 % interval over the pairs.

--order fixed reads runs made plain, rec, hsoff in every round (before the rotation); --cfgs
the configurations the runs rotated through (whole_run_gpu.sh's CFGS; default all three).
"""
import argparse
import glob
import json
import os
import re
import statistics as st
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "zoo"))
import zoo as Z  # noqa: E402  (zoo.mean_interval)

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


def summary(values, fmt):
    """median (range); mean +- the 95 % half-interval of the mean (Student's t)."""
    n = len(values)
    m, half = Z.mean_interval(values) if n > 1 else (values[0], float("nan"))
    return ("%s (%s..%s); mean %s +- %s, %d pairs" % tuple(
        [fmt % x for x in (st.median(values), min(values), max(values), m, half)] + [n]))


def pairs(folder, a, b):
    """[(round, A's result, B's result)] of the pair runs both of whose results are there."""
    out = []
    for path in sorted(glob.glob(os.path.join(folder, "pair-%s-r*.json" % a))):
        r = int(re.search(r"-r(\d+)\.json$", path).group(1))
        try:
            out.append((r, json.load(open(path)),
                        json.load(open(os.path.join(folder, "pair-%s-r%d.json" % (b, r))))))
        except (OSError, ValueError):
            continue  # a run cut short, or its twin missing
    return sorted(out, key=lambda x: x[0])


def print_pairs(folder, a, b):
    got = pairs(folder, a, b)
    whole, late, diff = [], [], []
    for r, da, db in got:
        wa, la = figures(da)
        wb, lb = figures(db)
        whole.append(wb / wa)
        late.append(lb / la)
        diff.append((sum(db["step_ms_each"]) - sum(da["step_ms_each"])) / 1000)
        print("r%-2d %s %.3f  %s %.3f ms/step  ratio %.4f  after the window %.4f  %+.2f s"
              % (r, a, wa, b, wb, whole[-1], late[-1], diff[-1]))
    if len(got) < 2:
        print("fewer than 2 pairs: nothing to summarise")
        return
    print("%s / %s, whole run: %s" % (b, a, summary(whole, "%.3fx")))
    print("%s / %s, after the window (steps 200-, medians): %s" % (b, a, summary(late, "%.3fx")))
    print("%s - %s, whole-run time: %s" % (b, a, summary(diff, "%.2f s")))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("folder")
    ap.add_argument("--order", choices=("fixed", "rotated"), default="rotated")
    ap.add_argument("--cfgs", default=",".join(CFGS))
    ap.add_argument("--pairs", metavar="A,B", help="PAIR runs: B against A, pair by pair")
    a = ap.parse_args()
    if a.pairs:
        print_pairs(a.folder, *a.pairs.split(",", 1))
        return
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
