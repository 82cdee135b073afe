#!/usr/bin/env python3
"""What the Python shim's stack sampler (python/stepscope/_pysampler.py) costs a training step.

Two measurements, both under `stepscope record` (the sampler only runs inside a recording):

  inproc   ONE process, the sampler switched off and on in windows of --steps steps, in ABBA
           blocks (off on on off), so slow drift cancels: per block, the mean ms/step of its two
           "on" windows over its two "off" windows. Free of process-to-process noise; what it
           leaves out is start-up (the sampler finding the collector). Paused, the sampler
           wakes every 50 ms and samples nothing.
  procs    separate processes, STEPSCOPE_HOST_SAMPLES=off and =HZ, order rotated each
           repetition: per repetition, median ms/step with samples over without.

Each result: median, min, max and quartiles of the ratios, the ms/step behind them, and what the
sampler says about itself (mean µs per sample taken with the GIL held, mean lateness lag_us —
the wait for the GIL — and samples per second achieved).

Workloads (CPU torch unless --device cuda): `mlp` (a small MLP fed by a DataLoader: GIL mostly
released inside ops), `pyloop` (many tiny ops per step: the training thread needs the GIL all
the time, the sampler's worst case), `cnn` (a small CNN; on CUDA it is launch-bound).

usage: host_sampler_bench.py --stepscope build/stepscope [--python python3] [--mode inproc,procs]
           [--workloads mlp,pyloop] [--hz 100] [--blocks 6] [--steps 40] [--reps 3]
           [--threads 1] [--device cpu] [--out results.json]
The child side (run by the parent under `stepscope record`): host_sampler_bench.py --child ...
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

HERE = os.path.abspath(__file__)
WARMUP_STEPS = 20


# ---- child: the training program ----

def build(workload, device):
    import torch
    import torch.nn as nn

    if workload == "mlp":
        model = nn.Sequential(nn.Linear(128, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(),
                              nn.Linear(256, 10))
        data = [(torch.randn(128), i % 10) for i in range(4096)]
        loader = torch.utils.data.DataLoader(data, batch_size=32, shuffle=True)
    elif workload == "pyloop":
        model = nn.Sequential(*[nn.Linear(16, 16) for _ in range(60)])
        data = [(torch.randn(16), i % 10) for i in range(4096)]
        loader = torch.utils.data.DataLoader(data, batch_size=8)
    elif workload == "cnn":
        model = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
            nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
            nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, 10))
        data = [(torch.randn(3, 32, 32), i % 10) for i in range(2048)]
        loader = torch.utils.data.DataLoader(data, batch_size=32)
    else:
        raise SystemExit("unknown workload " + workload)
    model = model.to(device)
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    return model, opt, loader


def batches(loader):
    while True:
        for b in loader:
            yield b


def step(torch, model, opt, batch, device):
    x, y = batch
    x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
    out = model(x)
    if out.shape[-1] != 10:  # pyloop's 16 outputs
        out = out[..., :10]
    loss = torch.nn.functional.cross_entropy(out, y)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()


def timed_window(torch, model, opt, it, steps, device):
    sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)
    sync()
    t0 = time.perf_counter()
    for _ in range(steps):
        step(torch, model, opt, next(it), device)
    sync()
    return (time.perf_counter() - t0) * 1e3 / steps


def wait_for_sampler(timeout_s=20.0):
    """The shim's sampler once it samples (it waits for the collector to record first)."""
    from stepscope import _pysampler

    end = time.time() + timeout_s
    while time.time() < end:
        s = _pysampler.SAMPLER
        if s is not None and s.ticks > 0:
            return s
        time.sleep(0.05)
    return _pysampler.SAMPLER


def sampler_stats(s, seconds):
    if s is None or not s.ticks:
        return {"ticks": 0}
    return {"ticks": s.ticks, "busy_us_per_tick": s.busy_ns / s.ticks / 1e3,
            "lag_us_mean": s.lag_us_total / s.ticks, "ticks_per_s": s.ticks / seconds}


def child(args):
    import torch

    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    model, opt, loader = build(args.workload, args.device)
    it = batches(loader)
    timed_window(torch, model, opt, it, WARMUP_STEPS, args.device)  # the collector loads here
    s = wait_for_sampler() if args.sampling else None
    result = {"workload": args.workload, "pid": os.getpid()}
    t0 = time.time()
    if args.child == "inproc":
        if s is None or not s.ticks:
            raise SystemExit("the sampler never started: nothing to compare")
        windows = []
        for block in range(args.blocks):
            for on in (False, True, True, False):
                s.set_paused(not on)
                time.sleep(0.06)  # the sampler sees the switch before the window starts
                windows.append((on, timed_window(torch, model, opt, it, args.steps, args.device)))
        s.set_paused(False)
        result["windows"] = windows
    else:
        ms = [timed_window(torch, model, opt, it, args.steps, args.device)
              for _ in range(args.blocks * 4)]
        result["ms_per_step"] = statistics.median(ms)
        result["windows_ms"] = ms
    result["sampler"] = sampler_stats(s, time.time() - t0)
    print(json.dumps(result), flush=True)


# ---- parent ----

def spread(values):
    vals = sorted(v for v in values if v is not None)
    if not vals:
        return None
    q = statistics.quantiles(vals, n=4) if len(vals) >= 2 else [vals[0]] * 3
    return {"median": statistics.median(vals), "min": vals[0], "max": vals[-1],
            "q1": q[0], "q3": q[2], "n": len(vals)}


def run_child(args, mode, workload, hz):
    scratch = tempfile.mkdtemp(prefix="ss-hsbench-")
    env = dict(os.environ, STEPSCOPE_HOST_SAMPLES=str(hz) if hz else "off", PYTHONHASHSEED="0")
    cmd = [args.stepscope, "record", "-q", "--no-report", "-o", scratch, "--",
           args.python, HERE, "--child", mode, "--workload", workload, "--steps", str(args.steps),
           "--blocks", str(args.blocks), "--threads", str(args.threads), "--device", args.device]
    if hz:
        cmd.append("--sampling")
    if args.taskset:
        cmd = ["taskset", "-c", args.taskset] + cmd
    try:
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=args.timeout)
        for line in p.stdout.splitlines():
            if line.startswith("{"):
                rec = json.loads(line)
                rec["trace_bytes"] = sum(os.path.getsize(os.path.join(scratch, f))
                                         for f in os.listdir(scratch))
                return rec
        sys.stderr.write("%s/%s hz=%s failed (rc %d): %s\n" % (mode, workload, hz, p.returncode,
                                                             p.stderr[-1500:]))
    except subprocess.TimeoutExpired:
        sys.stderr.write("%s/%s hz=%s timed out\n" % (mode, workload, hz))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return None


def abba_ratios(windows):
    """Per block of 4 windows (off on on off): mean on / mean off."""
    out = []
    for i in range(0, len(windows) - 3, 4):
        block = windows[i:i + 4]
        on = [ms for flag, ms in block if flag]
        off = [ms for flag, ms in block if not flag]
        out.append(statistics.mean(on) / statistics.mean(off))
    return out


def bench_inproc(args, workload):
    ratios, on_ms, off_ms, stats = [], [], [], []
    for rep in range(args.reps):
        rec = run_child(args, "inproc", workload, args.hz)
        if rec is None:
            continue
        ratios += abba_ratios(rec["windows"])
        on_ms += [ms for flag, ms in rec["windows"] if flag]
        off_ms += [ms for flag, ms in rec["windows"] if not flag]
        stats.append(rec["sampler"])
        print("inproc %s rep %d: ratio median %.4f, sampler %s" % (
            workload, rep, statistics.median(abba_ratios(rec["windows"])),
            json.dumps(rec["sampler"])), flush=True)
    return {"ratio_on_over_off": spread(ratios), "ms_on": spread(on_ms),
            "ms_off": spread(off_ms), "sampler": stats}


def bench_procs(args, workload):
    ratios, runs = [], []
    for rep in range(args.reps):
        order = [args.hz, 0] if rep % 2 else [0, args.hz]
        got = {hz: run_child(args, "procs", workload, hz) for hz in order}
        on, off = got[args.hz], got[0]
        runs.append({"on": on, "off": off})
        if on and off:
            ratios.append(on["ms_per_step"] / off["ms_per_step"])
            print("procs %s rep %d: on %.3f off %.3f ms/step ratio %.4f, trace %d vs %d B" % (
                workload, rep, on["ms_per_step"], off["ms_per_step"], ratios[-1],
                on["trace_bytes"], off["trace_bytes"]), flush=True)
    return {"ratio_on_over_off": spread(ratios),
            "ms_on": spread([r["on"]["ms_per_step"] for r in runs if r["on"]]),
            "ms_off": spread([r["off"]["ms_per_step"] for r in runs if r["off"]]),
            "sampler": [r["on"]["sampler"] for r in runs if r["on"]],
            "trace_bytes_on": spread([r["on"]["trace_bytes"] for r in runs if r["on"]]),
            "trace_bytes_off": spread([r["off"]["trace_bytes"] for r in runs if r["off"]])}


def parse(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--child", choices=["inproc", "procs"])
    ap.add_argument("--sampling", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--stepscope", default="build/stepscope")
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--mode", default="inproc,procs")
    ap.add_argument("--workloads", default="mlp,pyloop")
    ap.add_argument("--workload", default="mlp")
    ap.add_argument("--hz", type=int, default=100)
    ap.add_argument("--blocks", type=int, default=6, help="ABBA blocks (4 windows each)")
    ap.add_argument("--steps", type=int, default=40, help="steps per window")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--threads", type=int, default=1, help="torch.set_num_threads")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--taskset", default="")
    ap.add_argument("--timeout", type=int, default=600)
    ap.add_argument("--out", default="")
    return ap.parse_args(argv)


def main(argv):
    args = parse(argv)
    if args.child:
        return child(args)
    results = {"hz": args.hz, "python": args.python, "device": args.device,
               "threads": args.threads, "steps_per_window": args.steps, "blocks": args.blocks,
               "reps": args.reps, "started": time.strftime("%Y-%m-%d %H:%M:%S"), "workloads": {}}
    for workload in args.workloads.split(","):
        res = results["workloads"].setdefault(workload, {})
        if "inproc" in args.mode:
            res["inproc"] = bench_inproc(args, workload)
        if "procs" in args.mode:
            res["procs"] = bench_procs(args, workload)
    text = json.dumps(results, indent=1)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    for workload, res in results["workloads"].items():
        for mode, r in res.items():
            q = r["ratio_on_over_off"]
            if q:
                print("%-7s %-6s on/off median %.4f (IQR %.4f-%.4f, min %.4f max %.4f, n=%d)" % (
                    workload, mode, q["median"], q["q1"], q["q3"], q["min"], q["max"], q["n"]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
