#!/usr/bin/env python3
"""The fix-truth zoo's judge (issue #40): the report of the CURRENT code on the committed zoo
recordings against the savings their fixes measured (run_zoo.py's truth files).

    judge.py STEPSCOPE ZOO_FIXTURE_DIR [--split judge|tune|all] [--check] [--json]

ZOO_FIXTURE_DIR holds truth/NAME.json and the traces they name (traces/NAME-before.sstrace,
and traces/NAME-fixed.sstrace where it was small enough to keep: else the all-fixed twin's
findings as its report gave them when recorded). Default split: judge (the held-out half; the docs quote it only).

For each finding above 'low' of the re-run report, the fix its text proposes now is looked up
among the variants the truth measured (the same flags, zoo.fix_choices): its measured saving
S +- U (zoo.measured_saving: medians of plain runs) judges the price P:

  error       100 (P - S) / S, when U <= JUDGE_PCT % of S, or when every saving in S +- U
              (S > U) puts the error beyond +-WORST_MAX %: the worst-error gate fails
              whatever the saving is within its interval ("decided by its interval")
  re-measure  S not known well enough to judge (U > JUDGE_PCT % of S, or S within U of 0
              while U > NOTHING_PCT % of the step), or the fix is not among those measured
  nothing     the fix saves nothing measurable: |S| <= U, U <= NOTHING_PCT % of the step
  hurts       the fix makes the step slower: S + U < 0 (however wide U; gated as 'nothing')
  no fix      the program has no literal way to apply the fix (counted, not gated)

and per program: a [high] finding whose fix saves < HIGH_MIN_PCT % of the step; the largest
real cause (the measured fix, of a finding or a plant, with the largest S > U) is the one the
first-ranked finding's fix applies (or the plant's expected finding is ranked first); the
all-fixed twin's report keeps none of the findings above low whose fix it applied and that
saved something real.

--evidence FILE writes each rule's held-out evidence (the judge half only) as the C table the
report quotes (src/analysis/ssa_evidence.h: programs judged, worst and median |error|, fixes
that saved nothing, findings to re-measure); --evidence-check FILE exits 1 when FILE is not what
the current code gives (a rule's price moved: write the file again and commit it).

--check exits 1 unless: mean |error| <= 15 %, worst <= 40 %, and no [high] < 5 %, no
'nothing' or 'hurts', no 're-measure', no largest cause ranked below another, no finding kept
by the fixed twin. A split with no judged finding fails --check too (nothing was shown).
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import zoo as Z  # noqa: E402

JUDGE_PCT, NOTHING_PCT, HIGH_MIN_PCT = 10.0, 3.0, 5.0
MAE_MAX, WORST_MAX = 15.0, 40.0
ABOVE_LOW = ("medium", "high")


def report(stepscope, path):
    p = subprocess.run([stepscope, "report", "--format", "json", path], capture_output=True,
                       text=True, timeout=300)
    if p.returncode != 0:
        raise SystemExit("judge.py: %s: %s" % (path, p.stderr.strip()))
    rep = json.loads(p.stdout)
    return rep[0] if isinstance(rep, list) else rep


def load(fx, split):
    tdir = os.path.join(fx, "truth")
    out = []
    for name in sorted(os.listdir(tdir)):
        with open(os.path.join(tdir, name)) as f:
            t = json.load(f)
        program = Z.BY_NAME.get(t["program"])
        if program is None or program.split != t["split"]:  # the split was decided before
            raise SystemExit("judge.py: %s: split %r, the table says %r" % (
                name, t["split"], program and program.split))
        if split == "all" or t["split"] == split:
            out.append(t)
    return out


def variant_saving(truth, name):
    runs = truth["runs"]
    return Z.measured_saving(runs["before"], runs.get(name, []))


def variant_of(truth, program, flags):
    """The measured variant whose argv the flags give, or None."""
    argv = Z.merge_flags(truth["argv"], flags)
    for name, v in truth["variants"].items():
        if v == argv:
            return name
    return None


def verdict(price, m, step):
    """(kind, error %) of a price against a measured saving m."""
    s, u = m["saving_ms"], m["unc_ms"]
    if s is None:
        return "re-measure", None
    if s + u < 0:
        return "hurts", None
    if abs(s) <= u:
        return ("nothing", None) if u <= NOTHING_PCT / 100 * step else ("re-measure", None)
    if u > JUDGE_PCT / 100 * abs(s) and not fails_anywhere(price, s, u):
        return "re-measure", None
    return "error", 100 * (price - s) / s


def fails_anywhere(price, s, u):
    """Whether the price errs by more than WORST_MAX % against every saving within s +- u (s > u):
    a truth too noisy for a point error can still show a certain failure, never a pass."""
    if s - u <= 0:
        return False
    errs = [100 * (price - x) / x for x in (s - u, s + u)]
    return min(abs(e) for e in errs) > WORST_MAX and (errs[0] > 0) == (errs[1] > 0)


def judge_finding(truth, program, f, step):
    row = {"id": f["id"], "severity": f["severity"], "rank": f["rank"],
           "price_ms": f["saving_ms_per_step"]}
    choices = Z.fix_choices(program, f["id"], f["fix"])
    if isinstance(choices, Z.NoFix):
        return dict(row, kind="no fix", why=choices.why)
    name = variant_of(truth, program, choices[0]["flags"])
    if name is None:
        return dict(row, kind="re-measure", why="fix %s not measured" % choices[0]["flags"])
    m = variant_saving(truth, name)
    kind, err = verdict(row["price_ms"], m, step)
    row.update(kind=kind, err_pct=err, variant=name, flags=choices[0]["flags"],
               saving_ms=m["saving_ms"], unc_ms=m["unc_ms"])
    if f["severity"] == "high" and kind in ("error", "nothing", "hurts") and \
            m["saving_ms"] < HIGH_MIN_PCT / 100 * step:
        row["high_small"] = True
    return row


def largest_cause(truth):
    """(variant, saving, plant's expected finding) of the largest real measured saving."""
    best = None
    for f in truth["fixes"]:
        if "variant" not in f:
            continue
        m = variant_saving(truth, f["variant"])
        if m["saving_ms"] is not None and m["saving_ms"] > m["unc_ms"] and \
                (best is None or m["saving_ms"] > best[1]):
            best = (f["variant"], m["saving_ms"], f.get("finding") if "plant" in f else None)
    return best


def first_ok(rows, best, findings):
    """Whether the first-ranked finding above low names the largest real cause."""
    if best is None:
        return True
    top = [f for f in findings if f["severity"] in ABOVE_LOW]
    if not top:
        return False
    row = next(r for r in rows if r["rank"] == top[0]["rank"])
    return row.get("variant") == best[0] or (best[2] is not None and top[0]["id"] == best[2])


def kept_by_fixed(truth, rows, fixed_findings):
    """Findings above low whose real fix the all-fixed twin applied and still carries."""
    applied = Z.merge_flags(truth["argv"], truth["all_fixed_flags"])
    fixed_ids = {f["id"] for f in fixed_findings if f["severity"] in ABOVE_LOW}
    kept = []
    for r in rows:
        real = r.get("saving_ms") is not None and r["saving_ms"] > r["unc_ms"]
        if real and r["id"] in fixed_ids and Z.merge_flags(applied, r["flags"]) == applied:
            kept.append(r["id"])
    return kept


def findings(rep):
    return [{"rank": i + 1, "id": f["id"], "severity": f["severity"],
             "saving_ms_per_step": f["saving_ms_per_step"], "fix": f.get("fix", "")}
            for i, f in enumerate(rep.get("findings", []))]


def fixed_findings(stepscope, fx, truth):
    """The all-fixed twin's findings: its trace's report now, or, where that trace was not
    committed (too large to keep: a compiled twin records its compilation), the findings its
    report gave when it was recorded."""
    fixed = truth.get("record_fixed", {}).get("trace")
    if fixed and os.path.exists(os.path.join(fx, fixed)):
        return findings(report(stepscope, os.path.join(fx, fixed)))
    return truth.get("fixed_findings", [])


def judge_program(stepscope, fx, truth):
    program = Z.BY_NAME[truth["program"]]
    rep = report(stepscope, os.path.join(fx, truth["record_before"]["trace"]))
    now = findings(rep)
    step = variant_saving(truth, "before").get("before_ms") or \
        Z.percentile([r["ms_per_step"] for r in truth["runs"]["before"]
                      if r["status"] == "ok"] or [0], 0.5)
    rows = [judge_finding(truth, program, f, step) for f in now
            if f["severity"] in ABOVE_LOW]
    fixed_now = fixed_findings(stepscope, fx, truth)
    best = largest_cause(truth)
    return {"program": truth["program"], "family": truth["family"], "split": truth["split"],
            "step_ms": step, "rows": rows, "largest": best,
            "largest_first": first_ok(rows, best, now),
            "kept": kept_by_fixed(truth, rows, fixed_now)}


def cell(r):
    if r["kind"] == "error":
        wide = r["unc_ms"] > JUDGE_PCT / 100 * abs(r["saving_ms"])
        return "%.2f vs %.2f +- %.2f: %+.0f %%%s" % (r["price_ms"], r["saving_ms"], r["unc_ms"],
                                                   r["err_pct"],
                                                   " (decided by its interval)" if wide else "")
    if r["kind"] == "no fix":
        return "%.2f: no literal fix (%s)" % (r["price_ms"], r["why"])
    if "saving_ms" in r:
        return "%.2f vs %.2f +- %.2f: %s" % (r["price_ms"], r["saving_ms"], r["unc_ms"],
                                             r["kind"])
    return "%.2f: %s (%s)" % (r["price_ms"], r["kind"], r.get("why", ""))


def print_program(p):
    best = p["largest"]
    print("%s (%s, %s), step %.2f ms; largest real cause: %s%s%s" % (
        p["program"], p["family"], p["split"], p["step_ms"],
        "%s %.2f ms" % (best[0], best[1]) if best else "none",
        "" if p["largest_first"] else " -- NOT ranked first",
        "; fixed twin keeps " + ", ".join(p["kept"]) if p["kept"] else ""))
    for r in p["rows"]:
        print("  #%d %-20s [%s] %s%s" % (r["rank"], r["id"], r["severity"], cell(r),
                                         " -- [high] under 5 %" if r.get("high_small") else ""))


def gates(programs):
    rows = [r for p in programs for r in p["rows"]]
    errs = [abs(r["err_pct"]) for r in rows if r["kind"] == "error"]
    mae = sum(errs) / len(errs) if errs else None
    worst = max(errs) if errs else None
    return [
        ("mean |price error| <= %.0f %% (%d judged)" % (MAE_MAX, len(errs)),
         mae, mae is not None and mae <= MAE_MAX),
        ("worst |price error| <= %.0f %%" % WORST_MAX, worst,
         worst is not None and worst <= WORST_MAX),
        ("[high] findings whose fix saves < %.0f %% of the step" % HIGH_MIN_PCT,
         sum(bool(r.get("high_small")) for r in rows), None),
        ("findings above low whose fix saves nothing measurable or slows the step",
         sum(r["kind"] in ("nothing", "hurts") for r in rows), None),
        ("re-measure (saving not known well enough to judge)",
         sum(r["kind"] == "re-measure" for r in rows), None),
        ("programs whose largest real cause is not ranked first",
         sum(not p["largest_first"] for p in programs), None),
        ("findings the all-fixed twin still carries", sum(len(p["kept"]) for p in programs),
         None),
    ]


def print_gates(results, n_nofix):
    ok_all = True
    for what, value, ok in results:
        ok = (value == 0) if ok is None else ok
        ok_all = ok_all and ok
        shown = "-" if value is None else ("%.1f" % value if isinstance(value, float) else value)
        print("%-4s %s: %s" % ("ok" if ok else "FAIL", what, shown))
    print("     findings with no literal fix (not gated): %d" % n_nofix)
    return ok_all


EVIDENCE_HEAD = """/* Generated by bench/zoo/judge.py --evidence over the committed recordings of the zoo's judge
 * half (tests/fixtures/zoo, programs no constant was tuned on), priced by the current code. Do not
 * edit: ctest bench.zoo_evidence fails when this file and the judge's numbers differ; after a
 * rule's price moves, run
 *     python3 bench/zoo/judge.py build/stepscope tests/fixtures/zoo --evidence src/analysis/ssa_evidence.h
 * One row per rule with held-out evidence: id, programs whose price was judged, worst and
 * median |price error| (%), findings whose fix saved nothing measurable or slowed the step,
 * findings whose fix's saving is not known well enough to judge (re-measure). A rule with no
 * row has no held-out evidence (ssa_findings.c says so in the report). */
"""


def evidence(programs):
    """{rule id: (judged, worst %, median %, nothing, re-measure)} over the given programs."""
    per = {}
    for p in programs:
        for r in p["rows"]:
            e = per.setdefault(r["id"], {"err": [], "nothing": 0, "re": 0})
            if r["kind"] == "error":
                e["err"].append(abs(r["err_pct"]))
            elif r["kind"] in ("nothing", "hurts"):
                e["nothing"] += 1
            elif r["kind"] == "re-measure":
                e["re"] += 1
    out = {}
    for rid, e in sorted(per.items()):
        errs = sorted(e["err"])
        med = Z.percentile(errs, 0.5) if errs else 0
        out[rid] = (len(errs), round(max(errs)) if errs else 0, round(med), e["nothing"], e["re"])
    return out


def evidence_text(programs):
    rows = ["SSA_EVIDENCE_ROW(%-22s %2d, %4d, %4d, %2d, %2d)" % ('"%s",' % rid, *v)
            for rid, v in evidence(programs).items()]
    return EVIDENCE_HEAD + "\n".join(rows) + "\n"


def main(argv):
    import argparse
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("stepscope")
    ap.add_argument("fixtures", help="ZOO_FIXTURE_DIR: truth/ and the traces it names")
    ap.add_argument("--split", default="judge", choices=["judge", "tune", "all"])
    ap.add_argument("--check", action="store_true", help="exit 1 when a gate fails")
    ap.add_argument("--json", action="store_true", help="one JSON object per program")
    ap.add_argument("--evidence", metavar="FILE", help="write the rules' held-out evidence")
    ap.add_argument("--evidence-check", metavar="FILE",
                    help="exit 1 unless FILE is the rules' held-out evidence now")
    args = ap.parse_args(argv)
    if args.evidence or args.evidence_check:
        args.split = "judge"  # held-out evidence comes from the judge half only
    programs = [judge_program(args.stepscope, args.fixtures, t)
                for t in load(args.fixtures, args.split)]
    if args.evidence:
        with open(args.evidence, "w") as f:
            f.write(evidence_text(programs))
        return 0
    if args.evidence_check:
        with open(args.evidence_check) as f:
            same = f.read() == evidence_text(programs)
        print("%s: %s" % (args.evidence_check, "as judged now" if same else
                          "STALE: the judge's numbers moved; write it again with --evidence"))
        if not same:
            sys.stdout.write(evidence_text(programs))
        return 0 if same else 1
    if args.json:
        for p in programs:
            print(json.dumps(p))
        return 0
    for p in programs:
        print_program(p)
    print("\n%s split: %d programs" % (args.split, len(programs)))
    ok = print_gates(gates(programs), sum(r["kind"] == "no fix" for p in programs
                                          for r in p["rows"]))
    return 0 if ok or not args.check else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
