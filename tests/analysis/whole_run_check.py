#!/usr/bin/env python3
"""The whole run on real H100 recordings (issue #43): each planted slowdown found, priced
against the plain twins' truth and located; each fixed twin gets no such finding.
Usage: whole_run_check.py STEPSCOPE FIXTURE_DIR (tests/fixtures/h100-1206/whole)"""
import json
import os
import subprocess
import sys

ss, fx = sys.argv[1], sys.argv[2]
truth = json.load(open(os.path.join(fx, "truth.json")))["recordings"]
bad = []


def run_of(name):
    out = subprocess.run([ss, "report", "--format", "json", os.path.join(fx, name + ".sstrace")],
                         check=True, capture_output=True, text=True).stdout
    doc = json.loads(out)
    return (doc[0] if isinstance(doc, list) else doc).get("run")


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        bad.append(what)


def sets(run, cause):
    return [s for s in run["stalls"] if s["cause"] == cause] if run else []


def priced(price, name, within):
    """The price against the truth of each round (ms over the run): within a share of both."""
    t = truth["whole/%s.sstrace" % name]["truth_ms"]
    err = [price / x - 1 for x in t]
    check(all(abs(e) <= within for e in err),
          "%s: priced %.0f ms, truth %s: errors %s (<= %d %%)"
          % (name, price, t, ["%+.0f %%" % (100 * e) for e in err], 100 * within))


run = run_of("save-bad")
save = sets(run, "checkpoint")
check(len(save) == 1 and save[0]["every_steps"] == 200 and save[0]["count"] == 6,
      "save-bad: one checkpoint set every 200 steps, 6 of them")
check(save and save[0]["where"] and save[0]["where"]["line"] == 119 and
      save[0]["library_frame"]["file"].endswith("torch/serialization.py"),
      "save-bad: at whole_run.py:119, in torch/serialization.py")
if save:
    priced(save[0]["extra_ms"], "save-bad", 0.15)
check(not sets(run_of("save-fixed"), "checkpoint"), "save-fixed: no checkpoint set")

run = run_of("epochs-bad")
ep = sets(run, "epoch")
check(len(ep) == 1 and ep[0]["every_steps"] == 100, "epochs-bad: DataLoader restarts every 100")
# the first batch of an epoch is waited for with persistent workers too (its twin waits
# ~38 ms an epoch): the price counts that wait as the restart's, an over-price said in
# docs/performance.md
if ep:
    priced(ep[0]["extra_ms"], "epochs-bad", 0.5)
check(not sets(run_of("save-fixed"), "epoch"), "save-fixed (persistent workers): no epoch set")

run = run_of("drift-bad")
d = run and run["drift"]
check(bool(d) and d["change"] > 0.2 and d["where"] and d["where"]["function"].endswith("add"),
      "drift-bad: drift found, at History.add")
check(d and d["where_last_ms"] - d["where_first_ms"] > 3, "drift-bad: the line grew > 3 ms a step")
# price: the recording's own host gave 4.9 and 10.8 s in two sequential rounds (too noisy to
# judge); 8 pairs run at the same time on another H100 host are the truth, as a share of the
# bad run's time (the two hosts run the plant's Python loop at different speeds)
if d:
    pairs = truth["whole/drift-bad.sstrace"]["truth_pairs"]["pairs"]
    share = sum(p["share_of_bad_run"] for p in pairs) / len(pairs)
    err = d["share_of_run"] / share - 1
    check(abs(err) <= 0.25, "drift-bad: priced %.1f %% of the run, truth %.1f %% (%d pairs): "
          "%+.0f %% (<= 25 %%)" % (100 * d["share_of_run"], 100 * share, len(pairs), 100 * err))
run = run_of("drift-fixed")
check(run is None or run["drift"] is None, "drift-fixed: no drift")
sys.exit(1 if bad else 0)
