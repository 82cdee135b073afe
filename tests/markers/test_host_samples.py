#!/usr/bin/env python3
"""Tests of the shim's host stack samples (python/stepscope/_pysampler.py + the collector's
src/collect/ssc_pyhost.c) and of its torch.compile marks (python/stepscope/_compile.py).

Sample cases run `stepscope record` on small programs that import the FAKE torch of
tests/markers/fake_torch/ (the shim starts on `import torch`; the fake DataLoader's markers make
NVTX load the collector) and read the trace back with `stepscope dump --json`. Cases that need
another interpreter or the real torch exit 77 (skipped) without it.

usage: test_host_samples.py CASE   (environment: see tests/markers/CMakeLists.txt)
"""
import glob
import json
import os
import shutil
import subprocess
import sys
import textwrap
import time

HERE = os.path.dirname(os.path.abspath(__file__))
FAKE_TORCH = os.path.join(HERE, "fake_torch")
BIN = os.environ["STEPSCOPE_TEST_BIN"]
MARKERS_LIB = os.environ["STEPSCOPE_TEST_MARKERS_LIB"]
FAKE_INJECT = os.environ["STEPSCOPE_TEST_FAKE_INJECT"]
PYDIR = os.environ["STEPSCOPE_TEST_PYDIR"]
TMP = os.environ["STEPSCOPE_TEST_TMP"]
SKIP = 77

# Every sample program starts so: the fake DataLoader's first marker makes NVTX load the
# collector, then the sampler finds it (it polls every 100 ms) and starts.
PRELUDE = textwrap.dedent("""\
    import os, sys, threading, time
    import torch
    from torch.utils.data import DataLoader
    for _ in DataLoader([1]): pass
    from stepscope import _pysampler
    _end = time.time() + 5
    while time.time() < _end and not (_pysampler.SAMPLER and _pysampler.SAMPLER.ticks):
        time.sleep(0.01)
    """)


RATE_REASONS = ("slow_rate", "full_rate")


class Trace:
    def __init__(self, path):
        self.path = path
        out = subprocess.run([BIN, "dump", "--json", path], capture_output=True, text=True,
                             timeout=60)
        self.damage = out.stderr
        self.records = [json.loads(line) for line in out.stdout.splitlines() if line]
        self.frames = {r["id"]: r for r in self.of("py_frame")}
        self.stacks = {r["id"]: r for r in self.of("py_stack")}
        self.process = next(iter(self.of("process")), {})

    def of(self, kind):
        return [r for r in self.records if r["type"] == kind]

    def env(self, key, default=None):
        """The key's last value (a later ENV record of a key says what it came to)."""
        values = [r["value"] for r in self.of("env") if r["key"] == key]
        return values[-1] if values else default

    def thread_tid(self, name):
        return next((r["tid"] for r in self.of("thread") if r["name"] == name), None)

    def stack(self, sample):
        """[(function, file, line), ...] leaf first."""
        st = self.stacks[sample["stack"]]
        return [(self.frames[f]["function"], self.frames[f]["file"], self.frames[f]["line"])
                for f in st["frames"]]

    def samples(self, tid=None):
        return [s for s in self.of("py_sample") if tid is None or s["tid"] == tid]

    def py_capture(self):
        """PY_STACKS switched on and off (the sampler's changes of rate apart)."""
        return [r for r in self.of("capture") if r["what"] in ("0x8", "py_stacks")
                and r["reason"] not in RATE_REASONS]

    def py_rates(self):
        """The native sampler's rates as it said them, (time, reason), in time order (#43)."""
        return sorted((r["t"], r["reason"]) for r in self.of("capture")
                      if r["what"] in ("0x8", "py_stacks") and r["reason"] in RATE_REASONS)


class Run:
    def __init__(self, rc, out, err, traces, seconds):
        self.rc, self.out, self.err, self.traces, self.seconds = rc, out, err, traces, seconds

    def main(self):
        pid = [t for t in self.traces if t.process.get("ppid") not in
               [u.process.get("pid") for u in self.traces]]
        return pid[0] if pid else None


def record(code, name, env=None, python=None, fake_torch=True, script=None, timeout=50,
           capture=None):
    """Runs code (or the file `script`) under `stepscope record` (--capture `capture` when
    given); Run with its traces."""
    out_dir = os.path.join(TMP, name)
    shutil.rmtree(out_dir, ignore_errors=True)
    child = {k: v for k, v in os.environ.items()
             if not k.startswith(("STEPSCOPE_", "NVTX_", "CUDA_INJECTION", "PYTHON"))}
    child.update({"PYTHONPATH": FAKE_TORCH if fake_torch else "", "PYTHONDONTWRITEBYTECODE": "1",
                  "STEPSCOPE_MARKERS_LIB": MARKERS_LIB})
    child.update(env or {})
    prog = [python or sys.executable] + ([script] if script else ["-c", code])
    t0 = time.time()
    # Not -q: that would also quieten the shim's warnings, which the cases look for.
    opts = ["--capture", capture] if capture else []
    p = subprocess.run([BIN, "record", "--no-report", "-o", out_dir] + opts + ["--"] + prog,
                       env=child, capture_output=True, text=True, timeout=timeout, cwd=TMP)
    traces = [Trace(f) for f in sorted(glob.glob(os.path.join(out_dir, "*.sstrace")))]
    return Run(p.returncode, p.stdout, p.stderr, traces, time.time() - t0)


def shim_lines(r):
    """What the shim and the sampler said on stderr (not record's own summary)."""
    return [line for line in r.err.splitlines()
            if line.startswith(("stepscope: host samples", "stepscope: python shim"))]


def plain(code, env=None, python=None, fake_torch=True):
    """Runs code with the shim on PYTHONPATH but no recorder."""
    child = {k: v for k, v in os.environ.items()
             if not k.startswith(("STEPSCOPE_", "NVTX_", "CUDA_INJECTION", "PYTHON"))}
    child.update({"PYTHONPATH": os.pathsep.join([PYDIR] + ([FAKE_TORCH] if fake_torch else [])),
                  "PYTHONDONTWRITEBYTECODE": "1", "STEPSCOPE_MARKERS_LIB": MARKERS_LIB})
    child.update(env or {})
    p = subprocess.run([python or sys.executable, "-c", code], env=child, capture_output=True,
                       text=True, timeout=50, cwd=TMP)
    return Run(p.returncode, p.stdout, p.stderr, [], 0)


def check(cond, what, r=None):
    if not cond:
        detail = ""
        if r is not None:
            detail = "\n rc=%s\n stdout=%r\n stderr=%r\n traces=%s" % (
                r.rc, r.out[-2000:], r.err[-2000:], [t.path for t in r.traces])
        raise AssertionError(what + detail)


def check_clean(r, rc=0):
    check(r.rc == rc, "exit status %d" % rc, r)
    for t in r.traces:
        check(t.damage == "", "trace %s read without damage: %s" % (t.path, t.damage), r)


def lines_of(code, marker):
    """Line number (1-based) of the line of code holding marker."""
    return next(i + 1 for i, line in enumerate(code.splitlines()) if marker in line)


def other_python(version):
    """An interpreter of that version: $STEPSCOPE_TEST_PYTHON<MAJ><MIN>, pythonX.Y on PATH, or
    a pyenv install (the development machines have 3.9, 3.10, 3.12 and 3.13 there)."""
    cands = [os.environ.get("STEPSCOPE_TEST_PYTHON" + version.replace(".", ""))]
    cands += sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/%s.*/bin/python3" % version)))
    cands.append(shutil.which("python" + version))  # last: it may be a pyenv shim that fails
    for c in cands:
        if c and os.access(c, os.X_OK) and subprocess.run(
                [c, "-c", "import sys; assert sys.version.startswith(%r)" % version],
                capture_output=True, timeout=30).returncode == 0:
            return c
    return None


def torch_python(min_version=(0,)):
    """An interpreter with a real torch of at least min_version."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    for cand in (os.environ.get("STEPSCOPE_TEST_TORCH_PYTHON"), sys.executable,
                 "/usr/bin/python3"):
        if not cand or not shutil.which(cand):
            continue
        probe = subprocess.run([cand, "-c", "import torch; print(torch.__version__)"],
                               capture_output=True, text=True, env=clean, timeout=120)
        if probe.returncode != 0:
            continue
        ver = tuple(int(x) for x in probe.stdout.strip().split("+")[0].split(".")[:2])
        if ver >= min_version:
            return cand
    return None


# ---- samples ----

MAIN_AND_WORKER = PRELUDE + textwrap.dedent("""\
    ready, stop = threading.Event(), threading.Event()
    def worker_loop():
        ready.set()
        stop.wait()  # WORKER LINE
    t = threading.Thread(target=worker_loop, name="worker")
    t.start()
    ready.wait()
    for _ in DataLoader([1]): pass  # BEFORE
    def planted_wait():
        time.sleep(0.8)  # PLANTED LINE
    planted_wait()
    for _ in DataLoader([1]): pass  # AFTER
    stop.set()
    t.join()
    print("done")
    """)


def check_main_and_worker(r, hz=100, rates=None):
    check_clean(r)
    check(r.out == "done\n" and not shim_lines(r), "runs quietly", r)
    check(len(r.traces) == 1, "one trace", r)
    t = r.traces[0]
    main_tid, worker_tid = t.process["pid"], t.thread_tid("worker")
    check(worker_tid and worker_tid != main_tid, "the worker thread is named", r)
    sampler = t.thread_tid("ss-pysampler")
    check(sampler and not t.samples(sampler), "the sampler thread is named and not sampled", r)
    line = lines_of(MAIN_AND_WORKER, "PLANTED LINE")
    planted = [s for s in t.samples(main_tid) if t.stack(s)[0][:1] == ("planted_wait",)]
    check(planted, "main-thread samples inside planted_wait", r)
    for s in planted:
        st = t.stack(s)
        check(st[0] == ("planted_wait", "<string>", line) and st[-1][0] == "<module>",
              "leaf first: planted_wait at its line, <module> last: %s" % st, r)
    # One clock: the planted samples lie between the data ranges around the call.
    pushes = [e["t"] for e in t.of("nvtx_push")]
    pops = [e["t"] for e in t.of("nvtx_pop")]
    before = max(p for p in pops if p < planted[0]["t"])
    after = min(p for p in pushes if p > planted[-1]["t"])
    check(after - before < 2e9 and all(before < s["t"] < after for s in planted),
          "the samples are on the collector's clock", r)
    # the rate in effect over the planted wait is the one the native sampler last said before
    # it: under auto it depends on whether the window was open then (the shim's first mark
    # can resolve auto to steps 8-107 before or after the sampler starts)
    native, said = t.thread_tid("ss-pynative"), t.py_rates()
    slow = bool(native) and [x for ts, x in said if ts <= planted[0]["t"]][-1:] == ["slow_rate"]
    check(rates is None or slow == (rates == "slow_rate"),
          "%s over the planted wait: %s" % (rates, said), r)
    rate, want = len(planted) / 0.8, hz / 5 if slow else hz
    check(0.4 * want <= rate <= 1.4 * want,
          "about %d samples/s of the main thread: %.0f" % (want, rate), r)
    wline = lines_of(MAIN_AND_WORKER, "WORKER LINE")
    worker = t.samples(worker_tid)
    # Nearly all, not all: the native reader samples without the GIL, so a sample can land on
    # the worker's first line or in threading's bootstrap around it (CI, loaded: 1 of 81)
    at_wait = sum(("worker_loop", "<string>", wline) in t.stack(s) for s in worker)
    check(len(worker) >= 0.3 * want * 0.8 and at_wait >= 0.9 * len(worker),
          "the worker's samples show worker_loop at its wait: %d of %d" % (at_wait, len(worker)), r)
    check(t.env("pyshim.host_samples_hz") == str(hz), "ENV says the rate", r)
    check((t.env("python.version") or "").startswith("%d.%d" % sys.version_info[:2])
          or True, "ENV says the Python version", r)
    caps = t.py_capture()
    check([c["state"] for c in caps] == ["on", "off"] and caps[0]["reason"] == "start"
          and caps[1]["reason"] == "exit", "PY_STACKS on at start, off at exit: %s" % caps, r)
    check(bool(said) == bool(native),
          "the native sampler says its rate, the GIL one has one: %s" % said, r)
    check(t.env("pyshim.host_samples_outside_hz") == ("%g" % (hz / 5) if native else None),
          "ENV says the native sampler's rate outside GPU windows", r)


def samples_main_and_worker():
    check_main_and_worker(record(MAIN_AND_WORKER, "main"))


def samples_other_pythons():
    """The same on every other supported interpreter found (C API differences: 3.10 has no
    PyFrame_GetLasti nor co_qualname, 3.12 a new frame layout, 3.13 PEP 667)."""
    ran = 0
    for version in ("3.10", "3.12", "3.13"):
        python = other_python(version)
        if python is None:
            print("no Python %s here" % version)
            continue
        # 3.12.0/3.12.1 are refused by default (gh-111049); this program has no BytesIO cycle
        r = record(MAIN_AND_WORKER, "py" + version, python=python,
                   env={"STEPSCOPE_HOST_SAMPLES_FORCE": "1"})
        check(r.traces and (r.traces[0].env("python.version") or "").startswith(version),
              "ran on %s" % version, r)
        check_main_and_worker(r)
        ran += 1
    if not ran:
        print("skipped: no other Python")
        return SKIP
    return 0


def samples_rate_and_off():
    r = record(MAIN_AND_WORKER, "rate20", env={"STEPSCOPE_HOST_SAMPLES": "20"})
    check_main_and_worker(r, hz=20)
    # no GPU window open (one that would open at step 1000): a fifth of the rate (issue #43)
    r = record(MAIN_AND_WORKER, "outside", capture="steps:1000-1010")
    check_main_and_worker(r, rates="slow_rate")
    r = record(MAIN_AND_WORKER.replace("and not (_pysampler.SAMPLER and _pysampler.SAMPLER.ticks)",
                                       "and False"), "off", env={"STEPSCOPE_HOST_SAMPLES": "off"})
    check_clean(r)
    t = r.traces[0]
    check(not t.samples() and not t.of("py_frame") and not t.thread_tid("ss-pysampler"),
          "off: no samples, no sampler thread", r)
    r = record(MAIN_AND_WORKER, "bad", env={"STEPSCOPE_HOST_SAMPLES": "fast"})
    said = shim_lines(r)
    check(said == ["stepscope: host samples: STEPSCOPE_HOST_SAMPLES must be off or a number "
                   "from 1 to 1000, not 'fast': using the default"], "a bad value is said once", r)
    check(r.traces[0].env("pyshim.host_samples_hz") == "100", "and the default used", r)


def graph_capture_stops_samples():
    """Under the GIL sampler (STEPSCOPE_PYFRAMES=gil), the first CUDA graph capture stops it
    for good (its snapshots could move when tensors die, which graph capture checks:
    torch.compile's reduce-overhead mode failed under sampling on the H200); the native reader
    makes no Python object and samples on. The capture itself happens either way."""
    code = PRELUDE + textwrap.dedent("""\
        time.sleep(0.3)
        import torch.cuda.graphs as graphs
        t_capture = time.monotonic_ns()
        graphs.CUDAGraph().capture_begin()
        time.sleep(0.4)
        print(t_capture, graphs.captures)
        """)
    for mode in ("gil", "native"):
        r = record(code, "graph_capture_" + mode, env={"STEPSCOPE_PYFRAMES": mode})
        check_clean(r)
        t_capture, captures = (int(x) for x in r.out.split())
        t = r.main()
        before = [s for s in t.samples() if s["t"] < t_capture]
        after = [s for s in t.samples() if s["t"] > t_capture]
        check(captures == 1, "the program's capture ran", r)
        check(len(before) >= 5, "samples before the capture (%d)" % len(before), r)
        stopped = any("first CUDA graph capture" in n.get("message", "") for n in t.of("notice"))
        if mode == "native":
            check(t.env("python.frames", "").startswith("native"), "read natively", r)
            check(len(after) >= 5 and not stopped, "native: samples go on (%d)" % len(after), r)
            continue
        check(not after, "no sample after the capture began (%d)" % len(after), r)
        caps = t.py_capture()
        check(caps and caps[-1]["state"] == "off", "PY_STACKS off at the capture", r)
        check(stopped, "a notice says why", r)


def no_collector_costs_nothing():
    code = ("import sys, time, torch\nfrom torch.utils.data import DataLoader\n"
            "for _ in DataLoader([1]): pass\ntime.sleep(0.3)\n"
            "print(len(sys._current_frames()), 'stepscope._pysampler' in sys.modules)")
    r = plain(code)
    check(r.rc == 0 and r.err == "" and r.out == "1 False\n",
          "no injection: no sampler thread, the sampler module not even imported", r)
    # Another tool's NVTX library (no stepscope_host_api_v1): silent unless samples were asked.
    r = plain(code, env={"NVTX_INJECTION64_PATH": FAKE_INJECT, "FAKE_INJECT_LOG": os.devnull})
    check(r.rc == 0 and r.err == "", "another tool's library: quiet by default", r)
    r = plain(code, env={"NVTX_INJECTION64_PATH": FAKE_INJECT, "FAKE_INJECT_LOG": os.devnull,
                         "STEPSCOPE_HOST_SAMPLES": "100"})
    said = r.err.splitlines()
    check(r.rc == 0 and len(said) == 1 and said[0].startswith("stepscope: host samples: off: ")
          and "has no stepscope_host_api_v1" in said[0], "asked for: one line says why", r)


def unsupported_python():
    python = other_python("3.9")
    if python is None:
        print("skipped: no Python 3.9 here")
        return SKIP
    r = record(MAIN_AND_WORKER.replace("and not (_pysampler.SAMPLER and _pysampler.SAMPLER.ticks)",
                                       "and not (_pysampler.SAMPLER and _pysampler.SAMPLER.api)"),
               "py39", python=python)
    check_clean(r)
    said = shim_lines(r)
    check(said == ["stepscope: host samples: off: Python 3.9 is not supported (3.10-3.13)"],
          "one line says why", r)
    t = r.traces[0]
    check(not t.samples() and any("Python 3.9 is not supported" in n["message"]
                                  for n in t.of("notice")), "no samples; the trace says why", r)
    return 0


# ---- faults ----

def thread_churn():
    code = PRELUDE + textwrap.dedent("""\
        import _thread
        def short():
            sum(range(200))
        n, end = 0, time.time() + 1.5
        while time.time() < end:
            ts = [threading.Thread(target=short) for _ in range(8)]
            for th in ts: th.start()
            for th in ts: th.join()
            _thread.start_new_thread(short, ())  # never joined
            n += 9
        print("threads", n > 100)
        sys.exit(5)
        """)
    r = record(code, "churn")
    check_clean(r, rc=5)
    check(r.out == "threads True\n" and r.traces[0].samples(), "ran and sampled", r)
    caps = r.traces[0].py_capture()
    check(caps and caps[-1]["reason"] == "exit", "PY_STACKS off at exit", r)


def fork_child():
    code = PRELUDE + textwrap.dedent("""\
        time.sleep(0.2)
        t0 = time.time()
        pid = os.fork()
        if pid == 0:
            for _ in DataLoader([1]): pass  # the child records: its own trace
            end = time.time() + 0.5
            while time.time() < end: pass
            sys.exit(3)  # atexit runs in the child: it must not wait for the parent's sampler
        _, status = os.waitpid(pid, 0)
        print("child", os.waitstatus_to_exitcode(status), time.time() - t0 < 3.0)
        time.sleep(0.3)
        """)
    r = record(code, "fork")
    check_clean(r)
    check(r.out == "child 3 True\n", "the child exits with its status, without delay", r)
    check(len(r.traces) == 2, "two traces", r)
    parent = r.main()
    child = next(t for t in r.traces if t is not parent)
    check(parent.samples() and not child.samples() and not child.py_capture(),
          "samples in the parent only", r)
    check(child.of("nvtx_push"), "the child did record (its markers)", r)


def dataloader_workers():
    python = torch_python()
    if python is None:
        print("skipped: torch not installed")
        return SKIP
    code = textwrap.dedent("""\
        import os, sys, time, torch, torch.utils.data
        from stepscope import _pysampler
        class DS(torch.utils.data.Dataset):
            def __len__(self): return 8
            def __getitem__(self, i):
                s = _pysampler.SAMPLER
                state = "none" if s is None else ("forked" if s._forked else
                                                  ("sampling" if s.ticks else "waiting"))
                return torch.tensor([os.getpid(), len(sys._current_frames())]), state
        if __name__ == "__main__":  # spawn's workers import this file: no markers there
        """) + textwrap.indent(PRELUDE + textwrap.dedent("""\
        for ctx in ("fork", "spawn"):
            seen = set()
            for x, state in torch.utils.data.DataLoader(DS(), batch_size=2, num_workers=2,
                                                        multiprocessing_context=ctx):
                seen.update(state)
            print(ctx, sorted(seen))
        """), "    ")
    script = os.path.join(TMP, "dl_workers.py")
    os.makedirs(TMP, exist_ok=True)
    with open(script, "w") as f:
        f.write(code)
    r = record(None, "workers", python=python, fake_torch=False, script=script, timeout=120)
    check_clean(r)
    # fork: the sampler object came with the fork but knows it; spawn: a fresh interpreter
    # whose sampler waits for a collector that never loads there.
    if "gh-111049" in r.err:  # 3.12.0/3.12.1: no sampler at all
        check(all(not t.samples() for t in r.traces), "refused interpreter: nothing sampled", r)
        return 0
    check(r.out == "fork ['forked']\nspawn ['waiting']\n", "workers sample nothing", r)
    main = r.main()
    check(main and main.samples(), "the main process is sampled", r)
    check(all(not t.samples() for t in r.traces if t is not main), "no worker is", r)
    return 0


def exit_while_sampling():
    busy = PRELUDE + textwrap.dedent("""\
        def spin():
            while True: sum(range(100))
        threading.Thread(target=spin, daemon=True).start()
        time.sleep(0.3)
        """)
    for name, tail, rc in (("sysexit", "sys.exit(4)\n", 4),
                           ("raise", "raise KeyError('boom')\n", 1),
                           ("osexit", "sys.stdout.flush(); os._exit(6)\n", 6)):
        r = record(busy + tail, "exit_" + name)
        check(r.rc == rc and r.seconds < 20, "%s: exit status %d, no hang" % (name, rc), r)
        if name == "raise":
            check("KeyError: 'boom'" in r.err, "the traceback is the program's", r)
        if name != "osexit":  # os._exit skips atexit: the collector cannot close its file
            check_clean(r, rc)
            caps = r.traces[0].py_capture()
            check(caps and caps[-1]["state"] == "off" and caps[-1]["reason"] == "exit",
                  "%s: PY_STACKS off at exit" % name, r)


def switch_interval():
    code = PRELUDE + textwrap.dedent("""\
        counts = []
        for interval in (1e-6, 5.0, 0.005):
            sys.setswitchinterval(interval)
            n, end = 0, time.time() + 0.5
            while time.time() < end:
                n += 1
            counts.append(n > 0)
        print(counts)
        """)
    r = record(code, "switch")
    check_clean(r)
    check(r.out == "[True, True, True]\n" and r.seconds < 30, "runs through", r)
    check(all(s["tid"] for s in r.traces[0].samples()), "every sample has its tid", r)


TRACER = textwrap.dedent("""\
    seen = set()
    def tracer(frame, event, arg):
        seen.add(os.path.basename(frame.f_code.co_filename))
        return None
    sys.settrace(tracer)
    threading.settrace(tracer)
    if hasattr(threading, "settrace_all_threads"):
        threading.settrace_all_threads(tracer)
    if hasattr(sys, "monitoring"):
        mon = sys.monitoring
        mon.use_tool_id(3, "test")
        mon.register_callback(3, mon.events.PY_START, lambda code, off: seen.add("mon"))
        mon.set_events(3, mon.events.PY_START)
    def work():
        total = 0
        for i in range(20000):
            total += i
        return total
    th = threading.Thread(target=work)
    th.start()
    th.join()
    end = time.time() + 0.5
    while time.time() < end:
        work()
    sys.settrace(None)
    print(sorted(n for n in seen if "stepscope" in n or n.startswith("_py")))
    """)


def trace_users():
    """A program that traces (sys.settrace, threading.settrace[_all_threads], sys.monitoring on
    3.12+) runs as before and its tracer never sees the sampler's code through settrace."""
    pythons = [sys.executable] + [p for p in (other_python("3.12"), other_python("3.13")) if p]
    for python in pythons:
        r = record(PRELUDE + TRACER, "trace_" + os.path.basename(os.path.dirname(
            os.path.dirname(python))), python=python, env={"STEPSCOPE_HOST_SAMPLES_FORCE": "1"})
        check_clean(r)
        check(r.out == "[]\n", "the tracer saw no stepscope code (%s)" % python, r)
        check(r.traces[0].samples(), "sampled while traced", r)


def deep_recursion():
    code = PRELUDE + textwrap.dedent("""\
        sys.setrecursionlimit(5000)
        def down(n):
            if n == 0:
                time.sleep(0.4)  # BOTTOM
                return 0
            return down(n - 1) + 1
        print(down(3000))
        """)
    r = record(code, "deep")
    check_clean(r)
    t = r.traces[0]
    deep = [s for s in t.samples() if t.stack(s)[0][0] == "down"]
    check(deep and all(len(t.stack(s)) == 128 and t.stacks[s["stack"]].get("truncated") == "yes"
                       for s in deep), "128 frames kept leaf first, flagged truncated", r)
    # the leaf is the bottom, but for a sample taken on the way down or up (a loaded machine
    # takes longer over the 3000 calls: CI once sampled the descent first)
    bottom = lines_of(code, "# BOTTOM")
    at_bottom = [s for s in deep if t.stack(s)[0][2] == bottom]
    check(len(at_bottom) >= max(1, len(deep) // 2), "the leaf is the bottom: %d of %d samples"
          % (len(at_bottom), len(deep)), r)


def non_utf8_file_name():
    os.makedirs(TMP, exist_ok=True)
    path = os.path.join(os.fsencode(TMP), b"prog_\xff.py")
    with open(path, "w") as f:
        f.write(PRELUDE + "def f():\n    time.sleep(0.3)\nf()\n")
    r = record(None, "utf8", script=os.fsdecode(path))
    check_clean(r)
    files = {fr["file"] for fr in r.traces[0].frames.values()}
    check(any(f.endswith("prog_\\udcff.py") for f in files),
          "the undecodable byte is escaped into valid UTF-8: %s" % sorted(files), r)


SYNC_HELPER = textwrap.dedent("""\
    # A synchronising CUDA call through the fake libcupti (tests/collect/fake_cupti.c): the
    # collector's callbacks see its entry and exit, and it blocks `seconds` in between with
    # the GIL released, as torch's .item() does. In a site-packages folder: library code.
    import ctypes, time
    _cupti = ctypes.CDLL("libcupti.so.13")
    _call = _cupti.fake_cupti_call_mid
    _call.restype = ctypes.c_uint32
    _call.argtypes = [ctypes.c_int, ctypes.c_uint32, ctypes.c_uint32, ctypes.c_int, ctypes.c_void_p]
    _MID = ctypes.CFUNCTYPE(None)
    RUNTIME, STREAM_SYNCHRONIZE = 2, 131
    def sync(seconds):
        mid = _MID(lambda: time.sleep(seconds))
        return _call(RUNTIME, STREAM_SYNCHRONIZE, 0, 0, ctypes.cast(mid, ctypes.c_void_p))
    """)

SYNC_CALLS = PRELUDE + textwrap.dedent("""\
    import ctypes
    sys.path.insert(0, os.environ["SYNC_HELPER_DIR"])
    import synchelper
    assert ctypes.CDLL(os.environ["CUDA_INJECTION64_PATH"]).InitializeInjection() == 1
    time.sleep(1.2)  # the sampler asks again once a second whether calls can be seen
    long_calls, short_calls = [], []
    for i in range(6):
        long_calls.append(synchelper.sync(0.03))  # SYNC LINE
        short_calls.append(synchelper.sync(0.00001))  # SHORT LINE
        time.sleep(0.015)
    print(" ".join(map(str, long_calls)))
    print(" ".join(map(str, short_calls)))
    """)


def sync_helper_env():
    """The environment of a program that makes CUDA calls through the fake CUPTI (synchelper
    in a site-packages folder of its own), or None (said) where there is no fake CUPTI."""
    fake = os.environ.get("STEPSCOPE_TEST_FAKE_CUPTI_DIR")
    if not fake:
        print("skipped: no fake CUPTI (built only where CUPTI is)")
        return None
    helper_dir = os.path.join(TMP, "site-packages")
    os.makedirs(helper_dir, exist_ok=True)
    with open(os.path.join(helper_dir, "synchelper.py"), "w") as f:
        f.write(SYNC_HELPER)
    return {"LD_LIBRARY_PATH": fake, "SYNC_HELPER_DIR": helper_dir, "STEPSCOPE_API": "callbacks"}


def sync_calls_fake_cupti():
    """With API calls from our own callbacks, a thread blocked in a synchronising call gets a
    PY_CALL record: its stack at the line that issued the call, its correlation id the call's
    (a short call only when it blocked 100 us anyway); with API activity records none, and the
    trace says why."""
    env = sync_helper_env()
    if env is None:
        return SKIP
    # --capture all: the program marks one step (the prelude's), and auto, which in a program
    # the shim marks waits for step 8, would record none of its calls
    r = record(SYNC_CALLS, "sync_calls", env=env, capture="all")
    check_clean(r)
    lines = r.out.splitlines()
    check(len(lines) == 2, "ran", r)
    long_calls, short_calls = ([int(x) for x in line.split()] for line in lines)
    t = r.traces[0]
    calls = t.of("py_call")
    got = {c["correlation"] for c in calls}
    check(t.env("pyshim.sync_calls") == "on", "env says on", r)
    # A short call (10 us in its callback) is caught only when it blocked 100 us anyway (the
    # callback waiting for the GIL on a loaded machine): each is checked against its own call.
    check(len(got & set(long_calls)) >= 5, "the long calls caught: %s" % calls, r)
    line_of = dict.fromkeys(long_calls, lines_of(SYNC_CALLS, "SYNC LINE"))
    line_of.update(dict.fromkeys(short_calls, lines_of(SYNC_CALLS, "SHORT LINE")))
    pid = t.process["pid"]
    api = {a["corr"]: a for a in t.of("api")}
    for c in calls:
        frames, a = t.stack(c), api.get(c["correlation"])
        check(c["tid"] == pid and ("<module>", "<string>", line_of[c["correlation"]]) in frames,
              "each at the line of its call: %s" % frames, r)
        check(a is not None and a["t"] <= c["t"] <= a["end"],
              "each taken inside its call (API record %s, snapshot %d)" % (a, c["t"]), r)
    env["STEPSCOPE_API"] = "activity"
    r = record(SYNC_CALLS, "sync_calls_activity", env=env)
    check_clean(r)
    t = r.traces[0]
    check(not t.of("py_call") and t.env("pyshim.sync_calls").startswith("off: "),
          "none under activity records, and the trace says why", r)


SYNC_BUDGET = PRELUDE + textwrap.dedent("""\
    import ctypes
    sys.path.insert(0, os.environ["SYNC_HELPER_DIR"])
    import synchelper
    assert ctypes.CDLL(os.environ["CUDA_INJECTION64_PATH"]).InitializeInjection() == 1
    time.sleep(1.2)  # the sampler asks again once a second whether calls can be seen
    def deep(n):  # 24 stacks in turn, more than the collector caches: every read walks
        return deep(n - 1) if n else synchelper.sync(0.00006)
    t0 = time.monotonic()
    for i in range(1500):
        deep(20 + i % 12)  # SITE A
        deep(20 + (i + 6) % 12)  # SITE B
    print(int((time.monotonic() - t0) * 1e9), threading.get_native_id())
    """)


def sync_calls_budget():
    """Thousands of calls that each block, from stacks 20-31 frames deep that the collector's
    cache cannot keep: reading every one's stack in-line would cost the program a good part
    of its time, so the collector reads a random sample of them
    within 1 % of the thread's time (plus a first 2 ms), says how many in ENV
    pyshim.sync_calls_read, and each of two alternating sites keeps its share of the reads (>= 25 %)."""
    env = sync_helper_env()
    if env is None:
        return SKIP
    r = record(SYNC_BUDGET, "sync_budget", env=env, capture="all", timeout=120)
    check_clean(r)
    loop_ns, tid = (int(x) for x in r.out.split())
    t = r.traces[0]
    said = t.env("pyshim.sync_calls_read", "")
    check(" of " in said, "ENV pyshim.sync_calls_read says how many were read: %r" % said, r)
    read, seen = (int(x) for x in said.split()[0:3:2])
    check(seen >= 2900 and 0 < read < seen, "a sample read: %d of %d" % (read, seen), r)
    spent = sum(c["ns"] for c in t.of("cost") if c["kind"] == "py_stack" and c["tid"] == tid)
    check(spent <= 4e6 + 0.05 * loop_ns,  # 1 % and one read: room for a preempted read
          "the reads cost %.1f ms over a %.0f ms loop" % (spent / 1e6, loop_ns / 1e6), r)
    a, b = lines_of(SYNC_BUDGET, "SITE A"), lines_of(SYNC_BUDGET, "SITE B")
    at = {a: 0, b: 0}
    for c in t.of("py_call"):
        for fn, _, line in t.stack(c):
            if fn == "<module>" and line in at:
                at[line] += 1
    n = at[a] + at[b]
    check(n >= 16 and min(at.values()) >= 0.25 * n, "both sites keep their share: %s" % at, r)


SYNC_SAME_HELPER = PRELUDE + textwrap.dedent("""\
    import ctypes
    sys.path.insert(0, os.environ["SYNC_HELPER_DIR"])
    import synchelper
    assert ctypes.CDLL(os.environ["CUDA_INJECTION64_PATH"]).InitializeInjection() == 1
    time.sleep(1.2)  # the sampler asks again once a second whether calls can be seen
    def h3(): return synchelper.sync(0.002)
    def h2(): return h3()
    def h1(): return h2()
    def h0(): return h1()
    a, b = [], []
    for i in range(10):
        a.append(h0())  # SITE A
        b.append(h0())  # SITE B
    print(" ".join(map(str, a)))
    print(" ".join(map(str, b)))
    """)


def sync_calls_same_helper():
    """Two lines that block through the same chain of helper functions: their innermost frames
    are alike (same code, same positions, same addresses on the frame stack), and each call
    must still be named by its own line, not by the line of the call cached first."""
    env = sync_helper_env()
    if env is None:
        return SKIP
    r = record(SYNC_SAME_HELPER, "sync_same_helper", env=env, capture="all")
    check_clean(r)
    a, b = ([int(x) for x in line.split()] for line in r.out.splitlines())
    t = r.traces[0]
    line_of = dict.fromkeys(a, lines_of(SYNC_SAME_HELPER, "SITE A"))
    line_of.update(dict.fromkeys(b, lines_of(SYNC_SAME_HELPER, "SITE B")))
    calls = [c for c in t.of("py_call") if c["correlation"] in line_of]
    check(len(calls) >= 16, "the calls caught: %d of 20" % len(calls), r)
    for c in calls:
        lines = [line for fn, _, line in t.stack(c) if fn == "<module>"]
        check(lines == [line_of[c["correlation"]]],
              "call %d named by its own line %d: %s" % (c["correlation"], line_of[c["correlation"]],
                                                        lines), r)


def frame_table_cap():
    """More distinct positions than the collector's tables hold (20000): cleared once, said
    once, sampling goes on, memory bounded. Each generation of 40 threads parks at its deepest
    frame until the sampler has been round since the last one arrived: a fixed sleep (0.25 s,
    with the sampler's start awaited 5 s at most) let a loaded machine sample generations in
    part or not at all, and the cap was then not reached (the case failed once under load)."""
    code = PRELUDE + textwrap.dedent("""\
        import resource
        class Gate:
            def __init__(self, n):
                self.n, self.cv, self.open = n, threading.Condition(), False
            def park(self):
                with self.cv:
                    self.n -= 1
                    self.cv.notify_all()
                    self.cv.wait_for(lambda: self.open)
            def parked(self, timeout):
                with self.cv:
                    return self.cv.wait_for(lambda: self.n == 0, timeout)
            def release(self):
                with self.cv:
                    self.open = True
                    self.cv.notify_all()
        def sampler_cpu():
            # what the sampler has done: the GIL sampler's ticks, or the CPU seconds of the
            # collector's sampler thread (its ticks are not counted anywhere we can read)
            s = _pysampler.SAMPLER
            if s is None or not s.native:
                return s.ticks if s else 0
            for t in os.listdir("/proc/self/task"):
                try:
                    if open("/proc/self/task/%s/comm" % t).read().strip() == "ss-pynative":
                        f = open("/proc/self/task/%s/stat" % t).read().rsplit(")", 1)[1].split()
                        return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")
                except OSError:
                    pass
            return 0
        def sampled(timeout=60):
            # two whole ticks after the last thread parked, whatever the load: the GIL
            # sampler's tick count; for the collector's, 0.1 s of its own CPU time (a tick reads
            # 40 x 128 frames: 10 ms on the 2-core VM, COST records, 3 times that under ASan;
            # 0.1 s covers ticks of up to 50 ms)
            native = _pysampler.SAMPLER.native
            want, end = sampler_cpu() + (0.1 if native else 2), time.time() + timeout
            while sampler_cpu() < want and time.time() < end:
                time.sleep(0.005)
            return sampler_cpu() >= want
        def chain(tag):
            src = "".join("def f%d(gate):\\n    return f%d(gate)\\n" % (i, i + 1) for i in range(140))
            src += "def f140(gate):\\n    gate.park()\\n"
            ns = {}
            exec(compile(src, "gen_%s.py" % tag, "exec"), ns)
            return ns["f0"]
        end = time.time() + 60
        while not (_pysampler.SAMPLER and _pysampler.SAMPLER.ticks) and time.time() < end:
            time.sleep(0.01)
        rss, stalled = [], 0
        for gen in range(6):
            gate = Gate(40)
            ths = [threading.Thread(target=chain("%d_%d" % (gen, i)), args=(gate,)) for i in range(40)]
            for th in ths: th.start()
            stalled += not (gate.parked(60) and sampled())
            gate.release()
            for th in ths: th.join()
            rss.append(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
        print("sampler stalled" if stalled else "every generation sampled")
        print("rss growth KiB", rss[-1] - rss[2] < 200000)
        """)
    r = record(code, "cap", env={"STEPSCOPE_HOST_SAMPLES": "200"}, timeout=280)
    check_clean(r)
    check(r.out == "every generation sampled\nrss growth KiB True\n", "ran", r)
    said = [line for line in shim_lines(r) if "tables cleared" in line]
    check(len(said) == 1, "one line says the tables were cleared", r)
    t = r.traces[0]
    notes = [n for n in t.of("notice") if "tables cleared" in n["message"]]
    check(len(notes) == 1, "one NOTICE record", r)
    check(any(s["t"] > notes[0]["t"] for s in t.samples()), "sampling goes on after", r)
    keys = [(f["function"], f["file"], f["line"]) for f in t.frames.values()]
    check(len(t.frames) > 20000, "more than the cap defined in all: %d" % len(t.frames), r)
    check(len(set(keys)) <= len(keys), "definitions may repeat after the clear", r)


def real_torch_samples():
    python = torch_python()
    if python is None:
        print("skipped: torch not installed")
        return SKIP
    code = PRELUDE.replace("import torch\n", "import torch\nimport torch.utils.data\n") + \
        textwrap.dedent("""\
        model = torch.nn.Sequential(torch.nn.Linear(64, 512), torch.nn.ReLU(),
                                    torch.nn.Linear(512, 1))
        opt = torch.optim.SGD(model.parameters(), lr=0.01)
        x = torch.randn(256, 64)
        def train_step():
            loss = model(x).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        end = time.time() + 1.0
        while time.time() < end:
            train_step()
        print("ok")
        """)
    r = record(code, "real", python=python, fake_torch=False)
    check_clean(r)
    t = r.traces[0]
    stacks = [t.stack(s) for s in t.samples(t.process["pid"])]
    in_step = [st for st in stacks if any(f[0] == "train_step" for f in st)]
    check(len(in_step) > 20, "the training step is sampled: %d" % len(in_step), r)
    return 0


# ---- torch.compile marks ----

def run_logged(code, name, env=None, python=None, fake_torch=True):
    """Runs code with the shim and the test NVTX tool; the stepscope events it logged."""
    log = os.path.join(TMP, name + ".log")
    os.makedirs(TMP, exist_ok=True)
    if os.path.exists(log):
        os.unlink(log)
    r = plain(code, env=dict({"NVTX_INJECTION64_PATH": FAKE_INJECT, "FAKE_INJECT_LOG": log,
                              "STEPSCOPE_HOST_SAMPLES": ""}, **(env or {})),
              python=python, fake_torch=fake_torch)
    events = []
    if os.path.exists(log):
        with open(log) as f:
            events = [line for line in f.read().splitlines()
                      if line.startswith(("push", "pop", "mark"))]
    r.events = events
    return r


def mark(text):
    return "mark stepscope cat=2 ascii:%s payload=none" % text


def push(text):
    return "push stepscope cat=2 ascii:%s payload=none" % text


POP = "pop stepscope"
STEP = "push stepscope cat=2 reg:step payload=u64:%d"

COMPILE_FAKE = textwrap.dedent("""\
    import sys, threading, torch
    import torch.optim
    print("dynamo before compile:", "torch._dynamo" in sys.modules)
    def f(x):  # F
        return len(x)
    f.graph_breaks = ["Failed to trace builtin operator\\n  Explanation: print"]
    cf = torch.compile(f)
    opt = torch.optim.SGD([])
    cf([1, 2]); cf([1, 2]); cf([1, 2, 3])
    opt.step()
    torch._dynamo.convert_frame.lazy_backward("1/0")
    torch._dynamo.convert_frame.overlapping_compiles(f.__code__)
    opt.step()
    print("ok")
    """)


def compile_marks_fake():
    r = run_logged(COMPILE_FAKE, "compile_fake")
    check(r.rc == 0 and r.err == "" and r.out == "dynamo before compile: False\nok\n",
          "runs quietly; the shim does not import torch._dynamo itself", r)
    line = lines_of(COMPILE_FAKE, "# F")
    where = "f (<string>:%d)" % line
    brk = mark("graph break: Failed to trace builtin operator")
    expected = [
        push("compile: %s [0/0]" % where), POP, brk,
        mark("recompile: tensor 'x' size mismatch at index 0. expected 2, actual 3"),
        push("compile: %s [0/1]" % where), POP, brk,
        STEP % 1,
        push("compile: lazy backward [1/0]"), POP,
        # overlapping compiles: started on the main thread, ended on thread B: the range stays
        # open on the main thread until its next step marker closes it
        push("compile: dynamo [8/0]"),
        POP, POP, STEP % 2,
    ]
    check(r.events == expected, "events:\n  %s\nexpected:\n  %s" % (
        "\n  ".join(r.events), "\n  ".join(expected)), r)


COMPILE_REAL = textwrap.dedent("""\
    import torch
    def f(x, n):  # F
        y = x * 2
        if n > 3:
            print("break")
        return y.sum() + n
    cf = torch.compile(f, backend="eager")
    cf(torch.randn(4), 1)
    cf(torch.randn(4), 5)
    cf(torch.randn(8), 5)
    print("ok")
    """)


def compile_marks_real():
    python = torch_python((2, 3))
    if python is None:
        print("skipped: no torch >= 2.3 (set STEPSCOPE_TEST_TORCH_PYTHON)")
        return SKIP
    r = run_logged(COMPILE_REAL, "compile_real", python=python, fake_torch=False)
    base = plain(COMPILE_REAL, python=python, fake_torch=False,
                 env={"STEPSCOPE_PYSHIM": "0"})
    check(r.rc == 0 and r.out == base.out == "break\nbreak\nok\n", "same output as without", r)
    line = lines_of(COMPILE_REAL, "# F")
    starts = [e for e in r.events if e.startswith("push")]
    check(starts and starts[0] == push("compile: f (<string>:%d) [0/0]" % line),
          "the first compile names f: %s" % r.events, r)
    check(any(e.startswith(mark("recompile: tensor 'x' size mismatch at index 0")[:-13])
              for e in r.events), "a recompile mark with the shape reason: %s" % r.events, r)
    check(any(e.startswith("mark stepscope cat=2 ascii:graph break: ") for e in r.events),
          "a graph-break mark", r)
    check(r.events.count(POP) == len(starts), "every compile range closed", r)
    return 0


# A plain script (no torch, no NVTX: `record` started it, so the shim samples it from the
# start) with one long C call that holds the GIL, then pure Python. sum() over a range runs in
# C without releasing the GIL; its length is scaled to ~0.5 s on this machine.
GIL_LINE_PROG = textwrap.dedent("""\
    import time
    from stepscope import _pysampler  # started at start-up: wait for its first sample
    _end = time.time() + 5
    while time.time() < _end and not (_pysampler.SAMPLER and _pysampler.SAMPLER.ticks):
        time.sleep(0.01)
    t = time.perf_counter(); sum(range(2000000)); per = (time.perf_counter() - t) / 2000000
    n = int(0.5 / max(per, 1e-9))
    def phase():
        t0 = time.monotonic_ns()
        total = sum(range(n))  # GIL LINE
        t1 = time.monotonic_ns()
        end = time.monotonic() + 0.3
        while time.monotonic() < end:  # PYTHON LINE
            pass
        return t0, t1
    t0, t1 = phase()
    print(t0, t1)
    """)


def native_gil_line():
    """The native reader samples a line that holds the GIL in a long C call where it runs (the
    GIL sampler could only sample after the call, on the next line); and a script that never
    imports torch nor calls NVTX is sampled (issue #28)."""
    got = {}
    for mode in ("native", "gil"):
        r = record(GIL_LINE_PROG, "gil_line_" + mode, env={"STEPSCOPE_PYFRAMES": mode},
                   fake_torch=False)
        check_clean(r)
        t0, t1 = (int(x) for x in r.out.split())
        t = r.main()
        check(t.samples(), "%s: a plain script is sampled" % mode, r)
        inside = [s for s in t.samples() if t0 < s["t"] < t1]
        at_line = [s for s in inside if t.stack(s)[0][2] == lines_of(GIL_LINE_PROG, "GIL LINE")]
        got[mode] = (len(inside), len(at_line))
        if mode == "native":
            check(t.env("python.frames", "").startswith("native"), "read natively", r)
            expect = (t1 - t0) / 1e9 * 100
            check(len(at_line) >= 0.5 * expect and len(at_line) == len(inside),
                  "native: the samples during the call are at its line (%d of %d, ~%.0f "
                  "expected)" % (len(at_line), len(inside), expect), r)
    check(got["gil"][1] <= 0.2 * max(got["native"][1], 1),
          "the GIL sampler could not sample inside the call (%s)" % got)


CASES = {f.__name__: f for f in (
    native_gil_line,
    samples_main_and_worker, samples_other_pythons, samples_rate_and_off,
    no_collector_costs_nothing, unsupported_python, thread_churn, fork_child,
    dataloader_workers, exit_while_sampling, switch_interval, trace_users, deep_recursion,
    non_utf8_file_name, frame_table_cap, real_torch_samples, compile_marks_fake,
    graph_capture_stops_samples, sync_calls_fake_cupti, sync_calls_budget,
    sync_calls_same_helper,
    compile_marks_real)}


def main(argv):
    if len(argv) != 2 or argv[1] not in CASES:
        sys.exit("usage: test_host_samples.py CASE\ncases: " + " ".join(CASES))
    os.makedirs(TMP, exist_ok=True)
    rc = CASES[argv[1]]()
    print("ok" if not rc else "skipped")
    return rc or 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
