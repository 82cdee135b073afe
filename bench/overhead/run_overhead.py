"""Collector overhead benchmark (issue #3), run on the GPU machine.

For each workload (launch-bound CNN, GPU-bound bf16 model) it runs every configuration in
turn, interleaved, --reps times (the order is rotated each repetition so no configuration
always runs first), and reports the median and spread of ms/step and of the ratio to the
plain run of the same repetition:

  plain       the program alone
  full        stepscope record --mode full --capture all (the whole run recorded)
  light       stepscope record --mode light --capture all
  late        stepscope record --capture steps:8-107 (steps 3-7 unrecorded: the report measures
              its own cost against them; the README's advice for runs shorter than auto's window)
  auto        stepscope record as it runs by default (--capture auto: the first 100 steps
              recorded, then CUPTI detached); checked like full
  X-cb        configuration X with STEPSCOPE_API=callbacks (API calls through CUPTI callbacks
              with our timestamps instead of CUPTI's API activity records)
  X-extra     configuration X with STEPSCOPE_CUPTI_EXTRA=sync,memory,overhead (full mode's
              kinds until 2026-12-04)
  X-sN        configuration X with STEPSCOPE_LAUNCH_SAMPLE=N (kernel launch calls recorded in
              one step of N; e.g. full-s8, light-s8, auto-s8)
  outside     stepscope record --capture seconds:3600-3601 (never inside the window)
  floor       a bare CUPTI client with the same activity kinds (bench/overhead/cupti_floor.c)
  torchprof   torch.profiler around the timed steps
  nsys        nsys profile -t cuda,nvtx --sample=none --cpuctxsw=none
  light-no-K  light mode with CUPTI kinds K (driver, memory, runtime+driver, ...) left off
              through STEPSCOPE_CUPTI_OFF, to find what light mode's cost is made of;
              light-no-all leaves every kind off (CUPTI loaded, nothing recorded by it)
  X-noshim    configuration X (light, outside, ...) without the Python shim
  full-win    stepscope record --mode full --capture steps:A-B, the window = the middle third of
  light-win   the timed windows (run with --windows 6: windows 3-4 inside, 1-2 and 5-6 outside):
              the instrumentation's cost measured inside ONE process, free of the 10-40 %
              process-to-process noise of host-bound runs on the GPU VM. Per run, the mean
              window inside the capture and after it, each over the mean window before it
              ("inside_vs_before", "after_vs_before"; per launch: (ratio - 1) x ms/step before /
              launches per step — docs/performance.md, "Recording cost"). The windows after
              are kept apart: on 2026-11-30 the cost stayed after the window closed
              (kinds off, CUPTI attached); since then the collector detaches CUPTI there
  full-head   stepscope record --capture steps:0-B, B = the end of the first third of the timed
  light-head  windows: capturing from the start (API records call by call, as in a whole-run
              capture; a window opening mid-run must enable whole API domains instead), then
              CUPTI detached. Per run, the mean window of the first third over that of the
              last third ("head_vs_tail"); plain runs report the same ratio (their drift)
  X-attached  configuration X (full-win, light-win) with STEPSCOPE_CUPTI_DETACH=0: CUPTI stays
              attached after the window, kinds off (the behaviour before the detach)
  X-nonvtx    configuration X with NVTX injection removed from the program's environment
              (`env -u NVTX_INJECTION64_PATH`): what recording NVTX (cuDNN's, the shim's) costs

  floor-K     the bare CUPTI client with only kinds K (CUPTI_FLOOR_KINDS=K, e.g.
              floor-kernel+memcpy+memset, floor-runtime+driver); the floor client must say on
              stderr which kinds it enabled ("cupti_floor: kinds ..."), else the run fails:
              a client that ignores the selector would measure the wrong thing

Programs (--programs): besides models.py's workloads (cnn, gpu, launch), any configuration of
bench/workloads/programs.py (eager_mlp-fixed, timm_vit-fixed, hf_trainer_gpt2-fixed,
cuda_graph-fixed, compile_default-plain, ...; group names such as "frameworks" take every
configuration of the group), and any command given as --program NAME=COMMAND (its result line:
a JSON line with "ms_per_step", or "result ms_per_step=..."). The -win and -head configurations
need models.py's timed windows and run on its workloads only; torchprof needs a program that
takes --torch-profiler (models.py and the Python programs of programs.py).

Every recording is checked to hold what it should, and a run that recorded nothing is a failed
run, never a cheap one: full recordings must hold kernel records, light ones (which record API
calls and copies, not kernels) API or copy records (`stepscope info --json` of the traces; the
"outside", "-head", "-win" and light-no-all recordings are exempt: they record little or
nothing by design), torchprof runs must report profiled
kernels (the programs' "profiled_kernels"), nsys reports are exported to SQLite and must hold
CUPTI_ACTIVITY_KIND_KERNEL rows (--no-verify-nsys skips the export), floor runs must report
records (CUPTI_FLOOR_VERBOSE). The facts of each run are kept in the output's "runs".

Usage: python3 bench/overhead/run_overhead.py --stepscope build/stepscope
           --floor build/libcupti_floor.so [--nsys PATH] [--reps 5] [--out results.json]
       python3 bench/overhead/run_overhead.py ... --programs eager_mlp-fixed,timm_vit-fixed \
           --configs plain,full,light,torchprof,nsys,floor --reps 5
"""
import argparse
import glob
import json
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.join(HERE, "models.py")
WORKLOADS = os.path.join(os.path.dirname(HERE), "workloads")
sys.path.insert(0, WORKLOADS)
import programs as P  # noqa: E402  (the workload table; no torch)
from run_twins import parse_result  # noqa: E402

MODEL_WORKLOADS = ("cnn", "gpu", "launch")
# Recordings that hold little or nothing by design: no kernel count is asked of them.
NO_KERNELS_EXPECTED = ("outside",)


WARMUP = 30  # models.py's default --warmup
ALL_KINDS = "kernel,overhead,memcpy,memset,sync,memory,runtime,driver"


def program_argv(workload, args):
    """(argv, takes --torch-profiler) of a models.py workload or a program target."""
    if workload in MODEL_WORKLOADS:
        return ([sys.executable, MODELS, "--workload", workload, "--steps",
                 str(args.steps[workload]), "--windows", str(args.windows)] +
                (["--pin-main"] if args.pin_main else [])), True
    target = args.targets[workload]
    return list(target["argv"]), target["torchprof"]


def command(config, workload, args, scratch):
    prog, torchprof_ok = program_argv(workload, args)
    if workload not in MODEL_WORKLOADS and ("-win" in config or "-head" in config):
        raise ValueError("%s needs models.py's timed windows (workloads %s)"
                         % (config, ",".join(MODEL_WORKLOADS)))
    rec = [args.stepscope, "record", "-q", "-o", os.path.join(scratch, config)]
    env = dict(os.environ)
    env["PYTHONHASHSEED"] = "0"  # the same dict layouts in every run
    if config.endswith("-nonvtx"):
        config = config[:-len("-nonvtx")]
        prog = ["env", "-u", "NVTX_INJECTION64_PATH"] + prog
    if config.endswith("-attached"):
        config = config[:-len("-attached")]
        env["STEPSCOPE_CUPTI_DETACH"] = "0"
    if config.endswith("-noshim"):
        config = config[:-len("-noshim")]
        rec.append("--no-python-shim")
    if config.endswith("-cb"):
        config = config[:-len("-cb")]
        env["STEPSCOPE_API"] = "callbacks"
    m = re.search(r"-s(\d+)$", config)
    if m:
        config = config[:m.start()]
        env["STEPSCOPE_LAUNCH_SAMPLE"] = m.group(1)
    if config.endswith("-extra"):
        # full mode as it was until 2026-12-04: SYNCHRONIZATION, MEMORY2, OVERHEAD too
        config = config[:-len("-extra")]
        env["STEPSCOPE_CUPTI_EXTRA"] = "sync,memory,overhead"
    if config == "plain":
        return prog, env
    if config == "full":
        return rec + ["--mode", "full", "--capture", "all", "--"] + prog, env
    if config == "light":
        return rec + ["--mode", "light", "--capture", "all", "--"] + prog, env
    if config == "auto":
        return rec + ["--"] + prog, env
    if config == "late":
        # the README's advice for short runs: steps 3-7 run unrecorded, the report measures
        # the recording against them (issue #27)
        return rec + ["--capture", "steps:8-107", "--"] + prog, env
    if config.startswith("light-no-"):
        # light mode with some CUPTI kinds left off: which kind costs what
        off = config[len("light-no-"):]
        env["STEPSCOPE_CUPTI_OFF"] = ALL_KINDS if off == "all" else off.replace("+", ",")
        return rec + ["--mode", "light", "--"] + prog, env
    if config.startswith("full-no-"):
        # full mode with some CUPTI kinds left off (not the kernels: verify wants them)
        env["STEPSCOPE_CUPTI_OFF"] = config[len("full-no-"):].replace("+", ",")
        return rec + ["--mode", "full", "--capture", "all", "--"] + prog, env
    if config in ("full-win", "light-win"):
        n, w = args.steps[workload], max(1, args.windows)
        per = n // w
        # models.py: 30 warm-up steps; the shim's step k ends at the (k+1)-th optimizer step
        a, b = WARMUP + per * (w // 3), WARMUP + per * (w - w // 3)
        return rec + ["--mode", config[:-4], "--capture", "steps:%d-%d" % (a, b), "--"] + prog, env
    if config in ("full-head", "light-head"):
        n, w = args.steps[workload], max(1, args.windows)
        b = WARMUP + (n // w) * (w // 3)
        return rec + ["--mode", config[:-5], "--capture", "steps:0-%d" % b, "--"] + prog, env
    if config == "outside":
        return rec + ["--capture", "seconds:3600-3601", "--"] + prog, env
    if config == "floor" or config.startswith("floor-"):
        # absolute, as in the runs that worked: relative, it printed nothing (2026-12-02)
        env["CUDA_INJECTION64_PATH"] = os.path.abspath(args.floor)
        env["CUPTI_FLOOR_VERBOSE"] = "1"  # its record count: the check that it recorded
        if config.startswith("floor-"):
            env["CUPTI_FLOOR_KINDS"] = config[len("floor-"):].replace("+", ",")
        return prog, env
    if config == "torchprof":
        if not torchprof_ok:
            raise ValueError("%s does not take --torch-profiler" % workload)
        return prog + ["--torch-profiler"], env
    if config == "nsys":
        out = os.path.join(scratch, "nsys-%s" % workload)
        return [args.nsys, "profile", "-t", "cuda,nvtx", "--sample=none", "--cpuctxsw=none",
                "--force-overwrite=true", "-o", out] + prog, env
    raise ValueError(config)


def base_config(config):
    """The configuration without its -nonvtx/-attached/-noshim modifiers."""
    config = re.sub(r"-s\d+$", "", config)
    for suffix in ("-nonvtx", "-attached", "-noshim", "-cb", "-extra"):
        if config.endswith(suffix):
            config = config[:-len(suffix)]
    return config


def stepscope_counts(args, folder):
    """Record counts by kind ("kernel", "api", ...) summed over the traces under folder; None
    when there is no trace or `stepscope info` failed."""
    traces = sorted(glob.glob(os.path.join(folder, "**", "*.sstrace"), recursive=True))
    if not traces:
        return None
    try:
        p = subprocess.run([args.stepscope, "info", "--json"] + traces, capture_output=True,
                           text=True, timeout=120)
        info = json.loads(p.stdout)
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return None
    counts = {}
    for one in info if isinstance(info, list) else [info]:
        for kind, n in one.get("records", {}).items():
            counts[kind] = counts.get(kind, 0) + int(n)
    return counts


def own_cost(args, folder):
    """What `stepscope report` says of the recording's own cost in the traces under folder
    (the process with the most kernels): basis, ms/step and spread, the unrecorded steps'
    median, the recorded steps' median; None when no report could be made."""
    traces = sorted(glob.glob(os.path.join(folder, "**", "*.sstrace"), recursive=True))
    best = None
    for t in traces:
        try:
            p = subprocess.run([args.stepscope, "report", "--format", "json", t],
                               capture_output=True, text=True, timeout=120)
            r = json.loads(p.stdout)
        except (OSError, ValueError, subprocess.TimeoutExpired):
            continue
        if best is None or r["trace"]["kernels"] > best["trace"]["kernels"]:
            best = r
    if best is None:
        return None
    rc = best["recording_cost"]
    return {"basis": rc["basis"], "ms_per_step": rc["ms_per_step"],
            "low": rc.get("ms_per_step_low"), "high": rc.get("ms_per_step_high"),
            "baseline_ms": rc.get("baseline_ms"), "recorded_median_ms": best["steps"]["median_ms"],
            "launch_calls_ms": rc.get("launch_calls_ms_per_step"),
            "recorded_mean_ms": best["steps"]["mean_ms"],
            "findings": [(f["id"], f["severity"], round(f["saving_ms_per_step"], 2))
                         for f in best["findings"]]}


def nsys_kernels(args, scratch):
    """Kernel rows of the nsys report the run left in scratch (exported to SQLite)."""
    reps = glob.glob(os.path.join(scratch, "*.nsys-rep"))
    if not reps:
        return None
    db = reps[0][:-len(".nsys-rep")] + ".sqlite"
    try:
        subprocess.run([args.nsys, "export", "--type", "sqlite", "--force-overwrite=true",
                        "-o", db, reps[0]], capture_output=True, timeout=300,
                       env=nsys_environment(args))
        import sqlite3
        with sqlite3.connect(db) as con:
            return con.execute("SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_KERNEL").fetchone()[0]
    except (OSError, subprocess.TimeoutExpired, Exception):  # noqa: BLE001 - no table: 0
        return 0


def floor_facts(config, stderr):
    """(records the floor client reported, whether it named the kinds it was asked for)."""
    records, kinds = None, None
    for line in stderr.splitlines():
        if line.startswith("cupti_floor: ") and line.endswith(" records"):
            try:
                records = int(line.split()[1])
            except ValueError:
                pass
        if line.startswith("cupti_floor: kinds "):
            kinds = line[len("cupti_floor: kinds "):].strip()
    asked = config[len("floor-"):].replace("+", ",") if config.startswith("floor-") else None
    return records, asked is None or kinds == asked


def verify(config, workload, args, scratch, result, stderr):
    """(ok, facts): whether the run recorded what its tool should have. Plain runs and the
    recordings that hold little by design pass."""
    base = base_config(config)
    facts = {}
    if base in ("full", "auto", "late") or base.startswith("full-no-"):
        counts = stepscope_counts(args, os.path.join(scratch, config)) or {}
        facts["kernels"] = counts.get("kernel", 0)
        # the report's stated own cost, to hold against this round's plain (issue #27)
        facts["report"] = own_cost(args, os.path.join(scratch, config))
        return bool(facts["kernels"]), facts
    if base == "light" or (base.startswith("light-no-") and base != "light-no-all"):
        # light mode records API calls and copies, not kernels (src/collect/ssc_cupti.c)
        counts = stepscope_counts(args, os.path.join(scratch, config)) or {}
        facts["gpu_records"] = sum(counts.get(k, 0) for k in ("api", "memcpy", "kernel"))
        facts["report"] = own_cost(args, os.path.join(scratch, config))
        return bool(facts["gpu_records"]), facts
    if base == "torchprof":
        facts["kernels"] = result.get("profiled_kernels")
        # models.py does not count them: its torch.profiler runs are trusted as before
        return workload in MODEL_WORKLOADS or bool(facts["kernels"]), facts
    if base == "nsys" and args.verify_nsys:
        facts["kernels"] = nsys_kernels(args, scratch)
        return bool(facts["kernels"]), facts
    if base == "floor" or base.startswith("floor-"):
        facts["records"], kinds_ok = floor_facts(base, stderr)
        facts["kinds_applied"] = kinds_ok
        return bool(facts["records"]) and kinds_ok, facts
    return True, facts


def run_once(config, workload, args):
    scratch = tempfile.mkdtemp(prefix="ssbench-")
    try:
        cmd, env = command(config, workload, args, scratch)
        if base_config(config) == "nsys":
            env = dict(env, **{k: v for k, v in nsys_environment(args).items()
                               if k in ("PATH", "LD_LIBRARY_PATH")})
        if args.taskset:
            # Every configuration on the same cores: the stepscope CLI, the program and its
            # threads (the collector's writer among them) inherit the affinity.
            cmd = ["taskset", "-c", args.taskset] + cmd
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
        rec = parse_result(p.stdout) if p.returncode == 0 else None
        if rec is None:
            sys.stderr.write("%s/%s failed (rc %d): %s\n" % (workload, config, p.returncode,
                                                            p.stderr[-2000:]))
            return None
        ok, facts = verify(config, workload, args, scratch, rec, p.stderr)
        args.raw.append(dict(rec, config=config, workload=workload, verified=ok,
                             **{"check_" + k: v for k, v in facts.items()}))
        if not ok:
            sys.stderr.write("%s/%s recorded nothing it should have (%s): not counted\n"
                             % (workload, config, facts))
            return None
        return rec["ms_per_step"]
    except subprocess.TimeoutExpired:
        sys.stderr.write("%s/%s timed out\n" % (workload, config))
        return None
    except ValueError as exc:  # a configuration this program cannot run
        sys.stderr.write("%s/%s: %s\n" % (workload, config, exc))
        return None
    finally:
        keep_traces(args, scratch, workload, config)
        shutil.rmtree(scratch, ignore_errors=True)


def keep_traces(args, scratch, workload, config):
    """--keep DIR: the run's stepscope traces, DIR/<workload>/<config>-<n>/, to price the
    recording again later against this run's plain times (its JSON's runs)."""
    if not args.keep:
        return
    traces = glob.glob(os.path.join(scratch, "**", "*.sstrace"), recursive=True)
    if not traces:
        return
    base = os.path.join(args.keep, workload)
    n = 0
    while os.path.exists(os.path.join(base, "%s-%d" % (config, n))):
        n += 1
    dest = os.path.join(base, "%s-%d" % (config, n))
    os.makedirs(dest)
    for t in traces:
        shutil.copy(t, dest)


def thirds(raw, config):
    """Per run of config with >= 3 timed windows: the mean window of its first, middle and last
    third (a third = len // 3 windows at each end, the middle the rest)."""
    for r in raw:
        w = r.get("windows_ms") or []
        if r.get("config") == config and len(w) >= 3:
            k = len(w) // 3
            yield (statistics.mean(w[:k]), statistics.mean(w[k:len(w) - k]),
                   statistics.mean(w[len(w) - k:]))


def window_ratios(raw, config):
    """Per run of a -win config: (mean window inside the capture, mean window after it), each
    over the mean window before it."""
    t = list(thirds(raw, config))
    return [i / b for b, i, _ in t], [a / b for b, _, a in t]


def head_ratios(raw, config):
    """Per run: mean window of the first third over the mean window of the last third."""
    return [h / t for h, _, t in thirds(raw, config)]


def summarise(samples, ratios):
    out = {}
    for config, vals in samples.items():
        good = [v for v in vals if v is not None]
        rs = [r for r in ratios[config] if r is not None]
        out[config] = {
            "ms_median": statistics.median(good) if good else None,
            "ms_min": min(good) if good else None, "ms_max": max(good) if good else None,
            "ratio_median": statistics.median(rs) if rs else None,
            "ratio_min": min(rs) if rs else None, "ratio_max": max(rs) if rs else None,
            "runs": vals}
    return out


def bench_workload(workload, configs, args):
    samples = {c: [] for c in configs}
    ratios = {c: [] for c in configs}
    rep_s = 0.0  # the last repetition's duration: no repetition starts that would end late
    for rep in range(args.reps):
        if args.deadline and time.time() + rep_s > args.deadline:
            print("budget reached: %s stopped after %d repetitions" % (workload, rep), flush=True)
            break
        t0 = time.time()
        order = configs[rep % len(configs):] + configs[:rep % len(configs)]
        got = {c: run_once(c, workload, args) for c in order}
        rep_s = time.time() - t0
        for c in configs:
            samples[c].append(got[c])
            base = got.get("plain")
            ratios[c].append(got[c] / base if got[c] and base else None)
        print("rep %d %s: %s" % (rep, workload, {c: got[c] and round(got[c], 3)
                                                  for c in configs}), flush=True)
    return summarise(samples, ratios)


def markdown(results):
    lines = ["| workload | config | ms/step median (min–max) | × plain, median (min–max) |",
             "|---|---|---|---|"]
    for workload, res in results.items():
        for config, r in res.items():
            if r["ms_median"] is None:
                why = ("recorded nothing (%d runs)" % r["recorded_nothing"]
                       if r.get("recorded_nothing") else "failed")
                lines.append("| %s | %s | %s | |" % (workload, config, why))
                continue
            lines.append("| %s | %s | %.3f (%.3f–%.3f) | %.3f (%.3f–%.3f) |" % (
                workload, config, r["ms_median"], r["ms_min"], r["ms_max"],
                r["ratio_median"], r["ratio_min"], r["ratio_max"]))
    return "\n".join(lines)


def cost_check(raw, results):
    """The report's own-cost line against this run's truth, per recorded run (issue #27): the
    recorded steps' median less the cost the report states, against the plain runs' median.
    Rows: (workload, basis, stated ms/step, launch calls' measured part or "-", recorded median,
    plain median, error %)."""
    rows = []
    for r in raw:
        rep = r.get("check_report")
        plain = results.get(r["workload"], {}).get("plain", {}).get("ms_median")
        if base_config(r.get("config", "")) not in ("auto", "full", "light", "late") or not rep \
                or not plain:
            continue
        est = rep["recorded_median_ms"] - rep["ms_per_step"]
        calls = rep.get("launch_calls_ms")
        rows.append(("%s/%s" % (r["workload"], r["config"]), rep["basis"], rep["ms_per_step"],
                     "-" if calls is None else "%.3f" % calls, rep["recorded_median_ms"],
                     plain, 100.0 * (est / plain - 1.0)))
    return rows


def cost_markdown(rows):
    lines = ["| workload | basis | recording ms/step (report) | of it launch calls, measured "
             "| recorded median | plain median | (recorded - recording) vs plain |",
             "|---|---|---|---|---|---|---|"]
    lines += ["| %s | %s | %.3f | %s | %.3f | %.3f | %+.1f %% |" % row for row in rows]
    return "\n".join(lines)


def nsys_environment(args):
    """nsys's environment (its host folder on PATH): run_truth.nsys_env."""
    import run_truth
    return run_truth.nsys_env(args.nsys) if args.nsys else dict(os.environ)


def program_targets(args):
    """{name: {argv, torchprof}} from --programs (programs.py) and --program NAME=COMMAND."""
    targets = {}
    binaries = {P.CABI: args.cabi, P.CXX: args.cxx}
    for program, variants in P.select(args.programs) if args.programs else []:
        if program.kind != P.PYTHON and not binaries[program.kind]:
            sys.exit("run_overhead.py: %s needs --%s" % (program.name, program.kind))
        for v in variants:
            targets["%s-%s" % (program.name, v)] = {
                "argv": P.command(program, v, program.truth, args.python, binaries,
                                  args.device),
                "torchprof": program.kind == P.PYTHON}
    for item in args.program:
        name, eq, cmd = item.partition("=")
        if not eq or not name or not cmd:
            sys.exit("run_overhead.py: --program wants NAME=COMMAND, not %r" % item)
        targets[name] = {"argv": shlex.split(cmd), "torchprof": args.program_torchprof}
    return targets


def save(args, results):
    if not args.out:
        return
    table = markdown(results)
    tmp = args.out + ".tmp"
    with open(tmp, "w") as f:
        json.dump({"results": results, "table": table, "runs": args.raw,
                   "argv": sys.argv[1:]}, f, indent=1)
    os.replace(tmp, args.out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--stepscope", required=True)
    ap.add_argument("--floor", help="libcupti_floor.so (for the floor configurations)")
    ap.add_argument("--nsys")
    ap.add_argument("--no-verify-nsys", dest="verify_nsys", action="store_false",
                    help="do not export each nsys report to count its kernels")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--workloads", help="models.py workloads (default cnn,gpu when no "
                    "--programs/--program is given)")
    ap.add_argument("--programs", help="configurations of bench/workloads/programs.py, e.g. "
                    "eager_mlp-fixed,timm_vit-fixed or a group (frameworks, host, cabi, cxx)")
    ap.add_argument("--program", action="append", default=[], metavar="NAME=COMMAND",
                    help="any program printing an ms_per_step result line (repeatable)")
    ap.add_argument("--program-torchprof", action="store_true",
                    help="the --program commands take --torch-profiler")
    ap.add_argument("--python", default=sys.executable, help="python for programs.py programs")
    ap.add_argument("--device", default="cuda", choices=["cuda", "cpu"],
                    help="cpu: programs.py programs with their CPU smoke arguments (to try the "
                         "runner here; their recordings hold no kernels and do not count)")
    ap.add_argument("--cabi", help="train_cabi binary (cabi_* programs)")
    ap.add_argument("--cxx", help="train_cxx binary (cxx_* programs)")
    ap.add_argument("--cnn-steps", type=int, default=400)
    ap.add_argument("--gpu-steps", type=int, default=40)
    ap.add_argument("--launch-steps", type=int, default=400,
                    help="steps of the launch workload (models.py: 100 launches each)")
    ap.add_argument("--configs", help="comma list instead of the default set; e.g. "
                    "plain,light,light-no-driver,light-no-memory,light-no-runtime+driver "
                    "(light-no-K1+K2: light mode with STEPSCOPE_CUPTI_OFF=K1,K2)")
    ap.add_argument("--windows", type=int, default=1,
                    help="timed windows per run; ms/step is their median (models.py)")
    ap.add_argument("--taskset", metavar="CPUS",
                    help="run every configuration pinned to these cores (taskset -c CPUS)")
    ap.add_argument("--pin-main", action="store_true",
                    help="models.py --pin-main: the launching thread alone on one core")
    ap.add_argument("--out")
    ap.add_argument("--keep", help="copy each recorded run's traces here (DIR/WORKLOAD/CONFIG-N)")
    ap.add_argument("--budget-s", type=float, default=0,
                    help="start no repetition after this many seconds (0: no limit)")
    args = ap.parse_args()
    args.deadline = time.time() + args.budget_s if args.budget_s else 0
    args.steps = {"cnn": args.cnn_steps, "gpu": args.gpu_steps, "launch": args.launch_steps}
    args.raw = []
    try:
        args.targets = program_targets(args)
    except ValueError as exc:
        sys.exit("run_overhead.py: %s" % exc)
    workloads = args.workloads.split(",") if args.workloads else \
        ([] if args.targets else ["cnn", "gpu"])
    for w in workloads:
        if w not in MODEL_WORKLOADS:
            sys.exit("run_overhead.py: unknown models.py workload %r" % w)
    configs = ["plain", "full", "light", "outside", "floor", "torchprof"]
    if args.nsys:
        configs.append("nsys")
    if args.configs:
        configs = args.configs.split(",")
    if any(c.startswith("floor") for c in configs) and not args.floor:
        sys.exit("run_overhead.py: the floor configurations need --floor PATH")
    results = {}
    for w in workloads + list(args.targets):
        start = len(args.raw)
        results[w] = bench_workload(w, configs, args)
        for c in configs:
            results[w][c]["recorded_nothing"] = sum(
                1 for r in args.raw[start:] if r["config"] == c and not r["verified"])
            if c.endswith("-win") or c.endswith("-win-attached"):
                inside, after = window_ratios(args.raw[start:], c)
                results[w][c]["inside_vs_before"] = inside
                results[w][c]["after_vs_before"] = after
                for name, r in (("inside", inside), ("after", after)):
                    print("%s %s %s/before: %s (median %s)" % (
                        w, c, name, [round(x, 3) for x in r],
                        r and round(statistics.median(r), 3)))
            if c.endswith("-head") or (c == "plain" and args.windows >= 3):
                r = head_ratios(args.raw[start:], c)
                results[w][c]["head_vs_tail"] = r
                print("%s %s head/tail: %s (median %s)" % (
                    w, c, [round(x, 3) for x in r], r and round(statistics.median(r), 3)))
        save(args, results)  # after every program: an interrupted batch keeps what it did
    print(markdown(results))
    rows = cost_check(args.raw, results)
    if rows:
        print("\nThe report's recording line against this run (recorded runs):")
        print(cost_markdown(rows))
    save(args, results)


if __name__ == "__main__":
    main()
