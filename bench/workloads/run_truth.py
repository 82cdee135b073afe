#!/usr/bin/env python3
"""Ground truth for the planted-bottleneck workloads (issue #4): times every case bad and fixed,
interleaved, over several repetitions, and optionally captures each under `stepscope record`,
torch.profiler (Kineto JSON) and Nsight Systems (SQLite export).

    python3 bench/workloads/run_truth.py --out /tmp/truth --pack $OUT  # all cases, 5 reps
    python3 bench/workloads/run_truth.py --reps 0 --record --stepscope build/stepscope \\
        --kineto --nsys $N/nsys --out /tmp/cap --pack $OUT             # captures only
    python3 bench/workloads/run_truth.py --device cpu --tiny --reps 1 --cases data,combo1

Phase 1 (timed): each *configuration* (a workload and the causes planted in it; cases share
some, e.g. the fixed twin of `data` is the `clean` program) runs once per repetition, each in
its own process; within a repetition the configurations of one workload run back to back (bad,
fixed, bad-with-one-cause-fixed, ...), so bad and fixed are interleaved. Phase 2 (captures): the
bad and fixed configuration of every case, once under each requested tool (record first, then
kineto, then nsys). A global --budget-s stops starting runs that would not finish in time; what
was skipped is listed. A failed or timed-out run is recorded and never stops the batch.

Writes into --out: truth.json (a list, one entry per case), captures.json, meta.json, runs/
(each run's JSON), logs/, record/, kineto/, nsys/. truth.json is rewritten after every
repetition, so an interrupted batch still leaves the results so far.
"""
import argparse
import datetime
import glob
import json
import math
import os
import platform
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PYDIR = os.path.join(HERE, "python")
TRAIN = os.path.join(PYDIR, "train.py")
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, PYDIR)
import cases as C  # noqa: E402

EXIT_SKIP = 77
# Rough cost of one run on an H200 (s): process start, imports, CUDA/cuDNN init, model build,
# DataLoader workers; plus warm-up and timed steps at the expected bad-variant ms/step.
START_S = 4.0
EST_MS = {"cnn_jpeg": 45.0, "cnn_mem": 10.0, "cnn_dp": 25.0, "mlp": 10.0, "mlp_big": 35.0,
          "wide": 14.0}
TOOL_EXTRA_S = {"record": 2.0, "kineto": 4.0, "nsys": 10.0}


def log(msg):
    sys.stdout.write("[run_truth %s] %s\n" % (time.strftime("%H:%M:%S"), msg))
    sys.stdout.flush()


def percentile(values, q):
    v = sorted(values)
    if not v:
        return None
    pos = (len(v) - 1) * q
    lo, hi = int(math.floor(pos)), int(math.ceil(pos))
    return v[lo] + (v[hi] - v[lo]) * (pos - lo)


def rounded(x, nd=4):
    return None if x is None else round(x, nd)


# ----------------------------------------------------------------------------- plan

class Config:
    """One program configuration: the command line that runs it and its timed results."""

    def __init__(self, key, case, fix_args, planted, device):
        self.key, self.case, self.fix_args, self.planted = key, case, fix_args, planted
        self.workload = C.CASES[case][0]
        # The fixed twin of dp is DDP: one process per GPU under torchrun.
        self.torchrun = case in C.MULTI_GPU_CASES and "dp" not in planted and device == "cuda"
        self.runs = []  # dicts: rep, rc, ms_per_step, step_median_ms, wall_s, json, log, error
        self.display_command = " ".join(
            (["python3 -m torch.distributed.run --standalone --nproc_per_node=2"]
             if self.torchrun else ["python3"]) +
            ["bench/workloads/python/train.py", "--case", case] + fix_args)

    def ok_values(self):
        return [r["ms_per_step"] for r in self.runs if r.get("ms_per_step") is not None]


def variants(case):
    """[(variant, train.py fix arguments)] of a case: bad, fixed, and per cause for combos."""
    planted = C.CASES[case][1]
    out = [("bad", []), ("fixed", ["--fix"])]
    if len(planted) > 1:
        out += [("fix_" + c, ["--fix-causes", c]) for c in planted]
    return out


def build_plan(cases, device):
    """Returns (configs by key in first-use order, {case: {variant: key}})."""
    configs, case_map = {}, {}
    for case in cases:
        case_map[case] = {}
        for variant, fix_args in variants(case):
            planted = C.planted_after_fix(case, "--fix" in fix_args,
                                          C.parse_causes(fix_args[1]) if len(fix_args) > 1
                                          else ())
            key = C.config_key(case, planted)
            if key not in configs:
                configs[key] = Config(key, case, fix_args, planted, device)
            case_map[case][variant] = key
    return configs, case_map


def common_args(args):
    out = ["--device", args.device]
    if args.tiny:
        out.append("--tiny")
    if args.warmup is not None:
        out += ["--warmup", str(args.warmup)]
    if args.workers is not None:
        out += ["--workers", str(args.workers)]
    return out


def overrides(args, workload):
    out = []
    for item in args.set:
        name, _, kv = item.partition(".")
        if name == workload:
            out += ["--set", kv]
    return out


def train_cmd(args, cfg, extra):
    cmd = [TRAIN, "--case", cfg.case] + cfg.fix_args + common_args(args) + \
        overrides(args, cfg.workload) + extra
    if cfg.torchrun:
        return [args.python, "-m", "torch.distributed.run", "--standalone",
                "--nproc_per_node=2"] + cmd
    return [args.python] + cmd


def estimate_s(cfg, steps, tool=None, tiny=False):
    w = C.workload_params(cfg.case, tiny)
    n = w["warmup"] + (steps if steps is not None else w["steps"])
    est = START_S + n * EST_MS[cfg.workload] / 1e3 * (0.1 if tiny else 1.0)
    return est + (TOOL_EXTRA_S[tool] if tool else 0.0) + (4.0 if cfg.torchrun else 0.0)


# ----------------------------------------------------------------------------- running

class Budget:
    def __init__(self, seconds):
        self.start = time.time()
        self.deadline = self.start + seconds if seconds and seconds > 0 else None
        self.skipped = []

    def allows(self, what, est_s):
        if self.deadline is None or time.time() + est_s <= self.deadline:
            return True
        self.skipped.append(what)
        return False

    def elapsed(self):
        return time.time() - self.start


def run_process(cmd, log_path, timeout_s, env=None):
    """Runs cmd in its own process group; returns (rc or 'timeout' or 'error: ...', wall_s)."""
    t = time.time()
    try:
        with open(log_path, "wb") as out:
            out.write(("$ %s\n" % " ".join(cmd)).encode())
            out.flush()
            proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, cwd=REPO,
                                    env=env, stdin=subprocess.DEVNULL, start_new_session=True)
            try:
                rc = proc.wait(timeout=timeout_s)
            except subprocess.TimeoutExpired:
                rc = "timeout"
                for sig, grace in ((signal.SIGTERM, 10), (signal.SIGKILL, 10)):
                    try:
                        os.killpg(proc.pid, sig)  # the run's own group: DataLoader workers too
                    except ProcessLookupError:
                        break
                    try:
                        proc.wait(timeout=grace)
                        break
                    except subprocess.TimeoutExpired:
                        continue
    except OSError as exc:
        rc = "error: %s" % exc
    return rc, time.time() - t


def log_tail(path, lines=4):
    try:
        with open(path, "rb") as f:
            data = f.read()[-4000:].decode("utf-8", "replace").strip().splitlines()
        return " | ".join(data[-lines:])
    except OSError:
        return ""


def read_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def outcome(rc, json_path, log_path):
    """Normalises one run's result: status, and the train.py JSON when it succeeded."""
    data = read_json(json_path) if rc == 0 else None
    if rc == 0 and data is not None:
        return "ok", data, None
    if rc == EXIT_SKIP:
        return "skipped", None, log_tail(log_path, 1)
    if rc == 0:
        return "failed", None, "exit 0 but no JSON: " + log_tail(log_path)
    return "failed", None, "exit %s: %s" % (rc, log_tail(log_path))


def timed_run(args, cfg, rep, out, budget):
    name = "%s-r%d" % (cfg.key, rep)
    json_path = os.path.join(out, "runs", name + ".json")
    log_path = os.path.join(out, "logs", name + ".log")
    last = max([r.get("wall_s", 0) for r in cfg.runs] or [0])  # measured beats estimated
    if not budget.allows("timed %s" % name,
                         max(last, estimate_s(cfg, args.steps, tiny=args.tiny))):
        cfg.runs.append({"rep": rep, "status": "budget"})
        return
    extra = ["--json-out", json_path] + (["--steps", str(args.steps)] if args.steps else [])
    rc, wall = run_process(train_cmd(args, cfg, extra), log_path, args.timeout)
    status, data, err = outcome(rc, json_path, log_path)
    run = {"rep": rep, "status": status, "rc": rc, "wall_s": round(wall, 2),
           "log": os.path.relpath(log_path, out)}
    if data:
        run.update(ms_per_step=data["ms_per_step"], step_median_ms=data["step_ms"]["median"],
                   step_p10_ms=data["step_ms"]["p10"], step_p90_ms=data["step_ms"]["p90"],
                   startup_s=round(data["startup_s"], 2), notes=data.get("notes", []),
                   gpu=data.get("gpu"), torch=data.get("torch"),
                   json=os.path.relpath(json_path, out))
    if err:
        run["error"] = err
    cfg.runs.append(run)
    log("%-32s rep %d: %s %s (%.1f s)" % (cfg.key, rep, status,
                                           "%.3f ms/step" % data["ms_per_step"] if data else err,
                                           wall))


def nsys_env(nsys):
    """nsys's environment: its host folder (linux-desktop-*) on PATH for its helpers."""
    env = dict(os.environ)
    host = os.path.dirname(os.path.dirname(os.path.abspath(nsys)))
    for d in sorted(glob.glob(os.path.join(host, "linux-desktop-*"))):
        env["PATH"] = d + os.pathsep + env.get("PATH", "")
    return env


def capture_run(args, cfg, tool, out, budget):
    """One capture of cfg under tool; returns its record for captures.json."""
    name = cfg.key
    log_path = os.path.join(out, "logs", "%s-%s.log" % (tool, name))
    json_path = os.path.join(out, "runs", "%s-%s.json" % (tool, name))
    steps = args.capture_steps
    if not budget.allows("%s %s" % (tool, name), estimate_s(cfg, steps, tool, args.tiny)):
        return {"status": "budget"}
    extra = ["--json-out", json_path, "--steps", str(steps)]
    env, rec = None, {}
    if tool == "record":
        dest = os.path.join(out, "record", name)
        os.makedirs(dest, exist_ok=True)
        cmd = [args.stepscope, "record", "-o", dest] + args.record_args + ["--"] + \
            train_cmd(args, cfg, extra)
        rec["dir"] = os.path.relpath(dest, out)
    elif tool == "kineto":
        dest = os.path.join(out, "kineto", name + ".json.gz")
        cmd = train_cmd(args, cfg, extra + ["--profile-kineto", dest])
        rec["file"] = os.path.relpath(dest, out)
    else:
        base = os.path.join(out, "nsys", name)
        env = nsys_env(args.nsys)
        cmd = [args.nsys, "profile", "-t", "cuda,nvtx", "--sample=none", "--cpuctxsw=none",
               "--force-overwrite=true", "-o", base] + train_cmd(args, cfg, extra + ["--nvtx"])
        rec["file"] = os.path.relpath(base + ".sqlite", out)
    rc, wall = run_process(cmd, log_path, args.capture_timeout, env)
    status, data, err = outcome(rc, json_path, log_path)
    if tool == "nsys" and os.path.exists(base + ".nsys-rep"):
        erc, ewall = run_process([args.nsys, "export", "--type", "sqlite",
                                  "--force-overwrite=true", "-o", base + ".sqlite",
                                  base + ".nsys-rep"],
                                 os.path.join(out, "logs", "nsys-export-%s.log" % name),
                                 args.capture_timeout, env)
        wall += ewall
        if erc != 0:
            status, err = "failed", "nsys export exit %s" % erc
    rec.update(status=status, rc=rc, wall_s=round(wall, 2), log=os.path.relpath(log_path, out))
    if data:
        rec["ms_per_step"] = data["ms_per_step"]
    if err:
        rec["error"] = err
    path = os.path.join(out, rec.get("dir") or rec.get("file", ""))
    rec["bytes"] = dir_bytes(path)
    log("%-7s %-32s %s (%.1f s)" % (tool, name, status if not err else err, wall))
    return rec


def dir_bytes(path):
    if os.path.isfile(path):
        return os.path.getsize(path)
    total = 0
    for root, _, files in os.walk(path):
        total += sum(os.path.getsize(os.path.join(root, f)) for f in files)
    return total


# ----------------------------------------------------------------------------- truth

def summary(cfg):
    vals = cfg.ok_values()
    return {
        "config": cfg.key, "command": cfg.display_command,
        "torchrun": cfg.torchrun,
        "median_ms": rounded(percentile(vals, 0.5)), "p10": rounded(percentile(vals, 0.1)),
        "p90": rounded(percentile(vals, 0.9)), "min": rounded(min(vals) if vals else None),
        "max": rounded(max(vals) if vals else None),
        "runs": [rounded(v) for v in vals],
        # the repetition of each run: bad and fixed of one repetition ran back to back, so
        # their difference is one paired saving (tests/accuracy/accuracy.py's uncertainty)
        "reps": [r["rep"] for r in cfg.runs if r.get("ms_per_step") is not None],
        "step_median_ms": [rounded(r.get("step_median_ms")) for r in cfg.runs
                           if r.get("ms_per_step") is not None],
        "n_ok": len(vals), "n_failed": sum(r["status"] == "failed" for r in cfg.runs),
        "n_budget_skipped": sum(r["status"] == "budget" for r in cfg.runs),
        "errors": [r["error"] for r in cfg.runs if r.get("error")][:3],
    }


def case_truth(case, keys, configs, single_threshold, combo_ratio):
    planted = list(C.CASES[case][1])
    entry = {"case": case, "workload": C.CASES[case][0], "planted": planted,
             "what": {c: {"planted": C.DESCRIPTIONS[c][0], "fix": C.DESCRIPTIONS[c][1]}
                      for c in planted}}
    bad, fixed = configs[keys["bad"]], configs[keys["fixed"]]
    if bad.runs and all(r["status"] == "skipped" for r in bad.runs):
        entry["skipped"] = bad.runs[0].get("error") or "skipped"
        return entry
    entry["bad"], entry["fixed"] = summary(bad), summary(fixed)
    b, f = entry["bad"]["median_ms"], entry["fixed"]["median_ms"]
    if b is None or f is None:
        entry["check"] = {"ok": False, "why": "no successful runs of bad or fixed"}
        return entry
    entry["saving_ms"], entry["speedup"] = rounded(b - f), rounded(b / f)
    if not planted:
        entry["note"] = "bad and fixed are the same program: its spread is run-to-run noise"
        entry["check"] = {"ok": True, "spread": rounded((entry["bad"]["p90"] -
                                                          entry["bad"]["p10"]) / b)}
        return entry
    ok = b / f >= single_threshold
    entry["check"] = {"ok": ok, "rule": "speedup >= %.2f" % single_threshold}
    if len(planted) > 1:
        per = {}
        for c in planted:
            one = summary(configs[keys["fix_" + c]])
            m = one["median_ms"]
            per[c] = {"config": keys["fix_" + c], "median_ms": m,
                      "runs": one["runs"], "reps": one["reps"],
                      "saving_ms": rounded(b - m) if m is not None else None,
                      "speedup": rounded(b / m) if m else None}
        entry["per_cause"] = per
        ranked = sorted(planted, key=lambda c: float("inf") if per[c]["saving_ms"] is None
                        else -per[c]["saving_ms"])
        entry["rank"] = ranked
        top, second = per[ranked[0]]["saving_ms"], per[ranked[1]]["saving_ms"]
        ratio = top / second if top is not None and second and second > 0 else None
        entry["saving_ratio"] = rounded(ratio)
        entry["check"] = {"ok": ok and ratio is not None and ratio >= combo_ratio,
                          "rule": "speedup >= %.2f and top/second cause saving >= %.1f"
                                  % (single_threshold, combo_ratio)}
    return entry


def write_json(path, data):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(data, f, indent=1)
    os.replace(tmp, path)


def write_truth(out, cases, case_map, configs, args, skipped_cases):
    truth = [case_truth(c, case_map[c], configs, args.min_speedup, args.min_combo_ratio)
             for c in cases]
    truth += [{"case": c, "planted": list(C.CASES[c][1]), "skipped": why}
              for c, why in skipped_cases.items()]
    write_json(os.path.join(out, "truth.json"), truth)
    return truth


# ----------------------------------------------------------------------------- packing

PACK_PART = 15 * 1024 * 1024  # parts small enough to copy back from the GPU machine one by one


def pack(out, dest):
    """Packs the results into a few .tar.xz archives in dest (split into .partNN files past
    15 MiB): truth (JSON, per-run JSON and logs), record, kineto, nsys (SQLite exports only).
    Returns the paths written."""
    import tarfile
    groups = [("truth", ["truth.json", "captures.json", "meta.json", "meta-captures.json",
                         "runs", "logs"]),
              ("record", ["record"]), ("kineto", ["kineto"]),
              ("nsys", sorted(os.path.relpath(p, out)
                              for p in glob.glob(os.path.join(out, "nsys", "*.sqlite"))))]
    os.makedirs(dest, exist_ok=True)
    written = []
    for name, members in groups:
        members = [m for m in members if os.path.exists(os.path.join(out, m))
                   and dir_bytes(os.path.join(out, m)) > 0]
        if not members:
            continue
        path = os.path.join(dest, name + ".tar.xz")
        with tarfile.open(path, "w:xz") as tar:
            for m in members:
                tar.add(os.path.join(out, m), arcname=m)
        written += split_file(path)
    if len(written) > 8:
        log("WARNING: %d packed files (more than 8)" % len(written))
    return written


def split_file(path):
    size = os.path.getsize(path)
    if size <= PACK_PART:
        return [path]
    parts = []
    with open(path, "rb") as f:
        for i in range(int(math.ceil(size / PACK_PART))):
            part = "%s.part%02d" % (path, i)
            with open(part, "wb") as g:
                g.write(f.read(PACK_PART))
            parts.append(part)
    os.remove(path)
    return parts


# ----------------------------------------------------------------------------- main

def gpu_count(args):
    if args.device != "cuda":
        return 0
    try:
        res = subprocess.run([args.python, "-c", "import torch; print(torch.cuda.device_count())"],
                             capture_output=True, text=True, timeout=120)
        return int(res.stdout.strip().splitlines()[-1])
    except (OSError, ValueError, IndexError, subprocess.TimeoutExpired):
        return 0


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", help="comma list (default: all; dp only with 2+ GPUs)")
    ap.add_argument("--reps", type=int, default=5, help="0: captures only")
    ap.add_argument("--quick", action="store_true", help="3 repetitions")
    ap.add_argument("--out", default=os.path.join(HERE, "out"))
    ap.add_argument("--python", default=sys.executable, help="python that has torch")
    ap.add_argument("--device", default="cuda", choices=["cuda", "cpu"])
    ap.add_argument("--tiny", action="store_true", help="tiny sizes (CPU smoke test)")
    ap.add_argument("--steps", type=int, help="timed steps per run (default: per workload)")
    ap.add_argument("--warmup", type=int)
    ap.add_argument("--workers", type=int)
    ap.add_argument("--set", action="append", default=[], metavar="WORKLOAD.KEY=VALUE",
                    help="size override for one workload's runs, e.g. cnn_jpeg.batch=128")
    ap.add_argument("--timeout", type=float, default=120.0, help="per timed run (s)")
    ap.add_argument("--record", action="store_true", help="capture under stepscope record")
    ap.add_argument("--stepscope", default=os.path.join(REPO, "build", "stepscope"))
    ap.add_argument("--record-args", default="", help="extra `stepscope record` options")
    ap.add_argument("--kineto", action="store_true", help="capture with torch.profiler")
    ap.add_argument("--nsys", metavar="PATH", help="capture with this nsys (-t cuda,nvtx)")
    ap.add_argument("--capture-cases", help="capture only these cases (default: all run)")
    ap.add_argument("--capture-steps", type=int, default=20)
    ap.add_argument("--capture-timeout", type=float, default=240.0)
    ap.add_argument("--budget-s", type=float, default=550.0,
                    help="start no run that would end later than this (0: no limit)")
    ap.add_argument("--min-speedup", type=float, default=1.3)
    ap.add_argument("--min-combo-ratio", type=float, default=2.0)
    ap.add_argument("--pack", metavar="DIR",
                    help="at the end, pack the results into a few .tar.xz files in DIR "
                         "(parts of at most 15 MiB)")
    ap.add_argument("--dry-run", action="store_true", help="print the plan and exit")
    args = ap.parse_args(argv)
    if args.quick:
        args.reps = 3
    args.record_args = args.record_args.split()
    for item in args.set:
        name, dot, kv = item.partition(".")
        if not dot or name not in C.WORKLOADS or "=" not in kv:
            ap.error("--set %r: expected WORKLOAD.KEY=VALUE, WORKLOAD one of %s"
                     % (item, ", ".join(C.WORKLOADS)))
        try:
            C.apply_overrides(dict(C.WORKLOADS[name]), [kv])
        except ValueError as exc:
            ap.error("--set %s" % exc)
    if args.record and not os.access(args.stepscope, os.X_OK):
        ap.error("--record: %s is not an executable (give --stepscope PATH)" % args.stepscope)
    if args.nsys and not os.access(args.nsys, os.X_OK):
        ap.error("--nsys: %s is not an executable" % args.nsys)
    return args


def choose_cases(args):
    wanted = args.cases.split(",") if args.cases else list(C.CASES)
    for c in wanted:
        if c not in C.CASES:
            sys.exit("run_truth.py: unknown case %r (known: %s)" % (c, ", ".join(C.CASES)))
    skipped = {}
    if args.device == "cuda" and any(c in C.MULTI_GPU_CASES for c in wanted):
        n = gpu_count(args)
        if n < 2:
            for c in C.MULTI_GPU_CASES:
                if c in wanted:
                    skipped[c] = "skipped: needs 2 GPUs, found %d" % n
            wanted = [c for c in wanted if c not in C.MULTI_GPU_CASES]
    return wanted, skipped


def plan_estimate(args, configs, captures):
    """{'timed': s, tool: s, ...} from the rough per-run costs above."""
    timed = sum(estimate_s(cfg, args.steps, tiny=args.tiny) for cfg in configs.values())
    parts = {"timed": timed * args.reps}
    for tool in captures:
        parts[tool] = sum(estimate_s(cfg, args.capture_steps, tool, args.tiny)
                          for cfg in captures[tool])
    return parts


def main(argv=None):
    args = parse_args(argv)
    cases, skipped_cases = choose_cases(args)
    configs, case_map = build_plan(cases, args.device)
    capture_keys = []
    for c in (args.capture_cases.split(",") if args.capture_cases else cases):
        if c not in case_map:
            sys.exit("run_truth.py: --capture-cases: %r is not among the cases run" % c)
        for v in ("bad", "fixed"):
            if case_map[c][v] not in capture_keys:
                capture_keys.append(case_map[c][v])
    tools = [t for t, on in (("record", args.record), ("kineto", args.kineto),
                             ("nsys", bool(args.nsys))) if on]
    captures = {t: [configs[k] for k in capture_keys] for t in tools}
    parts = plan_estimate(args, configs, captures)
    est = sum(parts.values())
    if args.reps < 0:
        sys.exit("run_truth.py: --reps must be >= 0")
    log("%d cases, %d configurations x %d reps, captures: %s; estimated %.0f s (%s; budget %s)"
        % (len(cases), len(configs), args.reps, ",".join(tools) or "none", est,
           ", ".join("%s %.0f s" % kv for kv in parts.items()),
           "%.0f s" % args.budget_s if args.budget_s else "none"))
    for key, cfg in configs.items():
        log("  %-32s %s" % (key, " ".join(train_cmd(args, cfg, []))))
    for c, why in skipped_cases.items():
        log("  case %s %s" % (c, why))
    if args.dry_run:
        return 0
    out = os.path.abspath(args.out)
    for sub in ("runs", "logs", "record", "kineto", "nsys"):
        os.makedirs(os.path.join(out, sub), exist_ok=True)
    budget = Budget(args.budget_s)
    meta = {"started": datetime.datetime.now().isoformat(timespec="seconds"),
            "host": platform.node(), "argv": sys.argv, "reps": args.reps,
            "device": args.device, "estimated_s": round(est), "skipped_cases": skipped_cases}
    write_json(os.path.join(out, "meta%s.json" % ("" if args.reps > 0 else "-captures")), meta)

    by_workload = {}
    for cfg in configs.values():
        by_workload.setdefault(cfg.workload, []).append(cfg)
    for rep in range(1, args.reps + 1):
        for group in by_workload.values():
            for cfg in group:
                try:
                    timed_run(args, cfg, rep, out, budget)
                except Exception as exc:  # noqa: BLE001 - never abort the batch
                    cfg.runs.append({"rep": rep, "status": "failed", "error": repr(exc)})
        write_truth(out, cases, case_map, configs, args, skipped_cases)

    results = read_json(os.path.join(out, "captures.json")) or {}  # a second batch adds to it
    for tool in tools:
        results.setdefault(tool, {})
        for cfg in captures[tool]:
            try:
                results[tool][cfg.key] = capture_run(args, cfg, tool, out, budget)
            except Exception as exc:  # noqa: BLE001
                results[tool][cfg.key] = {"status": "failed", "error": repr(exc)}
            write_json(os.path.join(out, "captures.json"), results)

    truth = None
    if args.reps > 0:  # --reps 0 (captures only) leaves an earlier truth.json alone
        truth = write_truth(out, cases, case_map, configs, args, skipped_cases)
    meta.update(finished=datetime.datetime.now().isoformat(timespec="seconds"),
                elapsed_s=round(budget.elapsed()), skipped_for_budget=budget.skipped,
                gpu=next((r.get("gpu") for cfg in configs.values() for r in cfg.runs
                          if r.get("gpu")), None),
                torch=next((r.get("torch") for cfg in configs.values() for r in cfg.runs
                            if r.get("torch")), None))
    write_json(os.path.join(out, "meta%s.json" % ("" if args.reps > 0 else "-captures")), meta)
    if truth is not None:
        print_table(truth)
    log("done in %.0f s; %d runs skipped for the budget; results in %s"
        % (budget.elapsed(), len(budget.skipped), out))
    if args.pack:
        try:
            for path in pack(out, args.pack):
                log("packed %s (%d KiB)" % (path, os.path.getsize(path) >> 10))
        except (OSError, EOFError) as exc:
            log("packing failed: %s" % exc)
            return 1
    return 0


def print_table(truth):
    print("%-12s %-24s %10s %10s %9s %8s  %s" % ("case", "planted", "bad ms", "fixed ms",
                                                 "saving", "speedup", "check"))
    for e in truth:
        if "bad" not in e:
            print("%-12s %-24s %s" % (e["case"], ",".join(e["planted"]) or "-",
                                      e.get("skipped", "no result")))
            continue
        fmt = lambda x: "-" if x is None else "%.3f" % x  # noqa: E731
        extra = ""
        if "per_cause" in e:
            extra = " rank " + ">".join("%s(%s)" % (c, fmt(e["per_cause"][c]["saving_ms"]))
                                        for c in e["rank"])
        print("%-12s %-24s %10s %10s %9s %8s  %s%s" % (
            e["case"], ",".join(e["planted"]) or "-", fmt(e["bad"]["median_ms"]),
            fmt(e["fixed"]["median_ms"]), fmt(e.get("saving_ms")), fmt(e.get("speedup")),
            "ok" if e.get("check", {}).get("ok") else "CHECK", extra))


if __name__ == "__main__":
    sys.exit(main())
