#!/usr/bin/env python3
"""Runs the programs of programs.py (frameworks, host-time plants, C and C++ over libtorch):
a smoke run of each, their plain ground truth, or a `stepscope record` of each.

    python3 bench/workloads/run_twins.py smoke  --programs all --cabi B --cxx B --out DIR
    python3 bench/workloads/run_twins.py truth  --programs host,cabi --reps 3 --prime --out DIR
    python3 bench/workloads/run_twins.py record --programs frameworks --stepscope build/stepscope --out DIR
    python3 bench/workloads/run_twins.py merge  -o truth.json DIR1 DIR2 ...
    python3 bench/workloads/run_twins.py smoke --device cpu --programs frameworks,host   # CPU

smoke: every configuration once with its short arguments (programs.py `smoke`); a failure is
listed and makes the exit status 1; "skipped" (exit 77: a dependency or CUDA is missing) is not
a failure. truth: --reps interleaved repetitions, each configuration in its own process; within
a repetition the twins of a program run back to back, bad first in odd and fixed first in even
repetitions; --prime runs each configuration once before, untimed (torch.compile's on-disk
caches, the page cache). record: each configuration once under `stepscope record` with its
fixture arguments (programs.py `record`: few steps, small traces), then `stepscope info --json`
of what it wrote: on CUDA a recording whose traces hold no kernel records (light mode: no API or
copy records) is a failure, never a cheap success. merge: truth recomputed from the runs of several output folders (e.g. two jobs).

Output folder: smoke.json / truth.json / captures.json, meta.json, runs/ (the parsed result of
each run), logs/ (its output), record/<configuration>/ (traces). Results are rewritten after
every run, so an interrupted batch keeps what it did. --budget-s stops starting runs that would
end past it (estimated from programs.py `est_s`, then from the configuration's last run).
"""
import argparse
import datetime
import glob
import json
import os
import platform
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import programs as P  # noqa: E402
import run_truth as RT  # noqa: E402  (run_process, percentile, Budget, json helpers)

EXIT_SKIP = 77
MODES = ("smoke", "truth", "record", "merge")


def log(msg):
    sys.stdout.write("[run_twins %s] %s\n" % (time.strftime("%H:%M:%S"), msg))
    sys.stdout.flush()


# ----------------------------------------------------------------------------- one run

def parse_result(text):
    """The program's result from its output: the last JSON line holding "ms_per_step" (the
    Python programs), else the C/C++ programs' `result ms_per_step=... key=value` line."""
    found = None
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("{") and '"ms_per_step"' in line:
            try:
                found = json.loads(line)
            except ValueError:
                continue
        elif line.startswith("result ms_per_step="):
            found = {}
            for item in line[len("result "):].split():
                key, _, value = item.partition("=")
                try:
                    found[key] = float(value)
                except ValueError:
                    found[key] = value
    return found


def read_text(path):
    try:
        with open(path, "rb") as f:
            return f.read().decode("utf-8", "replace")
    except OSError:
        return ""


def run_config(args, program, variant, extra, name, wrap=()):
    """Runs one configuration; returns the run record (status ok/failed/skipped/timeout)."""
    cmd = list(wrap) + P.command(program, variant, extra, args.python, args.binaries,
                                 args.device)
    log_path = os.path.join(args.out, "logs", name + ".log")
    env = dict(os.environ, PYTHONHASHSEED="0", PYTHONUNBUFFERED="1")
    rc, wall = RT.run_process(cmd, log_path, args.timeout, env)
    text = read_text(log_path)
    result = parse_result(text) if rc == 0 else None
    run = {"config": "%s-%s" % (program.name, variant), "rc": rc, "wall_s": round(wall, 2),
           "command": " ".join(cmd), "log": os.path.relpath(log_path, args.out)}
    if rc == 0 and result is not None:
        run.update(status="ok", ms_per_step=result["ms_per_step"], result=result)
    elif rc == EXIT_SKIP:
        run.update(status="skipped", why=RT.log_tail(log_path, 1))
    else:
        run.update(status="timeout" if rc == "timeout" else "failed",
                   error="exit %s: %s" % (rc, RT.log_tail(log_path)))
    RT.write_json(os.path.join(args.out, "runs", name + ".json"), run)
    return run


def describe(run):
    if run["status"] == "ok":
        return "ok %.3f ms/step" % run["ms_per_step"]
    return "%s %s" % (run["status"], run.get("why") or run.get("error", ""))


def estimate(program, config, walls):
    return walls.get(config, program.est_s)


# ----------------------------------------------------------------------------- smoke

def mode_smoke(args, selected, budget):
    results, walls = {}, {}
    for program, variants in selected:
        for v in variants:
            config = "%s-%s" % (program.name, v)
            if not budget.allows("smoke " + config, estimate(program, config, walls)):
                results[config] = {"status": "budget"}
                continue
            run = run_config(args, program, v, program.smoke, "smoke-" + config)
            results[config] = run
            log("smoke %-32s %s (%.1f s)" % (config, describe(run), run["wall_s"]))
            RT.write_json(os.path.join(args.out, "smoke.json"), results)
    failed = [c for c, r in results.items() if r["status"] in ("failed", "timeout")]
    log("smoke: %d ok, %d skipped, %d failed%s" % (
        sum(r["status"] == "ok" for r in results.values()),
        sum(r["status"] == "skipped" for r in results.values()), len(failed),
        (": " + ", ".join(failed)) if failed else ""))
    return 1 if failed else 0


# ----------------------------------------------------------------------------- truth

def summary(runs):
    ok = [r for r in runs if r.get("status") == "ok"]
    vals = [r["ms_per_step"] for r in ok]
    last = ok[-1]["result"] if ok else {}
    facts = {k: v for k, v in last.items() if k not in ("ms_per_step", "step_ms", "argv")}
    return {
        "median_ms": RT.rounded(RT.percentile(vals, 0.5)),
        "p10": RT.rounded(RT.percentile(vals, 0.1)), "p90": RT.rounded(RT.percentile(vals, 0.9)),
        "min": RT.rounded(min(vals) if vals else None),
        "max": RT.rounded(max(vals) if vals else None),
        "runs": [RT.rounded(v) for v in vals], "n_ok": len(vals),
        "n_failed": sum(r.get("status") in ("failed", "timeout") for r in runs),
        "n_skipped": sum(r.get("status") == "skipped" for r in runs),
        "command": runs[0].get("command") if runs else None,
        "errors": [r.get("error") or r.get("why") for r in runs
                   if r.get("status") not in ("ok", "budget")][:3],
        "last_result": facts,
    }


def program_truth(program, runs_by_config, min_speedup):
    entry = {"program": program.name, "group": program.group, "held_out": program.held_out,
             "planted": program.planted, "fix": program.fix, "variants": {}}
    for v in program.variants:
        runs = runs_by_config.get("%s-%s" % (program.name, v), [])
        if runs:
            entry["variants"][v] = dict(summary(runs), config="%s-%s" % (program.name, v))
    if program.has_twins() and {"bad", "fixed"} <= set(entry["variants"]):
        b, f = entry["variants"]["bad"]["median_ms"], entry["variants"]["fixed"]["median_ms"]
        entry["bad"], entry["fixed"] = entry["variants"]["bad"], entry["variants"]["fixed"]
        if b is not None and f is not None:
            entry["saving_ms"], entry["speedup"] = RT.rounded(b - f), RT.rounded(b / f)
            entry["check"] = {"ok": b / f >= min_speedup,
                              "rule": "speedup >= %.2f" % min_speedup}
        else:
            entry["check"] = {"ok": False, "why": "no successful run of bad or fixed"}
    return entry


def write_truth(path, runs_by_config, min_speedup, extra_meta=None):
    entries = [program_truth(p, runs_by_config, min_speedup) for p in P.PROGRAMS
               if any(c in runs_by_config for c in p.configs())]
    RT.write_json(path, entries)
    return entries


def mode_truth(args, selected, budget):
    runs_by_config, walls = {}, {}
    truth_path = os.path.join(args.out, "truth.json")
    if args.prime:
        for program, variants in selected:
            for v in variants:
                config = "%s-%s" % (program.name, v)
                if budget.allows("prime " + config, estimate(program, config, walls)):
                    run = run_config(args, program, v, program.truth, "prime-" + config)
                    walls[config] = run["wall_s"]
                    log("prime %-32s %s (%.1f s)" % (config, describe(run), run["wall_s"]))
    for rep in range(1, args.reps + 1):
        for program, variants in selected:
            for v in variants if rep % 2 else list(reversed(variants)):
                config = "%s-%s" % (program.name, v)
                if not budget.allows("truth %s rep %d" % (config, rep),
                                     estimate(program, config, walls)):
                    runs_by_config.setdefault(config, []).append({"status": "budget"})
                    continue
                run = run_config(args, program, v, program.truth, "%s-r%d" % (config, rep))
                run["rep"] = rep
                RT.write_json(os.path.join(args.out, "runs", "%s-r%d.json" % (config, rep)), run)
                walls[config] = run["wall_s"]
                runs_by_config.setdefault(config, []).append(run)
                log("truth %-32s rep %d: %s (%.1f s)" % (config, rep, describe(run),
                                                         run["wall_s"]))
        write_truth(truth_path, runs_by_config, args.min_speedup)
    print_truth(write_truth(truth_path, runs_by_config, args.min_speedup))
    return 0


def print_truth(entries):
    fmt = lambda x: "-" if x is None else "%.3f" % x  # noqa: E731
    print("%-24s %-9s %11s %11s %9s %8s  %s" % ("program", "held out", "bad/plain", "fixed",
                                                 "saving", "speedup", "check"))
    for e in entries:
        first = e["variants"].get("bad") or e["variants"].get("plain") or {}
        fixed = e["variants"].get("fixed") or {}
        check = e.get("check")
        print("%-24s %-9s %11s %11s %9s %8s  %s" % (
            e["program"], "yes" if e["held_out"] else "", fmt(first.get("median_ms")),
            fmt(fixed.get("median_ms")), fmt(e.get("saving_ms")), fmt(e.get("speedup")),
            "-" if check is None else ("ok" if check["ok"] else "CHECK")))


def mode_merge(args):
    runs_by_config = {}
    for d in args.dirs:
        for path in sorted(glob.glob(os.path.join(d, "runs", "*-r[0-9]*.json"))):
            run = RT.read_json(path)
            if run and run.get("config"):
                runs_by_config.setdefault(run["config"], []).append(run)
    entries = write_truth(args.output, runs_by_config, args.min_speedup)
    print_truth(entries)
    return 0


# ----------------------------------------------------------------------------- record

def trace_facts(stepscope, folder):
    """Record counts of the traces `stepscope record` wrote into folder: kernels, API calls,
    copies, all records, bytes, processes."""
    traces = sorted(glob.glob(os.path.join(folder, "*.sstrace")))
    facts = {"traces": [os.path.basename(t) for t in traces], "kernels": 0, "api": 0,
             "memcpy": 0, "records": 0, "bytes": sum(os.path.getsize(t) for t in traces),
             "processes": len(traces)}
    if not traces:
        return facts
    try:
        p = subprocess.run([stepscope, "info", "--json"] + traces, capture_output=True,
                           text=True, timeout=120)
        info = json.loads(p.stdout)
    except (OSError, ValueError, subprocess.TimeoutExpired) as exc:
        facts["info_error"] = repr(exc)
        return facts
    for one in info if isinstance(info, list) else [info]:
        counts = one.get("records", {})
        facts["kernels"] += int(counts.get("kernel", 0))
        facts["api"] += int(counts.get("api", 0))
        facts["memcpy"] += int(counts.get("memcpy", 0))
        facts["records"] += int(one.get("records_total", 0))
    return facts


def recorded_nothing(args, facts):
    """Why a CUDA recording is empty, or None: full mode must hold kernel records, light mode
    (API calls and copies, no kernels) API or copy records."""
    if args.device != "cuda":
        return None
    light = "light" in args.record_args and "--mode" in args.record_args
    if light and facts["api"] + facts["memcpy"] == 0:
        return "the light recording holds no API or copy records"
    if not light and facts["kernels"] == 0:
        return "the recording holds no kernel records"
    return None


def mode_record(args, selected, budget):
    results = RT.read_json(os.path.join(args.out, "captures.json")) or {}
    for program, variants in selected:
        for v in variants:
            config = "%s-%s" % (program.name, v)
            if not budget.allows("record " + config, program.est_s + 3):
                results[config] = {"status": "budget"}
                continue
            dest = os.path.join(args.out, "record", config)
            os.makedirs(dest, exist_ok=True)
            wrap = [args.stepscope, "record", "-q", "-o", dest] + args.record_args + ["--"]
            run = run_config(args, program, v, program.record, "record-" + config, wrap)
            facts = trace_facts(args.stepscope, dest)
            run.update(facts, dir=os.path.relpath(dest, args.out))
            empty = recorded_nothing(args, facts)
            if run["status"] == "ok" and empty:
                run.update(status="failed", error=empty)
            results[config] = run
            log("record %-32s %s, %d kernels, %d KiB in %d trace(s) (%.1f s)" % (
                config, describe(run), facts["kernels"], facts["bytes"] >> 10,
                facts["processes"], run["wall_s"]))
            RT.write_json(os.path.join(args.out, "captures.json"), results)
    return 1 if any(r["status"] == "failed" for r in results.values()) else 0


# ----------------------------------------------------------------------------- main

def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("mode", choices=MODES)
    ap.add_argument("dirs", nargs="*", help="merge: the output folders to merge")
    ap.add_argument("--programs", default="all",
                    help="comma list of programs, configurations (program-variant), groups "
                         "(frameworks, host, cabi, cxx) or all")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--prime", action="store_true", help="truth: one untimed run of each first")
    ap.add_argument("--out", default=os.path.join(HERE, "out", "twins"))
    ap.add_argument("-o", "--output", help="merge: the truth.json to write")
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--device", default="cuda", choices=["cuda", "cpu"])
    ap.add_argument("--cabi", help="the train_cabi binary (C programs)")
    ap.add_argument("--cxx", help="the train_cxx binary (C++ programs)")
    ap.add_argument("--stepscope", default=os.path.join(os.path.dirname(os.path.dirname(HERE)),
                                                        "build", "stepscope"))
    ap.add_argument("--record-args", default="", help="extra `stepscope record` options")
    ap.add_argument("--timeout", type=float, default=180.0, help="per run (s)")
    ap.add_argument("--budget-s", type=float, default=0, help="0: no limit")
    ap.add_argument("--min-speedup", type=float, default=1.2)
    ap.add_argument("--dry-run", action="store_true", help="print the commands and exit")
    args = ap.parse_intermixed_args(argv)  # merge: folders may follow -o FILE
    args.record_args = args.record_args.split()
    args.binaries = {P.CABI: args.cabi, P.CXX: args.cxx}
    if args.mode == "merge" and (not args.output or not args.dirs):
        ap.error("merge needs -o FILE and the folders to merge")
    if args.mode == "record" and not os.access(args.stepscope, os.X_OK):
        ap.error("record: %s is not an executable (give --stepscope PATH)" % args.stepscope)
    return args


def usable(selected, args):
    """Drops what cannot run here, saying why: binaries not given, C cases on the CPU."""
    keep = []
    for program, variants in selected:
        if program.kind != P.PYTHON and not args.binaries.get(program.kind):
            log("left out %s: no --%s binary" % (program.name, program.kind))
        elif args.device == "cpu" and program.cpu is None:
            log("left out %s: CUDA only" % program.name)
        else:
            keep.append((program, variants))
    return keep


def main(argv=None):
    args = parse_args(argv)
    if args.mode == "merge":
        return mode_merge(args)
    try:
        selected = usable(P.select(args.programs), args)
    except ValueError as exc:
        sys.exit("run_twins.py: %s" % exc)
    args.out = os.path.abspath(args.out)
    extra = {"smoke": lambda p: p.smoke, "truth": lambda p: p.truth,
             "record": lambda p: p.record}[args.mode]
    for program, variants in selected:
        for v in variants:
            log("%-32s %s" % ("%s-%s" % (program.name, v), " ".join(
                P.command(program, v, extra(program), args.python, args.binaries, args.device))))
    if args.dry_run:
        return 0
    for sub in ("runs", "logs", "record"):
        os.makedirs(os.path.join(args.out, sub), exist_ok=True)
    meta = {"mode": args.mode, "started": datetime.datetime.now().isoformat(timespec="seconds"),
            "host": platform.node(), "argv": sys.argv, "device": args.device,
            "reps": args.reps if args.mode == "truth" else None}
    RT.write_json(os.path.join(args.out, "meta.json"), meta)
    budget = RT.Budget(args.budget_s)
    mode = {"smoke": mode_smoke, "truth": mode_truth, "record": mode_record}[args.mode]
    rc = mode(args, selected, budget)
    meta.update(finished=datetime.datetime.now().isoformat(timespec="seconds"),
                elapsed_s=round(budget.elapsed()), skipped_for_budget=budget.skipped)
    RT.write_json(os.path.join(args.out, "meta.json"), meta)
    log("done in %.0f s; %d runs left out for the budget" % (budget.elapsed(),
                                                             len(budget.skipped)))
    return rc


if __name__ == "__main__":
    sys.exit(main())
