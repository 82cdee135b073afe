#!/usr/bin/env python3
"""Accuracy gates of where the host time goes (issue #20) on the planted host-time programs.

Reads the truth measured on the H200 (tests/fixtures/h200-1201/truth-host.json:
per plant the file, function and line of the planted code, the GPU-idle category it should land
in, and the measured bad->fixed saving over 3 repetitions) and runs `stepscope report --format
json` on the recordings of each program, bad and fixed (tests/fixtures/h200-1201/core/
host_<plant>-{bad,fixed}/). Gates per plant:

  top      the first hotspot of the plant's category ("host_hotspots"[category][0]) is in the
           planted function (function and file name)
  line     ... and on the planted line
  saving   the planted function's ms/step (its hotspots, every line, in the plant's category
           and its also_categories: all the GPU-idle time removing it gives back) within +-20 %
           of the measured saving
  fixed    the fixed twin's report has hotspots and names the planted function nowhere (hotspots,
           findings)

and two on the held-out fixture tests/fixtures/h200-1201/samples/cnn-samples.sstrace (a CNN
with DataLoader workers running a planted slow collate, not used to design the attribution):

  heldout_idle     the samples' GPU-idle time per step within +-20 % of the timeline's
  heldout_workers  the collate that runs in the worker processes is not blamed on the training
                   thread (its data category is tiny: the workers keep up)

    host_accuracy.py STEPSCOPE ROOT --gate PLANT:GATE       # exit 0 pass, 1 miss, 77 n/a
    host_accuracy.py STEPSCOPE ROOT --known-miss PLANT:GATE # 0 while it misses, 1 once it passes
    host_accuracy.py STEPSCOPE ROOT --table                 # every gate, as a table

ROOT is the source tree. A gate is n/a (exit 77, ctest skips it visibly) when the truth cannot
judge it: the saving's own spread over the repetitions (half of max - min) is larger than the
tolerance, as in accuracy.py.
"""
import json
import os
import sys

import gatelib
from gatelib import report

SAVING_REL = 0.20
TRUTH = "tests/fixtures/h200-1201/truth-host.json"
CORE = "tests/fixtures/h200-1204/host"  # recorded with the native frame reader (issue #28)
HELDOUT = "tests/fixtures/h200-1201/samples/cnn-samples.sstrace"
PLANT_GATES = ("top", "line", "saving", "fixed")
HELDOUT_GATES = ("heldout:idle", "heldout:workers")


def trace_of(root, program, variant):
    folder = os.path.join(root, CORE, "%s-%s" % (program, variant))
    names = sorted(n for n in os.listdir(folder) if n.endswith(".sstrace"))
    return os.path.join(folder, names[0])


def is_plant(h, truth):
    return h["function"] == truth["function"] and \
        os.path.basename(h["file"]) == os.path.basename(truth["file"])


def plant_ms(rep, truth):
    cats = [truth["category"]] + truth.get("also_categories", [])
    hot = rep.get("host_hotspots", {})
    return sum(h["ms_per_step"] for c in cats for h in hot.get(c, []) if is_plant(h, truth))


def names_plant(rep, truth):
    hot = [h for hs in rep.get("host_hotspots", {}).values() for h in hs]
    hot += [h for f in rep.get("findings", []) for h in f.get("host_hotspots", [])]
    return any(is_plant(h, truth) for h in hot) or \
        any(truth["function"] in f["evidence"] + f["fix"] for f in rep.get("findings", []))


def judge_plant(truth, bad, fixed, gate):
    """(status, detail) of one gate: status 'pass', 'miss' or 'n/a'."""
    top = (bad.get("host_hotspots", {}).get(truth["category"]) or [None])[0]
    where = "%s:%s" % (top["function"], top["line"]) if top else "nothing"
    if gate == "top":
        ok = top is not None and is_plant(top, truth)
        return ("pass" if ok else "miss"), "%s first: %s (planted %s)" % (
            truth["category"], where, truth["function"])
    if gate == "line":
        ok = top is not None and is_plant(top, truth) and top["line"] == truth["line"]
        return ("pass" if ok else "miss"), "%s first: %s (planted line %d)" % (
            truth["category"], where, truth["line"])
    if gate == "fixed":
        if not fixed.get("host_hotspots"):
            return "miss", "the fixed twin's report has no hotspots: nothing was judged"
        named = names_plant(fixed, truth)
        return ("miss" if named else "pass"), "fixed twin names %s: %s" % (
            truth["function"], "yes" if named else "no")
    want = truth["saving_ms"]
    spread = (truth["saving_max_ms"] - truth["saving_min_ms"]) / 2
    got = plant_ms(bad, truth)
    detail = "%s %.2f ms/step vs measured %.2f (%+.0f %%; saving over the reps %.2f..%.2f)" % (
        truth["function"], got, want, 100.0 * (got - want) / want, truth["saving_min_ms"],
        truth["saving_max_ms"])
    if spread > SAVING_REL * want:
        return "n/a", "truth too noisy: " + detail
    return ("pass" if abs(got - want) <= SAVING_REL * want else "miss"), detail


def judge_heldout(rep, gate):
    if gate == "heldout:idle":
        idle = sum(c["ms_per_step"] for c in rep["categories"] if not c["gpu_busy"])
        got = rep["host_samples"]["gpu_idle_ms_per_step"]
        ok = abs(got - idle) <= SAVING_REL * idle
        return ("pass" if ok else "miss"), "sampled GPU idle %.2f ms/step vs timeline %.2f" % (
            got, idle)
    hot = [h for hs in rep.get("host_hotspots", {}).values() for h in hs]
    if not hot:
        return "miss", "no hotspots: nothing was judged"
    named = [h["function"] for h in hot if h["function"] == "slow_collate"]
    return ("miss" if named else "pass"), "slow_collate (in the workers) named: %s" % (
        "yes" if named else "no")


def load_truth(root):
    with open(os.path.join(root, TRUTH)) as f:
        return {t["plant"]: t for t in json.load(f)}


def one(stepscope, root, spec, cache):
    if spec.startswith("heldout:"):
        if spec not in HELDOUT_GATES:
            return None
        key = "heldout"
        if key not in cache:
            cache[key] = report(stepscope, os.path.join(root, HELDOUT))
        return judge_heldout(cache[key], spec)
    plant, _, gate = spec.partition(":")
    truth = load_truth(root).get(plant)
    if truth is None or gate not in PLANT_GATES:
        return None
    for variant in ("bad", "fixed"):
        if (plant, variant) not in cache:
            cache[(plant, variant)] = report(stepscope, trace_of(root, truth["program"], variant))
    return judge_plant(truth, cache[(plant, "bad")], cache[(plant, "fixed")], gate)


def main(argv):
    if len(argv) == 3 and argv[2] == "--table":
        cache = {}
        print("| plant | gate | result | detail |\n|---|---|---|---|")
        specs = ["%s:%s" % (p, g) for p in sorted(load_truth(argv[1])) for g in PLANT_GATES]
        for spec in specs + list(HELDOUT_GATES):
            status, detail = one(argv[0], argv[1], spec, cache)
            print("| %s | %s | %s | %s |" % (spec.split(":")[0], spec.split(":")[1], status,
                                             detail))
        return 0
    if len(argv) != 4 or argv[2] not in ("--gate", "--known-miss"):
        sys.stderr.write(__doc__)
        return 2
    res = one(argv[0], argv[1], argv[3], {})
    if res is None:
        print("no such gate: %s" % argv[3])
        return 2
    return gatelib.verdict(argv[3], *res, argv[2] == "--known-miss", "HOST_ACCURACY_PASS")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
