#!/usr/bin/env python3
"""The fix-truth zoo's runner, for the GPU machine (issue #40). For each program of zoo.py:

 a. `stepscope record -o DIR -- PROGRAM` with default options (its output, a report too, in a
    log); the training process's trace (the largest) is kept;
 b. `stepscope report --format json` of it: the findings;
 c. for every finding above 'low' the fix the report proposes, applied literally through the
    program's fix table (zoo.py: the worker count read from the fix text, the alternative the
    text names first, and the others it names), plus every planted cause's own fix; a finding
    whose fix the program cannot apply is kept as "no literal fix";
 d. the program plain (no stepscope) before and after each fix, each run in its own process,
    interleaved over --rounds rounds (B F1 F2 ... B F1 F2 ...: the 'before' runs are shared);
 e. the all-fixed variant (every fix above and every plant's, merged) recorded the same way;
 f. truth/NAME.json written at once, then everything (truth, traces, logs) packed into one
    file, --pack, rewritten after every program.

    python3 bench/zoo/run_zoo.py --stepscope build/stepscope --work /tmp/zoo --pack $OUT/zoo.tar.gz
    python3 bench/zoo/run_zoo.py ... --only judge --budget-s 540 --resume bench/zoo/out/zoo.tar.gz

A truth too noisy to judge is measured again, never passed: --more-rounds N (with
--truth-from tests/fixtures/zoo/truth, or --resume) runs N more interleaved rounds of the
before runs and of the variants judge.py would call re-measure, appends them (rounds 3, 4,
...) and recomputes the savings; with 4 or more paired rounds a saving is the median of the
rounds' before-after differences and its uncertainty their 95 % interval (zoo.measured_saving).
The recordings are not made again.

Resumable: a program whose truth file exists (in --work, or unpacked from --resume) is
skipped. --only takes names, families, splits (tune, judge) or all. --budget-s stops starting
a program whose estimate (zoo.py est_s x its runs) would end past the budget. --device cpu
runs the programs' CPU smoke sizes (tests). Each run has a time limit (--timeout); a failed
run is recorded, never fatal.
"""
import argparse
import datetime
import glob
import json
import os
import platform
import shutil
import subprocess
import sys
import tarfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(REPO, "bench", "workloads"))
import zoo as Z  # noqa: E402
import run_truth as RT  # noqa: E402  (run_process, Budget, write_json, log_tail)
import run_twins as TW  # noqa: E402  (parse_result)
import judge as J  # noqa: E402  (verdict, variant_saving: what counts as too noisy to judge)

ABOVE_LOW = ("medium", "high")
CPU_ARGS = ["--device", "cpu", "--tiny", "--steps", "3", "--warmup", "1"]


def log(msg):
    sys.stdout.write("[run_zoo %s] %s\n" % (time.strftime("%H:%M:%S"), msg))
    sys.stdout.flush()


# ----------------------------------------------------------------------------- commands

def command(args, program, argv):
    """The plain command of a program with this argv (the C++ binary, or python3 SCRIPT)."""
    if program.script == "train_cxx":  # --dry-run lists it before it is built
        return [args.cxx or "train_cxx"] + argv
    extra = CPU_ARGS if args.device == "cpu" else []
    return [args.python, os.path.join(HERE, "programs", program.script)] + argv + extra


def run_plain(args, program, argv, tag):
    """One plain run: {status, ms_per_step, step_se_ms, step_ms_each, wall_s, log}
    (step_ms_each: the timed steps one by one, to tell a run's early steps from its steady ones)."""
    path = os.path.join(args.work, "logs", "%s-%s.log" % (program.name, tag))
    env = dict(os.environ, PYTHONHASHSEED="0", PYTHONUNBUFFERED="1")
    rc, wall = RT.run_process(command(args, program, argv), path, args.timeout, env)
    res = TW.parse_result(read(path)) if rc == 0 else None
    run = {"tag": tag, "rc": rc, "wall_s": round(wall, 1), "log": rel(args, path)}
    if res:
        run.update(status="ok", ms_per_step=res["ms_per_step"], step_se_ms=step_se(res),
                   step_ms_each=res.get("step_ms_each"), gpu=res.get("gpu"))
    else:
        run.update(status="skipped" if rc == 77 else "failed", error=RT.log_tail(path, 3))
    return run


def step_se(res):
    """Standard error of the mean host-marked step of one run (None when unknown)."""
    v = res.get("step_ms_each") or []
    if len(v) < 3:
        return None
    m = sum(v) / len(v)
    return (sum((x - m) ** 2 for x in v) / (len(v) - 1) / len(v)) ** 0.5


def read(path):
    with open(path, "rb") as f:
        return f.read().decode("utf-8", "replace")


def rel(args, path):
    return os.path.relpath(path, args.work)


# ----------------------------------------------------------------------------- recording

def record(args, program, argv, tag):
    """`stepscope record` with default options; keeps the largest trace as
    traces/NAME-TAG.sstrace. Returns {rc, wall_s, log, trace}."""
    dest = os.path.join(args.work, "rec", program.name, tag)
    shutil.rmtree(dest, ignore_errors=True)
    os.makedirs(dest)
    path = os.path.join(args.work, "logs", "%s-record-%s.log" % (program.name, tag))
    cmd = [args.stepscope, "record", "-o", dest, "--"] + command(args, program, argv)
    rc, wall = RT.run_process(cmd, path, args.timeout + 60, dict(os.environ, PYTHONHASHSEED="0"))
    out = {"rc": rc, "wall_s": round(wall, 1), "log": rel(args, path), "argv": argv,
           "trace": None}
    traces = sorted(glob.glob(os.path.join(dest, "*.sstrace")), key=os.path.getsize)
    if traces:
        keep = os.path.join(args.work, "traces", "%s-%s.sstrace" % (program.name, tag))
        shutil.copyfile(traces[-1], keep)
        out.update(trace=rel(args, keep), bytes=os.path.getsize(keep), traces=len(traces))
    return out


def report(stepscope, path):
    """The report's JSON of one trace, or {"error": ...}."""
    try:
        p = subprocess.run([stepscope, "report", "--format", "json", path],
                           capture_output=True, text=True, timeout=300)
        return json.loads(p.stdout) if p.returncode == 0 else {"error": p.stderr.strip()}
    except (OSError, ValueError, subprocess.TimeoutExpired) as exc:
        return {"error": repr(exc)}


def findings_of(rep):
    """The findings as the report gave them, ranked as it ranked them."""
    return [{"rank": i + 1, "id": f["id"], "severity": f["severity"],
             "saving_ms_per_step": f["saving_ms_per_step"], "saving_pct": f.get("saving_pct"),
             "confidence": f.get("confidence"), "fix": f.get("fix"),
             "alternative_to": f.get("alternative_to")}
            for i, f in enumerate(rep.get("findings", []))]


def steps_of(rep):
    s, rc = rep.get("steps", {}), rep.get("recording_cost", {})
    return {"median_ms": s.get("median_ms"), "mean_ms": s.get("mean_ms"),
            "analysed": s.get("analysed"), "recording_cost_ms": rc.get("ms_per_step"),
            "gpu_busy_pct": rep.get("gpu_busy_pct"), "error": rep.get("error")}


# ----------------------------------------------------------------------------- fixes

def plan_fixes(program, findings):
    """The fixes to measure: one entry per finding above low (and per alternative its text
    names) and per plant; returns (fixes, variants {flags tuple: variant name})."""
    fixes, variants = [], {}

    def variant(flags):
        key = tuple(Z.merge_flags(program.argv, flags))
        return variants.setdefault(key, "F%d" % (len(variants) + 1))
    for f in findings:
        if f["severity"] not in ABOVE_LOW:
            continue
        base = {"finding": f["id"], "rank": f["rank"], "severity": f["severity"],
                "price_ms": f["saving_ms_per_step"], "fix_text": f["fix"]}
        choices = Z.fix_choices(program, f["id"], f["fix"])
        if isinstance(choices, Z.NoFix):
            fixes.append(dict(base, no_fix=choices.why))
            continue
        for c in choices:
            fixes.append(dict(base, flags=c["flags"], when=c["when"], primary=c["primary"],
                              variant=variant(c["flags"])))
    for p in program.plants:
        fixes.append({"plant": p["cause"], "finding": p["finding"], "flags": p["flags"],
                      "primary": True, "variant": variant(p["flags"])})
    return fixes, variants


def all_fixed_flags(fixes):
    flags = []
    for f in fixes:
        if f.get("flags") and f.get("primary"):
            flags = Z.merge_flags(flags, f["flags"])
    return flags


def run_rounds(args, program, order, rounds, runs):
    """Interleaved rounds (each round every (name, argv) of order in turn), appended to runs
    ({name: [runs]}, updated and returned)."""
    for r in rounds:
        for name, argv in order:
            run = run_plain(args, program, argv, "%s-r%d" % (name, r))
            runs.setdefault(name, []).append(run)
            log("  %-6s round %d: %s" % (name, r, "%.3f ms/step" % run["ms_per_step"]
                                        if run["status"] == "ok" else run["status"] + " " +
                                        run.get("error", "")))
    return runs


def measure(args, program, variants):
    """Interleaved rounds: B, then every variant, --rounds times. {name: [runs]}."""
    order = [("before", program.argv)] + [(name, list(key)) for key, name in variants.items()]
    return run_rounds(args, program, order, range(1, args.rounds + 1), {"before": []})


def attach_savings(fixes, runs):
    for f in fixes:
        if "variant" not in f:
            continue
        after = runs.get(f["variant"], [])
        f.update(before_runs=Z.ok_times(Z.same_rounds(runs["before"], after)),
                 after_runs=Z.ok_times(after))
        f.update(Z.measured_saving(runs["before"], after))


# ----------------------------------------------------------------------------- one program

def run_program(args, program):
    log("%s (%s, %s): record" % (program.name, program.family, program.split))
    t0 = time.time()
    truth = {"program": program.name, "family": program.family, "split": program.split,
             "script": program.script, "argv": program.argv, "needs": list(program.needs),
             "plants": program.plants, "device": args.device, "card": this_card(args),
             "date": datetime.date.today().isoformat(), "host": platform.node()}
    truth["record_before"] = rb = record(args, program, program.argv, "before")
    rep = report(args.stepscope, os.path.join(args.work, rb["trace"])) if rb["trace"] else {}
    truth["report"], truth["findings"] = steps_of(rep), findings_of(rep)
    for f in truth["findings"]:
        log("  finding %-20s %-6s %8.2f ms/step  %s" % (f["id"], f["severity"],
                                                    f["saving_ms_per_step"], f["fix"][:70]))
    fixes, variants = plan_fixes(program, truth["findings"])
    truth["all_fixed_flags"] = all_fixed_flags(fixes)
    fixed_argv = Z.merge_flags(program.argv, truth["all_fixed_flags"])
    truth["record_fixed"] = rf = record(args, program, fixed_argv, "fixed")
    rep = report(args.stepscope, os.path.join(args.work, rf["trace"])) if rf["trace"] else {}
    truth["fixed_report"], truth["fixed_findings"] = steps_of(rep), findings_of(rep)
    runs = measure(args, program, variants)
    attach_savings(fixes, runs)
    truth.update(fixes=fixes, runs=runs, variants={v: list(k) for k, v in variants.items()},
                 elapsed_s=round(time.time() - t0, 1))
    RT.write_json(os.path.join(args.work, "truth", program.name + ".json"), truth)
    print_fixes(program, fixes)
    return truth


def print_fixes(program, fixes):
    for f in fixes:
        what = f.get("plant") and "plant: " + f["plant"] or f["finding"]
        if "no_fix" in f:
            log("  %-40s no literal fix (%s)" % (what[:40], f["no_fix"]))
        elif f.get("saving_ms") is not None:
            log("  %-40s %-28s saved %.2f +- %.2f ms/step (%.0f %%)" % (
                what[:40], " ".join(f["flags"])[:28], f["saving_ms"], f["unc_ms"],
                f["saving_pct"]))


# ----------------------------------------------------------------------------- more rounds

def noisy_variants(truth):
    """The measured variants whose saving the judge cannot use yet, in name order: judge.verdict
    says re-measure for a price equal to the saving (any other price could be decided by the
    saving's interval alone, which is no reason to stop measuring)."""
    step = J.variant_saving(truth, "before").get("before_ms") or 0
    return [name for name in sorted(truth.get("variants", {}), key=lambda n: int(n[1:]))
            if is_noisy(J.variant_saving(truth, name), step)]


def is_noisy(m, step):
    return J.verdict(m["saving_ms"] or 0.0, m, step)[0] == "re-measure"


def last_round(truth):
    tags = [r.get("tag", "") for r in truth["runs"]["before"]]
    return max([int(t.rsplit("-r", 1)[1]) for t in tags if "-r" in t] or [0])


def more_rounds(args, program, truth):
    """--more-rounds N for a program with truth: N more interleaved rounds of the before runs
    and of the variants still too noisy to judge, appended to its runs (the recordings and
    findings stay as they were: the judge half is not recorded again); savings recomputed."""
    names = noisy_variants(truth)
    if not names:
        log("%s: nothing to re-measure" % program.name)
        return truth
    log("%s: %d more rounds of before, %s" % (program.name, args.more_rounds, " ".join(names)))
    first = last_round(truth) + 1
    order = [("before", truth["argv"])] + [(n, truth["variants"][n]) for n in names]
    run_rounds(args, program, order, range(first, first + args.more_rounds), truth["runs"])
    attach_savings(truth["fixes"], truth["runs"])
    truth.setdefault("more_rounds", []).append({
        "date": datetime.date.today().isoformat(), "host": platform.node(),
        "rounds": [first, first + args.more_rounds - 1], "variants": names})
    RT.write_json(os.path.join(args.work, "truth", program.name + ".json"), truth)
    print_fixes(program, truth["fixes"])
    return truth


def propose(args, program, truth, fixtures):
    """The fixes the current code's report of the committed recording proposes, and the
    program's plants as the table has them now, that the truth never measured: added as
    variants without runs, and their fix entries (proposed: the date), so that --more-rounds
    measures them; the recording is not made again. A plant entry the table no longer has
    keeps its runs as former_plant. Returns the variants added."""
    rep = report(args.stepscope, os.path.join(fixtures, truth["record_before"]["trace"]))
    if "error" in rep:
        raise RuntimeError("%s: %s" % (program.name, rep["error"]))
    fixes, _ = plan_fixes(program, findings_of(rep))
    known = {tuple(v): n for n, v in truth["variants"].items()}
    causes = {p["cause"] for p in program.plants}
    for f in truth["fixes"]:
        if "plant" in f and f["plant"] not in causes:
            f["former_plant"] = f.pop("plant")
    had = {f.get("plant") for f in truth["fixes"]}
    added, nxt = [], 1 + max([int(n[1:]) for n in truth["variants"]] or [0])
    for f in fixes:
        key = tuple(Z.merge_flags(truth["argv"], f.get("flags") or []))
        entry_known = key in known and ("plant" not in f or f["plant"] in had)
        if "variant" not in f or entry_known:
            continue
        if key not in known:
            known[key] = "F%d" % nxt
            truth["variants"][known[key]], nxt = list(key), nxt + 1
            added.append(known[key])
        truth["fixes"].append(dict(f, variant=known[key],
                                   proposed=datetime.date.today().isoformat()))
    return added


def run_propose(args, programs):
    """--propose FIXTURES: writes WORK/truth/NAME.json, each with the variants propose adds."""
    for p in programs:
        src = os.path.join(args.propose, "truth", p.name + ".json")
        if not os.path.exists(src):
            continue
        with open(src) as f:
            truth = json.load(f)
        added = propose(args, p, truth, args.propose)
        RT.write_json(os.path.join(args.work, "truth", p.name + ".json"), truth)
        log("%s: %s" % (p.name, "to measure: " + " ".join(
            "%s (%s)" % (n, " ".join(truth["variants"][n])) for n in added) if added
            else "nothing new to measure"))
    return 0


def truth_of(args, name):
    path = os.path.join(args.work, "truth", name + ".json")
    if not os.path.exists(path) and args.truth_from:
        src = os.path.join(args.truth_from, name + ".json")
        if os.path.exists(src):
            shutil.copyfile(src, path)
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def more_rounds_est(program, truth, n):
    """N rounds of the before runs and the noisy variants, each as long as its runs took (a
    compiled variant takes minutes where the program's est_s says seconds)."""
    names = ["before"] + noisy_variants(truth)
    return n * sum(run_wall_s(program, truth["runs"].get(name, [])) for name in names) + 5


def run_wall_s(program, runs):
    walls = sorted(r["wall_s"] for r in runs if r.get("wall_s"))
    return max(walls[len(walls) // 2], program.est_s) if walls else program.est_s


def this_card(args):
    """This machine's GPU by name (None on the CPU or without nvidia-smi)."""
    if args.device == "cpu":
        return None
    try:
        p = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                           capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    names = p.stdout.strip().splitlines()
    return names[0].strip() if p.returncode == 0 and names else None


def other_card(card, truth):
    """Why a truth's rounds cannot be added to on this machine's card: measured on another
    (savings of two cards are not one measurement), or None."""
    if card and truth.get("card") and card != truth["card"]:
        return "measured on %s, this machine has %s" % (truth["card"], card)
    return None


def run_more_rounds(args, programs):
    budget, card = RT.Budget(args.budget_s), this_card(args)
    for p in programs:
        truth = truth_of(args, p.name)
        why_card = truth and other_card(card, truth)
        if truth is None:
            log("%s: no truth to add rounds to" % p.name)
        elif "more-" + p.name in done_more(args):
            log("%s: rounds added already" % p.name)
        elif why_card:
            log("%s: not measured here: %s" % (p.name, why_card))
        elif not budget.allows(p.name, more_rounds_est(p, truth, args.more_rounds)):
            log("%s: left for a later batch" % p.name)
        elif usable(args, p):
            log("%s: skipped: %s" % (p.name, args.why))
        else:
            more_rounds(args, p, truth)
            open(os.path.join(args.work, "more-" + p.name), "w").close()
            pack(args)
    log("done in %.0f s; left for later: %s" % (budget.elapsed(),
                                               ", ".join(budget.skipped) or "none"))
    return 0


def done_more(args):
    return {os.path.basename(p) for p in glob.glob(os.path.join(args.work, "more-*"))}


# ----------------------------------------------------------------------------- batch

def estimate_s(program, rounds):
    """Two recordings and rounds x (before + plants + ~2 fixes) plain runs."""
    return program.est_s * (2 + rounds * (3 + len(program.plants))) + 10


TRACE_PACK_MAX = 14 << 20  # the GPU tool returns files of up to 16 MiB


def pack(args):
    """The truth, logs and meta into --pack (tar.gz), atomically; the traces (already
    compressed) into --pack's folder as traces-K.tar, a new K once one passes TRACE_PACK_MAX,
    so that no file grows past what the GPU tool returns."""
    tmp = args.pack + ".tmp"
    os.makedirs(os.path.dirname(args.pack), exist_ok=True)
    with tarfile.open(tmp, "w:gz") as tar:
        for sub in ("truth", "logs", "meta.json"):
            path = os.path.join(args.work, sub)
            if os.path.exists(path):
                tar.add(path, arcname=sub)
    os.replace(tmp, args.pack)
    pack_traces(args)


def pack_traces(args):
    folder = os.path.dirname(os.path.abspath(args.pack))
    packed = set()
    for t in glob.glob(os.path.join(folder, "traces-*.tar")):
        with tarfile.open(t) as tar:
            packed.update(tar.getnames())
    new = [p for p in sorted(glob.glob(os.path.join(args.work, "traces", "*.sstrace")))
           if "traces/" + os.path.basename(p) not in packed]
    for path in new:
        k = 1
        while (os.path.exists(os.path.join(folder, "traces-%d.tar" % k)) and
               os.path.getsize(os.path.join(folder, "traces-%d.tar" % k)) > TRACE_PACK_MAX):
            k += 1
        with tarfile.open(os.path.join(folder, "traces-%d.tar" % k), "a") as tar:
            tar.add(path, arcname="traces/" + os.path.basename(path))


def resume(args):
    if args.resume and os.path.exists(args.resume):
        with tarfile.open(args.resume) as tar:
            tar.extractall(args.work, filter="data") if hasattr(tarfile, "data_filter") \
                else tar.extractall(args.work)
        log("resumed from %s: %d truth files" % (args.resume, len(done(args))))


def done(args):
    return {os.path.basename(p)[:-5] for p in glob.glob(os.path.join(args.work, "truth",
                                                                      "*.json"))}


def build_cxx(args):
    """The C++ program through bench/workloads/cxx/build.sh against this python's torch."""
    out = os.path.join(args.work, "cxx")
    torch_dir = subprocess.run([args.python, "-c", "import torch, os; print(os.path.dirname("
                                "torch.__file__))"], capture_output=True, text=True).stdout.strip()
    env = dict(os.environ, JOBS=str(os.cpu_count() or 4))
    for inc in ("/usr/local/cuda/include", os.path.join(os.path.dirname(torch_dir), "nvidia",
                                                         "cu13", "include")):
        if os.path.exists(os.path.join(inc, "nvtx3", "nvToolsExt.h")):
            env["NVTX_INCLUDE"] = inc
            break
    path = os.path.join(args.work, "logs", "cxx-build.log")
    cmd = ["bash", os.path.join(REPO, "bench", "workloads", "cxx", "build.sh"), torch_dir, out,
           "auto", args.device]
    rc, wall = RT.run_process(cmd, path, 900, env)
    log("built the C++ program: rc %s (%.0f s)" % (rc, wall))
    return os.path.join(out, "train_cxx") if rc == 0 else None


def usable(args, program):
    """Whether a program cannot run here (args.why says why)."""
    args.why = why_not(args, program)
    return args.why is not None


def why_not(args, program):
    import importlib.util
    if program.script == "train_cxx":
        if args.device == "cpu":
            return "the C++ program is CUDA-only here"
        if not args.cxx:
            args.cxx = build_cxx(args)
        return None if args.cxx else "the C++ program did not build (logs/cxx-build.log)"
    missing = [m for m in program.needs if importlib.util.find_spec(m) is None]
    return "missing %s" % ", ".join(missing) if missing else None


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--stepscope", required=True, help="the stepscope binary")
    ap.add_argument("--work", default="/tmp/zoo", help="working folder (results, traces)")
    ap.add_argument("--pack", help="the tar.gz to write after every program "
                                   "(default WORK/zoo.tar.gz)")
    ap.add_argument("--resume", help="a pack of an earlier batch: its programs are done")
    ap.add_argument("--only", default="all", help="names, families, splits or all")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--budget-s", type=float, default=0, help="0: no limit")
    ap.add_argument("--timeout", type=float, default=300, help="per plain run (s)")
    ap.add_argument("--python", default="python3")
    ap.add_argument("--device", default="cuda", choices=["cuda", "cpu"])
    ap.add_argument("--cxx", help="the train_cxx binary (default: built on first need)")
    ap.add_argument("--dry-run", action="store_true", help="list the plan and exit")
    ap.add_argument("--more-rounds", type=int, default=0,
                    help="add N rounds to the programs' truth (the noisy variants only)")
    ap.add_argument("--truth-from", help="with --more-rounds: a folder of truth files "
                                         "(e.g. tests/fixtures/zoo/truth) to start from")
    ap.add_argument("--propose", metavar="FIXTURES",
                    help="no runs: copy FIXTURES/truth/*.json to WORK/truth with the fixes the "
                         "current report of each recording proposes and no variant measured "
                         "added as variants (for --more-rounds next)")
    args = ap.parse_args(argv)
    if args.rounds < 2:
        ap.error("--rounds must be >= 2 (interleaved before/after)")
    args.work = os.path.abspath(args.work)
    args.pack = os.path.abspath(args.pack or os.path.join(args.work, "zoo.tar.gz"))
    return args


def main(argv=None):
    args = parse_args(argv)
    try:
        programs = Z.select(args.only)
    except ValueError as exc:
        sys.exit("run_zoo.py: %s" % exc)
    for sub in ("truth", "traces", "logs", "rec"):
        os.makedirs(os.path.join(args.work, sub), exist_ok=True)
    if args.propose:
        return run_propose(args, programs)
    resume(args)
    if args.more_rounds:
        return run_more_rounds(args, programs)
    budget, finished = RT.Budget(args.budget_s), done(args)
    for p in programs:
        est = estimate_s(p, args.rounds)
        if p.name in finished:
            log("%s: done already" % p.name)
        elif args.dry_run:
            log("%s: ~%.0f s: %s" % (p.name, est, " ".join(command(args, p, p.argv))))
        elif not budget.allows(p.name, est):
            log("%s: left for a later batch (~%.0f s past the budget)" % (p.name, est))
        elif usable(args, p):
            log("%s: skipped: %s" % (p.name, args.why))
        else:
            run_program(args, p)
            RT.write_json(os.path.join(args.work, "meta.json"), meta(args, budget))
            pack(args)
    log("done in %.0f s; truth files: %d of %d; left for later: %s" % (
        budget.elapsed(), len(done(args) & {p.name for p in programs}), len(programs),
        ", ".join(budget.skipped) or "none"))
    return 0


def meta(args, budget):
    return {"argv": sys.argv, "host": platform.node(), "rounds": args.rounds,
            "elapsed_s": round(budget.elapsed()), "skipped_for_budget": budget.skipped,
            "finished": datetime.datetime.now().isoformat(timespec="seconds")}


if __name__ == "__main__":
    sys.exit(main())
