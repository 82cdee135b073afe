"""Shared plumbing of the framework and host-time workloads (bench/workloads/frameworks/,
bench/workloads/host/): arguments, device, the timed window, the result line.

Conventions (the same as bench/overhead/models.py and bench/workloads/python/train.py):

- every program prints exactly one JSON line on stdout that starts with '{' and holds
  "ms_per_step" (run_overhead.py and run_twins.py parse it), and writes the same object to
  --json-out when given;
- ms_per_step = wall time of the timed steps / steps, with one synchronize before the first
  and one after the last timed step — never per step, which would itself be a sync point that
  hides the plants; step_ms are host-side perf_counter intervals between step ends (no sync):
  they show spread, not GPU time;
- warm-up steps (cuDNN/cuBLAS init, compilation, graph capture, workers starting) are untimed;
- --fix runs the fixed twin; --device cpu --tiny is the CPU smoke test; a path that needs what
  is not there (CUDA graphs on the CPU) prints "skipped: ..." and exits 77;
- --torch-profiler wraps the timed steps in torch.profiler (CPU + CUDA activities) the way
  users run it, so its cost is measured on the same program, and reports how many GPU
  kernels it recorded (a profiler that recorded nothing must not look cheap).

- BENCH_STAIRS="K0|K1|K2|..." (with bench/overhead/cupti_floor.c injected): the timed steps are
  cut into as many stairs; K0 names what was on from the start, and at each later stair the
  program synchronizes and asks the floor client to switch K1, K2, ... on as well
  (cupti_floor_stair). The result's "stairs" time each one (its first STAIR_SKIP steps left out:
  CUPTI instruments on the first launches after a switch), so consecutive stairs of one process
  give what each kind adds (bench/overhead/stairs.py).

None of these programs imports stepscope.
"""
import json
import math
import os
import sys
import time

EXIT_SKIP = 77
EXIT_USAGE = 2

# When the interpreter started (the harness is imported before torch by every program):
# startup_s = the time from here to the first timed step.
T_PROCESS = time.perf_counter()


def parser(description, steps, warmup):
    """The common options; steps/warmup None: the program fills them in per case."""
    import argparse
    ap = argparse.ArgumentParser(description=description)
    def default(n):
        return "per case" if n is None else n
    ap.add_argument("--steps", type=int, default=steps,
                    help="timed steps (default %s)" % default(steps))
    ap.add_argument("--warmup", type=int, default=warmup,
                    help="untimed steps first (default %s)" % default(warmup))
    ap.add_argument("--fix", action="store_true", help="run the fixed twin")
    ap.add_argument("--device", default="cuda", choices=["cuda", "cpu"])
    ap.add_argument("--tiny", action="store_true", help="tiny sizes (CPU smoke test)")
    ap.add_argument("--json-out", help="also write the result object here")
    ap.add_argument("--torch-profiler", action="store_true",
                    help="torch.profiler (CPU + CUDA) around the timed steps")
    ap.add_argument("--torch-profiler-out", metavar="PATH",
                    help="with --torch-profiler: export its trace (Kineto JSON) to PATH")
    return ap


def check_counts(args):
    if args.steps < 1 or args.warmup < 0:
        fail("--steps must be >= 1 and --warmup >= 0")


def fail(msg, code=EXIT_USAGE):
    sys.stderr.write("%s: %s\n" % (os.path.basename(sys.argv[0]), msg))
    sys.exit(code)


def skip(msg):
    print("skipped: %s" % msg, flush=True)
    sys.exit(EXIT_SKIP)


def device(args):
    import torch
    if args.device == "cuda" and not torch.cuda.is_available():
        fail("no CUDA device (use --device cpu)")
    return torch.device(args.device)


def synchronize(dev):
    import torch
    if dev.type == "cuda":
        torch.cuda.synchronize(dev)


def count_profiled_kernels(prof):
    """GPU kernels in a finished torch.profiler session (None when the API is not there)."""
    try:
        events = prof.profiler.kineto_results.events()
    except AttributeError:
        return None
    from torch.autograd import DeviceType
    n = 0
    for e in events:
        if e.device_type() == DeviceType.CUDA and not e.name().startswith(("Memcpy", "Memset")):
            n += 1
    return n


STAIR_SKIP = 3


class Stairs:
    """BENCH_STAIRS: more CUPTI kinds switched on at fixed step counts (see the module's
    docstring). Each stair's time is measured between two synchronizes."""

    def __init__(self, spec, steps, dev):
        import ctypes
        self.kinds = [k for k in spec.split("|")]
        self.per = max(STAIR_SKIP + 2, steps // len(self.kinds))
        self.dev = dev
        lib = ctypes.CDLL(os.environ["CUDA_INJECTION64_PATH"])  # the floor, already loaded
        self.switch = lib.cupti_floor_stair
        self.switch.argtypes = [ctypes.c_char_p]
        self.done, self.index, self.count, self.t_skip = [], 0, 0, None

    def step(self):
        """After each timed step: the stair's clock, and the next stair's switch when this
        step ended one (the step marks then hold the synchronize and the switch)."""
        self.count += 1
        if self.count == STAIR_SKIP:
            synchronize(self.dev)
            self.t_skip = time.perf_counter()
        if self.count < self.per or self.index + 1 >= len(self.kinds):
            return
        self.close()
        self.index += 1
        self.switch(self.kinds[self.index].encode())
        self.count, self.t_skip = 0, None

    def close(self):
        synchronize(self.dev)
        t = time.perf_counter()
        if self.t_skip is not None and self.count > STAIR_SKIP:
            self.done.append({"kinds": self.kinds[self.index], "steps": self.count - STAIR_SKIP,
                              "ms_per_step": (t - self.t_skip) * 1e3 / (self.count - STAIR_SKIP)})


class Clock:
    """The timed window: start() after the warm-up steps, step() at the end of each timed step,
    stop() after the last. One synchronize at start and one at stop."""

    def __init__(self, args, dev):
        self.args, self.dev = args, dev
        self.t0 = self.t1 = None
        self.marks = []
        self.prof = None
        self.profiled_kernels = None
        spec = os.environ.get("BENCH_STAIRS")
        self.stairs = Stairs(spec, args.steps, dev) if spec else None

    def start(self):
        synchronize(self.dev)
        if self.args.torch_profiler:
            from torch.profiler import ProfilerActivity, profile
            acts = [ProfilerActivity.CPU]
            if self.dev.type == "cuda":
                acts.append(ProfilerActivity.CUDA)
            self.prof = profile(activities=acts)
            self.prof.__enter__()
        self.t0 = time.perf_counter()
        self.marks = [self.t0]

    def step(self):
        if self.t0 is not None and self.t1 is None:
            self.marks.append(time.perf_counter())
            if self.stairs:
                self.stairs.step()

    def stop(self):
        synchronize(self.dev)
        self.t1 = time.perf_counter()
        if self.stairs:
            self.stairs.close()
        if self.prof is not None:
            self.prof.__exit__(None, None, None)
            self.profiled_kernels = count_profiled_kernels(self.prof)
            if getattr(self.args, "torch_profiler_out", None):
                self.prof.export_chrome_trace(self.args.torch_profiler_out)

    @property
    def started(self):
        return self.t0 is not None

    def window_s(self):
        if self.t0 is None or self.t1 is None:
            raise RuntimeError("the timed window was not closed (fewer steps ran than asked?)")
        return self.t1 - self.t0


def percentile(values, q):
    v = sorted(values)
    if not v:
        return None
    pos = (len(v) - 1) * q
    lo, hi = int(math.floor(pos)), int(math.ceil(pos))
    return v[lo] + (v[hi] - v[lo]) * (pos - lo)


def finish(args, program, clock, planted, fix, **extra):
    """Prints the result line (and writes --json-out). planted: what the bad twin plants;
    fix: what the fixed twin does instead (both None for a program without twins: its variant
    is "plain"). extra: program-specific facts."""
    import torch
    window = clock.window_s()
    steps_ms = [(b - a) * 1e3 for a, b in zip(clock.marks, clock.marks[1:])]
    dev = clock.dev
    out = {
        "program": program,
        "variant": "fixed" if args.fix else ("bad" if planted else "plain"),
        "planted": planted, "fix": fix,
        "ms_per_step": window * 1e3 / args.steps,
        "steps": args.steps, "warmup": args.warmup, "timed_marks": len(steps_ms),
        "step_ms": {"median": percentile(steps_ms, 0.5), "p10": percentile(steps_ms, 0.1),
                    "p90": percentile(steps_ms, 0.9)},
        "step_ms_each": [round(x, 3) for x in steps_ms],  # drift within one process
        "window_s": window, "startup_s": clock.t0 - T_PROCESS,
        "device": dev.type, "tiny": args.tiny,
        "gpu": torch.cuda.get_device_name(dev) if dev.type == "cuda" else None,
        "torch": torch.__version__, "torch_profiler": bool(args.torch_profiler),
        "profiled_kernels": clock.profiled_kernels,
    }
    if clock.stairs:
        out["stairs"] = clock.stairs.done
    out.update(extra)
    line = json.dumps(out, sort_keys=False)
    sys.stderr.write("%s: %s %.3f ms/step over %d steps\n"
                     % (program, out["variant"], out["ms_per_step"], args.steps))
    print(line, flush=True)
    if args.json_out:
        tmp = args.json_out + ".tmp"
        with open(tmp, "w") as f:
            f.write(line + "\n")
        os.replace(tmp, args.json_out)
    return out


def descendants():
    """(pid, comm) of every process below this one (Linux /proc): e.g. an Open MPI `orted`
    that a framework started, or DataLoader workers."""
    children = {}
    for pid in os.listdir("/proc") if os.path.isdir("/proc") else ():
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % pid) as f:
                stat = f.read()
        except OSError:
            continue
        comm = stat[stat.find("(") + 1:stat.rfind(")")]
        ppid = int(stat[stat.rfind(")") + 2:].split()[1])
        children.setdefault(ppid, []).append((int(pid), comm))
    found, todo = [], [os.getpid()]
    while todo:
        for pid, comm in children.get(todo.pop(), []):
            found.append((pid, comm))
            todo.append(pid)
    return found
