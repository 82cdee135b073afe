#!/usr/bin/env python3
"""The default-options sweep (issue #39): every GPU workload of the repository recorded with
`stepscope record` and no option at all, as a new user runs it, then reported; lists the
programs whose report analysed fewer than MIN_STEPS steps or printed a measured recording cost
outside its own interval. A benchmark for the GPU machine, not a test.

    python3 bench/workloads/default_sweep.py --stepscope build-gpu/stepscope --out DIR \
        [--programs all] [--cabi BIN --cxx BIN] [--budget-s S] [--tar FILE]
    python3 bench/workloads/default_sweep.py --table DIR     # the table of a finished sweep

Each configuration of programs.py (both twins) and each case of python/train.py (planted and
fixed) runs with its own step counts (programs.py `truth`, cases.py). Resumable: a
configuration whose result is in DIR/sweep.json is not run again. After each run the results
(and, with --tar, everything in DIR packed into one file) are rewritten, so an interrupted batch
keeps what it did; --tar packs all but the traces (each configuration's report.json is kept).
"""
import argparse
import json
import os
import subprocess
import sys
import tarfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "python"))
import programs as P  # noqa: E402
import run_truth as RT  # noqa: E402
import cases as C  # noqa: E402

MIN_STEPS = 20


def train_configs(python):
    """(name, argv, est_s) of every train.py case, planted and fixed (dp needs 2 GPUs)."""
    script = os.path.join(HERE, "python", "train.py")
    out = []
    for case in C.CASES:
        if case == "dp":
            continue
        out.append(("train_%s-bad" % case, [python, script, "--case", case], 20.0))
        if case != "clean":
            out.append(("train_%s-fixed" % case, [python, script, "--case", case, "--fix"], 15.0))
    return out


def program_configs(args):
    """(name, argv, est_s) of the programs.py configurations selected and runnable here."""
    out = []
    for program, variants in P.select(args.programs):
        if program.kind != P.PYTHON and not args.binaries.get(program.kind):
            continue
        for v in variants:
            argv = P.command(program, v, program.truth, args.python, args.binaries)
            out.append(("%s-%s" % (program.name, v), argv, program.est_s))
    return out


def report_facts(stepscope, folder):
    """What the report of folder says about steps and the recording's cost (None: no report)."""
    p = subprocess.run([stepscope, "report", "--format", "json", folder], capture_output=True,
                       text=True, timeout=300)
    with open(os.path.join(folder, "report.json"), "w") as f:
        f.write(p.stdout)
    try:
        j = json.loads(p.stdout)
    except ValueError:
        return {"report_rc": p.returncode, "report_error": p.stderr.strip()[-300:]}
    reports = j if isinstance(j, list) else [j]  # one per process: the one with the most steps
    one = max(reports, key=lambda x: x.get("steps", {}).get("analysed", 0), default={})
    steps, rec = one.get("steps", {}), one.get("recording_cost", {})
    return {"report_rc": p.returncode, "analysed": steps.get("analysed", 0),
            "source": steps.get("source"), "window_opened": steps.get("window_opened"),
            "never_opened": bool(steps.get("capture_never_opened")),
            "basis": rec.get("basis"), "ms": rec.get("ms_per_step"),
            "low": rec.get("ms_per_step_low"), "high": rec.get("ms_per_step_high"),
            "baseline_unusable": rec.get("baseline_unusable"),
            "median_ms": steps.get("median_ms")}


def problems(facts):
    """The sweep's two checks, as words (empty: fine)."""
    out = []
    if facts.get("analysed", 0) < MIN_STEPS:
        out.append("analysed %d steps" % facts.get("analysed", 0))
    lo, hi, ms = facts.get("low"), facts.get("high"), facts.get("ms")
    if facts.get("basis") == "measured" and None not in (lo, hi, ms) and not lo <= ms <= hi:
        out.append("cost %.2f outside %.2f-%.2f" % (ms, lo, hi))
    return out


def run_one(args, name, argv):
    dest = os.path.join(args.out, "rec", name)
    os.makedirs(dest, exist_ok=True)
    log = os.path.join(args.out, "logs", name + ".log")
    rc, wall = RT.run_process([args.stepscope, "record", "-o", dest, "--"] + argv, log,
                              args.timeout)
    facts = {"rc": rc, "wall_s": round(wall, 1), "argv": argv}
    if rc == 77:
        facts["skipped"] = True
        return facts
    facts.update(report_facts(args.stepscope, dest))
    facts["problems"] = problems(facts)
    return facts


def pack(out, tar_path):
    """Everything but the traces (large: the reports and logs say what the sweep needs)."""
    tmp = tar_path + ".tmp"
    with tarfile.open(tmp, "w:gz") as t:
        t.add(out, arcname="sweep", filter=lambda i: None if i.name.endswith(".sstrace") else i)
    os.replace(tmp, tar_path)


def table(results):
    lines = ["| program | analysed | window | cost (basis) | problems |", "|---|---|---|---|---|"]
    for name in sorted(results):
        f = results[name]
        if f.get("skipped"):
            lines.append("| %s | skipped | | | |" % name)
            continue
        cost = "%s (%s)" % ("%.2f" % f["ms"] if f.get("ms") is not None else "-", f.get("basis"))
        if f.get("baseline_unusable"):
            cost += ", baseline %s" % f["baseline_unusable"]
        lines.append("| %s | %s | %s | %s | %s |" % (
            name, f.get("analysed", "-"), f.get("window_opened") or "step",
            cost, "; ".join(f.get("problems", [])) or "-"))
    bad = [n for n, f in results.items() if f.get("problems")]
    lines.append("")
    lines.append("%d of %d configurations with a problem: %s" % (
        len(bad), len(results), ", ".join(sorted(bad)) or "none"))
    return "\n".join(lines)


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--stepscope", help="the stepscope binary (built with the collector)")
    ap.add_argument("--out", help="output folder")
    ap.add_argument("--programs", default="all", help="programs.py selection (see run_twins.py)")
    ap.add_argument("--no-train", action="store_true", help="leave out train.py's cases")
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--cabi"), ap.add_argument("--cxx")
    ap.add_argument("--timeout", type=float, default=240.0)
    ap.add_argument("--budget-s", type=float, default=0)
    ap.add_argument("--tar", help="pack the output folder here after each run")
    ap.add_argument("--table", metavar="DIR", help="print the table of DIR/sweep.json and exit")
    args = ap.parse_args(argv)
    args.binaries = {P.CABI: args.cabi, P.CXX: args.cxx}
    if not args.table and not (args.stepscope and args.out):
        ap.error("--stepscope and --out are needed (or --table DIR)")
    return args


def main(argv=None):
    args = parse_args(argv)
    if args.table:
        print(table(RT.read_json(os.path.join(args.table, "sweep.json")) or {}))
        return 0
    for sub in ("rec", "logs"):
        os.makedirs(os.path.join(args.out, sub), exist_ok=True)
    path = os.path.join(args.out, "sweep.json")
    results = RT.read_json(path) or {}
    budget = RT.Budget(args.budget_s)
    configs = program_configs(args) + ([] if args.no_train else train_configs(args.python))
    for name, argv, est in configs:
        if name in results or not budget.allows(name, est):
            continue
        t = time.time()
        results[name] = run_one(args, name, argv)
        RT.write_json(path, results)
        if args.tar:
            pack(args.out, args.tar)
        print("[sweep] %-36s %s (%.0f s)" % (name, results[name].get("problems"), time.time() - t),
              flush=True)
    print(table(results))
    return 1 if any(f.get("problems") for f in results.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
