"""Collector overhead benchmark (issue #3), run on the GPU machine.

For each workload (launch-bound CNN, GPU-bound bf16 model) it runs every configuration in
turn, interleaved, --reps times (the order is rotated each repetition so no configuration
always runs first), and reports the median and spread of ms/step and of the ratio to the
plain run of the same repetition:

  plain       the program alone
  full        stepscope record --mode full
  light       stepscope record --mode light
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
              launches per step — docs/benchmarks.md, "Per-launch cost"). The windows after
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

Usage: python3 bench/overhead/run_overhead.py --stepscope build/stepscope
           --floor build/libcupti_floor.so [--nsys PATH] [--reps 5] [--out results.json]
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.join(HERE, "models.py")


WARMUP = 30  # models.py's default --warmup
ALL_KINDS = "kernel,overhead,memcpy,memset,sync,memory,runtime,driver"


def command(config, workload, args, scratch):
    prog = [sys.executable, MODELS, "--workload", workload, "--steps", str(args.steps[workload]),
            "--windows", str(args.windows)] + (["--pin-main"] if args.pin_main else [])
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
    if config == "plain":
        return prog, env
    if config == "full":
        return rec + ["--mode", "full", "--"] + prog, env
    if config == "light":
        return rec + ["--mode", "light", "--"] + prog, env
    if config.startswith("light-no-"):
        # light mode with some CUPTI kinds left off: which kind costs what
        off = config[len("light-no-"):]
        env["STEPSCOPE_CUPTI_OFF"] = ALL_KINDS if off == "all" else off.replace("+", ",")
        return rec + ["--mode", "light", "--"] + prog, env
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
    if config == "floor":
        env["CUDA_INJECTION64_PATH"] = args.floor
        return prog, env
    if config == "torchprof":
        return prog + ["--torch-profiler"], env
    if config == "nsys":
        out = os.path.join(scratch, "nsys-%s" % workload)
        return [args.nsys, "profile", "-t", "cuda,nvtx", "--sample=none", "--cpuctxsw=none",
                "--force-overwrite=true", "-o", out] + prog, env
    raise ValueError(config)


def run_once(config, workload, args):
    scratch = tempfile.mkdtemp(prefix="ssbench-")
    try:
        cmd, env = command(config, workload, args, scratch)
        if args.taskset:
            # Every configuration on the same cores: the stepscope CLI, the program and its
            # threads (the collector's writer among them) inherit the affinity.
            cmd = ["taskset", "-c", args.taskset] + cmd
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
        for line in p.stdout.splitlines():
            if line.startswith("{") and "ms_per_step" in line:
                rec = json.loads(line)
                args.raw.append(dict(rec, config=config))  # windows kept for the record
                return rec["ms_per_step"]
        sys.stderr.write("%s/%s failed (rc %d): %s\n" % (workload, config, p.returncode,
                                                        p.stderr[-2000:]))
        return None
    except subprocess.TimeoutExpired:
        sys.stderr.write("%s/%s timed out\n" % (workload, config))
        return None
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


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
                lines.append("| %s | %s | failed | |" % (workload, config))
                continue
            lines.append("| %s | %s | %.3f (%.3f–%.3f) | %.3f (%.3f–%.3f) |" % (
                workload, config, r["ms_median"], r["ms_min"], r["ms_max"],
                r["ratio_median"], r["ratio_min"], r["ratio_max"]))
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--stepscope", required=True)
    ap.add_argument("--floor", required=True)
    ap.add_argument("--nsys")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--workloads", default="cnn,gpu")
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
    ap.add_argument("--budget-s", type=float, default=0,
                    help="start no repetition after this many seconds (0: no limit)")
    args = ap.parse_args()
    args.deadline = time.time() + args.budget_s if args.budget_s else 0
    args.steps = {"cnn": args.cnn_steps, "gpu": args.gpu_steps, "launch": args.launch_steps}
    args.raw = []
    configs = ["plain", "full", "light", "outside", "floor", "torchprof"]
    if args.nsys:
        configs.append("nsys")
    if args.configs:
        configs = args.configs.split(",")
    results = {}
    for w in args.workloads.split(","):
        start = len(args.raw)
        results[w] = bench_workload(w, configs, args)
        for c in configs:
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
    table = markdown(results)
    print(table)
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"results": results, "table": table, "runs": args.raw,
                       "argv": sys.argv[1:]}, f, indent=1)


if __name__ == "__main__":
    main()
