#!/usr/bin/env python3
"""The zoo's own logic without GPU data (ctest bench.zoo_judge): the table (bench/zoo/zoo.py)
and the judge (bench/zoo/judge.py) on small synthetic truth files over two committed H200
traces (tests/fixtures/h200-dataloader-w0.sstrace: data_loading [high], its fix
`DataLoader(num_workers=6, ...)`, and low_utilisation; -w8: its fixed twin).

    test_judge.py STEPSCOPE

Each case writes a fixture folder as run_zoo.py would (truth/NAME.json, traces/), with the
fixes planned by run_zoo.plan_fixes from the report of the current code, and plain runs made
up to put the measured saving where the case needs it; the judge must pass the good case and
fail each bad one for its own reason.
"""
import argparse
import copy
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bench", "zoo"))
import zoo as Z  # noqa: E402
import run_zoo as R  # noqa: E402
import judge as J  # noqa: E402

FIX = os.path.join(ROOT, "tests", "fixtures")
JUDGE = os.path.join(ROOT, "bench", "zoo", "judge.py")
NAME = "plain_cnn_bn_w6"  # a judge-split program with --workers and --pin
failed, passed = [], []


def check(ok, what):
    print("%s: %s" % ("ok" if ok else "FAIL", what))
    (passed if ok else failed).append(what)


def runs(tag, values, se=0.1):
    return [{"tag": "%s-r%d" % (tag, i + 1), "status": "ok", "ms_per_step": v,
             "step_se_ms": se} for i, v in enumerate(values)]


def base_truth(stepscope):
    """A truth as run_zoo.run_program writes it, before its timed runs."""
    program = Z.BY_NAME[NAME]
    rep = R.report(stepscope, os.path.join(FIX, "h200-dataloader-w0.sstrace"))
    found = R.findings_of(rep)
    fixes, variants = R.plan_fixes(program, found)
    return {"program": NAME, "family": program.family, "split": program.split,
            "argv": program.argv, "plants": [], "findings": found, "fixes": fixes,
            "variants": {v: list(k) for k, v in variants.items()},
            "all_fixed_flags": R.all_fixed_flags(fixes),
            "record_before": {"trace": "traces/%s-before.sstrace" % NAME},
            "record_fixed": {"trace": "traces/%s-fixed.sstrace" % NAME}}


def write_case(root, case, truth, fixed_trace="h200-dataloader-w8.sstrace"):
    fx = os.path.join(root, case)
    os.makedirs(os.path.join(fx, "truth"))
    os.makedirs(os.path.join(fx, "traces"))
    shutil.copyfile(os.path.join(FIX, "h200-dataloader-w0.sstrace"),
                    os.path.join(fx, "traces", "%s-before.sstrace" % NAME))
    shutil.copyfile(os.path.join(FIX, fixed_trace),
                    os.path.join(fx, "traces", "%s-fixed.sstrace" % NAME))
    with open(os.path.join(fx, "truth", NAME + ".json"), "w") as f:
        json.dump(truth, f)
    return fx


def judge(stepscope, fx, *opts):
    p = subprocess.run([sys.executable, JUDGE, stepscope, fx] + list(opts),
                       capture_output=True, text=True, timeout=300)
    return p.returncode, p.stdout + p.stderr


def judged(stepscope, fx):
    rc, out = judge(stepscope, fx, "--json")
    return json.loads(out.splitlines()[0]) if rc == 0 else {"error": out}


def with_runs(truth, before, after, extra=None):
    t = copy.deepcopy(truth)
    t["runs"] = {"before": runs("before", before), "F1": runs("F1", after)}
    t["runs"].update(extra or {})
    return t


def data_row(p):
    return next(r for r in p["rows"] if r["id"] == "data_loading")


def check_cohort_append_only(rule):
    """A later cohort (here three programs in families old and new) moves no earlier split,
    and is itself split by the rule: one family's two new programs go to different halves."""
    later = [Z.Program(n, f, "mlp.py", [], "?", cohort=max(p.cohort for p in Z.PROGRAMS) + 1)
             for n, f in (("new_tv_a", "tv"), ("new_tv_b", "tv"), ("new_fam", "zz"))]
    grown = Z.split_rule(Z.PROGRAMS + later)
    check(all(grown[n] == s for n, s in rule.items()), "a new cohort moves no earlier program")
    check(grown["new_tv_a"] != grown["new_tv_b"], "a new cohort is split by the rule too")
    mixed = Z.split_rule([Z.Program(p.name, p.family, p.script, [], p.split)
                          for p in Z.PROGRAMS] + [Z.Program("new_tv_a", "tv", "mlp.py", [], "?")])
    check(any(mixed[n] != s for n, s in rule.items()),
          "the same program in cohort 1 would move others (why cohorts exist)")


def test_paired_saving():
    """Four rounds on a host drifting 2 ms a round: unpaired, the range says 2 +- 4.2 (too
    noisy); the rounds' paired differences say 2 +- the runs' own error."""
    before, after = [10.0, 12.0, 14.0, 16.0], [8.0, 10.0, 12.0, 14.0]
    m = Z.measured_saving(runs("before", before), runs("F1", after))
    check(m["saving_ms"] == 2.0 and m["unc_ms"] < 0.2 and m.get("paired_rounds") == 4,
          "4 paired rounds take the host's drift out: %s" % m)
    m2 = Z.measured_saving(runs("before", before[:2]), runs("F1", after[:2]))
    check(m2["unc_ms"] > 1.0 and "paired_rounds" not in m2, "2 rounds: the range, as before")
    lost = runs("F1", after)
    lost[1]["status"] = "failed"
    m3 = Z.measured_saving(runs("before", before), lost)
    check("paired_rounds" not in m3, "a failed run leaves 3 pairs: not paired yet")
    more = runs("before", [10.0, 10.0, 30.0, 30.0])  # rounds 3-4 ran later, F1 not in them
    m4 = Z.measured_saving(more, runs("F1", [8.0, 8.0]))
    check(m4["saving_ms"] == 2.0 and m4["before_ms"] == 10.0,
          "a variant is held to the before runs of its own rounds: %s" % m4)


def test_more_rounds(stepscope, root):
    """run_zoo --more-rounds on a truth whose fix is too noisy (a host drifting between its 2
    rounds): 4 rounds more of the before runs and that variant only, appended after round 2,
    the saving recomputed from the pairs, the rounds noted; then nothing is left to measure."""
    truth = with_runs(base_truth(stepscope), [10.0, 14.0], [8.0, 12.1])
    check(R.noisy_variants(truth) == ["F1"], "a 1.95 +- 2.9 ms saving is to re-measure")
    check(R.noisy_variants(with_runs(base_truth(stepscope), [10.0, 10.6, 10.0, 10.6],
                                     [7.0, 7.0, 7.0, 7.0])) == ["F1"],
          "a 3.3 +- 0.5 ms saving is to re-measure (a price could be judged on it only by its "
          "interval)")
    calls = []

    def fake_run(args, program, argv, tag):
        r = int(tag.rsplit("-r", 1)[1])
        calls.append(tag)
        ms = 10.0 + r if tag.startswith("before") else 8.0 + r + 0.05 * (-1) ** r
        return {"tag": tag, "status": "ok", "ms_per_step": ms, "step_se_ms": 0.01}
    args = argparse.Namespace(work=os.path.join(root, "more"), more_rounds=4, truth_from=None)
    os.makedirs(os.path.join(args.work, "truth"))
    real, R.run_plain = R.run_plain, fake_run
    try:
        out = R.more_rounds(args, Z.BY_NAME[NAME], truth)
        again = R.noisy_variants(out)
    finally:
        R.run_plain = real
    fix = next(f for f in out["fixes"] if f.get("variant") == "F1")
    check(calls[:2] == ["before-r3", "F1-r3"] and calls[-1] == "F1-r6" and len(calls) == 8,
          "rounds 3-6 of before and F1 only: %s" % calls)
    check(len(fix["after_runs"]) == 6 and fix.get("paired_rounds") == 6,
          "the saving recomputed over 6 paired rounds: %s" % fix.get("paired_rounds"))
    check(out["more_rounds"][0]["rounds"] == [3, 6] and out["more_rounds"][0]["variants"] ==
          ["F1"], "the added rounds noted in the truth")
    check(os.path.exists(os.path.join(args.work, "truth", NAME + ".json")), "truth written")
    check(again == [], "the drift taken out, nothing left to re-measure: %s" % again)
    est = R.more_rounds_est(Z.BY_NAME[NAME], dict(truth, runs={
        "before": [{"wall_s": 100.0}] * 3, "F1": [{"wall_s": 300.0}, {"wall_s": 500.0}]}), 2)
    check(est == 2 * (100 + 500) + 5, "rounds estimated from the runs' own walls: %s" % est)
    other = R.other_card("NVIDIA H200", dict(truth, card="NVIDIA H100 80GB HBM3"))
    same = R.other_card("NVIDIA H200", dict(truth, card="NVIDIA H200"))
    unknown = R.other_card("NVIDIA H200", {k: v for k, v in truth.items() if k != "card"})
    check(other and "H100" in other and same is None and unknown is None,
          "rounds of another card are not added: %s" % other)


def test_propose(stepscope, root):
    """run_zoo --propose: a fix the report proposes now that no variant measured is added as a
    variant without runs (so --more-rounds measures it) with its fix entry; a plant the table
    no longer has keeps its runs as former_plant; a second pass adds nothing."""
    truth = with_runs(base_truth(stepscope), [10.0, 10.1], [6.0, 6.1])
    truth["variants"] = {"F1": Z.merge_flags(truth["argv"], ["--workers", "3", "--pin"])}
    truth["fixes"] = [dict(f, flags=["--workers", "3", "--pin"]) if f.get("variant") == "F1"
                      else f for f in truth["fixes"]]
    truth["fixes"].append({"plant": "a cause the table no longer has", "finding": "x",
                           "flags": ["--pin"], "variant": "F1", "primary": True})
    fx = write_case(root, "propose", truth)
    args = argparse.Namespace(stepscope=stepscope)
    added = R.propose(args, Z.BY_NAME[NAME], truth, fx)
    new = [f for f in truth["fixes"] if f.get("proposed")]
    check(added == ["F2"] and truth["variants"]["F2"] == Z.merge_flags(
        truth["argv"], ["--workers", "6", "--pin"]), "the proposed fix added as F2: %s" % added)
    check(len(new) == 1 and new[0]["finding"] == "data_loading" and new[0]["variant"] == "F2",
          "its fix entry names the finding and the variant: %s" % new)
    check(R.noisy_variants(truth) == ["F2"], "F2 has no runs: --more-rounds measures it")
    check(any(f.get("former_plant") for f in truth["fixes"]), "the old plant kept as former")
    check(R.propose(args, Z.BY_NAME[NAME], truth, fx) == [], "a second pass adds nothing")


def test_table():
    rule = Z.split_rule(Z.PROGRAMS)
    check(all(rule[p.name] == p.split for p in Z.PROGRAMS), "the table's split is the rule's")
    check_cohort_append_only(rule)
    check(len(Z.PROGRAMS) >= 24 and len(Z.FAMILIES) >= 6, "%d programs in %d families" % (
        len(Z.PROGRAMS), len(Z.FAMILIES)))
    for fam in Z.FAMILIES:
        n = [p.split for p in Z.PROGRAMS if p.family == fam]
        check(abs(n.count("tune") - n.count("judge")) <= 1, "family %s split in halves" % fam)
    check(sum(len(p.plants) >= 2 for p in Z.PROGRAMS) >= 2, "two programs with two causes")
    check(any(not p.plants for p in Z.PROGRAMS), "healthy programs")
    bad = [(p.name, f) for p in Z.PROGRAMS for pl in p.plants for f in pl["flags"]
           if f.startswith("--") and f not in Z.SCRIPT_FLAGS[p.script]]
    check(not bad, "every plant's flags are the script's: %s" % bad)
    check(Z.fix_number("DataLoader(num_workers=12, pin_memory=True)") == 12 and
          Z.fix_number("prepare batches ahead on 5 producer threads") == 5 and
          Z.fix_number("torch.compile(model)") is None, "worker counts read from fix texts")
    check(Z.merge_flags(["--workers", "0", "--bf16"], ["--workers", "6", "--pin"]) ==
          ["--workers", "6", "--bf16", "--pin"], "merge_flags: the later value wins")
    lm = Z.BY_NAME["plain_lm_bf16"]
    mask = ("pass is_causal=True with the mask to nn.TransformerEncoder first (...), then "
            "torch.compile(model): Inductor fuses ...")
    check([c["flags"] for c in Z.fix_choices(lm, "unfused_elementwise", mask)] ==
          [["--is-causal", "--compile"], ["--compile"]] and
          Z.fix_choices(lm, "unfused_elementwise", "torch.compile(model): ...")[0]["flags"] ==
          ["--compile"], "a named alternative comes before the one taken always")
    check(Z.fix_choices(Z.BY_NAME["tv_resnet34_nchw"], "unfused_elementwise", mask)[0]["flags"]
          == ["--compile"], "a flag the script lacks is no alternative")


def test_decided_by_interval():
    """A saving too noisy for a point error (U > 10 % of S) is judged when every saving in its
    interval makes the price fail the worst gate; one that could still pass stays re-measure."""
    m = lambda s, u: {"saving_ms": s, "unc_ms": u}
    kind, err = J.verdict(0.16, m(2.37, 0.43), 8.2)
    check(kind == "error" and err < -90, "0.16 against 2.37 +- 0.43: -93 %% anywhere (%s)" % kind)
    check(J.verdict(9.0, m(2.37, 0.43), 8.2)[0] == "error", "over by 3x anywhere: judged")
    check(J.verdict(2.4, m(2.37, 0.43), 8.2)[0] == "re-measure", "could pass: re-measure")
    check(J.verdict(3.4, m(2.37, 0.43), 8.2)[0] == "re-measure",
          "+19..+73 %: the worst gate passes at one end: re-measure")
    check(J.verdict(9.0, m(4.3, 9.7), 55.0)[0] == "re-measure", "S within U of 0: never judged")
    check(J.verdict(7.26, m(-2.85, 0.67), 11.1)[0] == "hurts" and
          J.verdict(11.8, m(-85.4, 13.6), 31.2)[0] == "hurts",
          "a fix that slows the step beyond its spread hurts, however wide the spread")
    check(J.verdict(2.4, m(-1.07, 1.76), 31.2)[0] == "re-measure", "-1.07 +- 1.76: re-measure")


def test_cases(stepscope, root):
    truth = base_truth(stepscope)
    data = [f for f in truth["fixes"] if f["finding"] == "data_loading"]
    check(len(data) == 1 and data[0]["flags"] == ["--workers", "6", "--pin"] and
          data[0]["variant"] == "F1", "data_loading's fix: the report's worker count, pinned")
    # without Python samples the catch-all is a note (low): no fix is planned for it
    check(not any(f["finding"] == "low_utilisation" for f in truth["fixes"]),
          "low_utilisation without samples: a note, nothing to measure")
    program = Z.BY_NAME[truth["program"]]
    fixes, _ = R.plan_fixes(program, [{"id": "small_gemms", "rank": 1, "severity": "medium",
                                       "saving_ms_per_step": 1.0, "fix": "batch the matmuls"}])
    check(any(f["finding"] == "small_gemms" and "no_fix" in f for f in fixes),
          "a finding no flag applies: no literal fix")
    price = next(f["saving_ms_per_step"] for f in truth["findings"] if f["id"] == "data_loading")
    good = write_case(root, "good", with_runs(truth, [100.0, 100.4], [100.2 - price - 0.1,
                                                                      100.2 - price + 0.1]))
    rc, out = judge(stepscope, good, "--check")
    check(rc == 0, "a price within its measured saving passes --check (rc %d)\n%s" % (rc, out))
    row = data_row(judged(stepscope, good))
    check(row["kind"] == "error" and abs(row["err_pct"]) < 1, "the error of a good price")
    cases = [("off", [100.0, 100.4], [50.0, 50.2], "error"),
             ("nothing", [100.0, 100.4], [100.1, 100.3], "nothing"),
             ("noisy", [100.0, 140.0], [14.0, 60.0], "re-measure")]
    for case, before, after, kind in cases:
        fx = write_case(root, case, with_runs(truth, before, after))
        rc, out = judge(stepscope, fx, "--check")
        row = data_row(judged(stepscope, fx))
        check(rc == 1 and row["kind"] == kind, "%s: --check fails, the finding is %s (%s)" % (
            case, kind, row["kind"]))
    check(data_row(judged(stepscope, os.path.join(root, "nothing"))).get("high_small"),
          "a [high] finding whose fix saves nothing is under 5 %")
    test_largest_and_kept(stepscope, root, truth, price)


def test_largest_and_kept(stepscope, root, truth, price):
    t = with_runs(truth, [100.0, 100.4], [100.2 - price, 100.2 - price],
                  {"F2": runs("F2", [4.0, 4.2])})
    t["fixes"].append({"plant": "a cause no finding names", "finding": None,
                       "flags": ["--channels-last"], "primary": True, "variant": "F2"})
    t["variants"]["F2"] = Z.merge_flags(truth["argv"], ["--channels-last"])
    p = judged(stepscope, write_case(root, "missed", t))
    check(p["largest"][0] == "F2" and not p["largest_first"],
          "a larger cause no finding names: the largest is not ranked first")
    fx = write_case(root, "kept", with_runs(truth, [100.0, 100.4], [15.0, 15.2]),
                    fixed_trace="h200-dataloader-w0.sstrace")
    p = judged(stepscope, fx)
    rc, _ = judge(stepscope, fx, "--check")
    check(p["kept"] == ["data_loading"] and rc == 1, "a fixed twin that keeps the finding fails")


def main(argv):
    if len(argv) != 1:
        sys.exit("usage: test_judge.py STEPSCOPE")
    test_table()
    test_paired_saving()
    test_decided_by_interval()
    root = tempfile.mkdtemp(prefix="zoo-judge-")
    try:
        test_cases(argv[0], root)
        test_more_rounds(argv[0], root)
        test_propose(argv[0], root)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print("%d passed, %d failed" % (len(passed), len(failed)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
