#!/usr/bin/env python3
"""accuracy.py's truth and its uncertainty on made-up entries: a truth that kept its
repetitions is judged on the mean of its paired savings and that mean's 95 % interval (more
repetitions narrow it); an older one on its bad runs' spread; a re-measured folder replaces a
case only where it holds the case's bad trace. Exits 0 when every check holds."""
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import accuracy as A  # noqa: E402


def side(runs, reps=None, config="x"):
    out = {"config": config, "runs": runs, "n_ok": len(runs), "p10": min(runs), "p90": max(runs),
           "median_ms": sorted(runs)[len(runs) // 2]}
    if reps is not None:
        out["reps"] = reps
    return out


def near(a, b, tol=1e-6):
    return abs(a - b) <= tol


def check_paired():
    # bad 20, 22, 18, 24 ms against fixed 10, 12, 9, 13: paired savings 10, 10, 9, 11
    e = {"planted": ["launch"], "saving_ms": 10.0,
         "bad": side([20, 22, 18, 24], [1, 2, 3, 4]), "fixed": side([10, 12, 9, 13], [1, 2, 3, 4])}
    t = A.truth_of(e)
    half = 3.182 * (2.0 / 3) ** 0.5 / 2  # t(3) x sd(10,10,9,11) / sqrt(4)
    assert near(t["ms"], 10.0) and near(t["half_ms"], half), t
    assert "4 paired" in t["basis"], t
    # the spread of the bad runs (18..24) is far wider than the paired interval
    assert (e["bad"]["p90"] - e["bad"]["p10"]) / 2 > 2 * t["half_ms"]
    rep = {"findings": [{"id": "launch_bound", "saving_ms_per_step": 11.5, "saving_pct": 52.0,
                         "severity": "high"}]}
    assert A.judge(e, rep, "saving")[0] == "pass"
    rep["findings"][0]["saving_ms_per_step"] = 12.5  # +25 %
    assert A.judge(e, rep, "saving")[0] == "miss"
    # a rep that only one side ran is not a pair
    e["fixed"] = side([10, 12, 9], [1, 2, 3])
    assert A.pairs_of(e) == [(20, 10), (22, 12), (18, 9)]
    assert "spread" in A.truth_of(e)["basis"]  # 3 pairs: below MIN_PAIRS


def check_noisy():
    e = {"planted": ["launch"], "saving_ms": 5.0,
         "bad": side([10, 20, 12, 18], [1, 2, 3, 4]), "fixed": side([9, 11, 10, 10], [1, 2, 3, 4])}
    rep = {"findings": [{"id": "launch_bound", "saving_ms_per_step": 5.0, "saving_pct": 33.0,
                         "severity": "high"}]}
    status, detail = A.judge(e, rep, "saving")
    assert status == "n/a" and "paired" in detail, detail


def check_combo():
    e = {"planted": ["pageable", "cpu_tensors"], "saving_ms": 30.0,
         "bad": side([40, 44, 42, 46], [1, 2, 3, 4]), "fixed": side([5, 5, 5, 5], [1, 2, 3, 4]),
         "per_cause": {"pageable": {"saving_ms": 20.0, "runs": [20, 24, 22, 26], "reps": [1, 2, 3, 4]},
                       "cpu_tensors": {"saving_ms": 8.0, "runs": [32, 36, 34, 38], "reps": [1, 2, 3, 4]}}}
    t = A.truth_of(e)
    assert near(t["ms"], 20.0) and near(t["half_ms"], 0.0), t


def check_remeasured():
    with tempfile.TemporaryDirectory() as d:
        old = {"case": "launch", "planted": ["launch"], "bad": side([1, 2, 3], config="mlp-launch")}
        new = dict(old, bad=side([4, 5, 6], [1, 2, 3], config="mlp-launch"))
        other = {"case": "sync", "planted": ["sync"], "bad": side([7, 8, 9], [1, 2, 3], config="mlp-sync")}
        with open(os.path.join(d, "truth.json"), "w") as f:
            json.dump([old], f)
        r = os.path.join(d, "remeasured", "h200-1207")
        os.makedirs(os.path.join(r, "record", "mlp-launch"))
        with open(os.path.join(r, "truth.json"), "w") as f:
            json.dump([new, other], f)
        open(os.path.join(r, "record", "mlp-launch", "mlp-launch-1.sstrace"), "w").close()
        cases = A.load(d)
        assert cases["launch"]["bad"]["runs"] == [4, 5, 6] and cases["launch"]["fixtures"] == r
        assert "sync" not in cases  # no trace of mlp-sync there: not a judged re-measurement


for fn in (check_paired, check_noisy, check_combo, check_remeasured):
    fn()
    print("ok", fn.__name__)
