#!/usr/bin/env python3
"""Tests of the Python shim (python/sitecustomize.py, python/stepscope/).

Each case runs child interpreters with the shim's directory first on PYTHONPATH, as
`stepscope record` does, and the test NVTX tool (fake_inject.so) as NVTX_INJECTION64_PATH; the
tool logs what libstepscope_markers.so emits. Cases named fake_torch_* use the FAKE torch in
tests/markers/fake_torch/ (the real one is not installed on the development and CI machines);
real_torch_training_loop runs the same loop on the real torch and is skipped (exit 77) without it.

usage: test_pyshim.py CASE   (environment: see tests/markers/CMakeLists.txt)
"""
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
FAKE_TORCH = os.path.join(HERE, "fake_torch")
MARKERS_LIB = os.environ["STEPSCOPE_TEST_MARKERS_LIB"]
FAKE_INJECT = os.environ["STEPSCOPE_TEST_FAKE_INJECT"]
PYDIR = os.environ["STEPSCOPE_TEST_PYDIR"]
TMP = os.environ["STEPSCOPE_TEST_TMP"]
SKIP = 77

HEADER = [
    "domain stepscope",
    "string stepscope step",
    "string stepscope data",
    "category stepscope 1 api",
    "category stepscope 2 pyshim",
]
DATA = ["push stepscope cat=2 reg:data payload=none", "pop stepscope"]

# The same loop for the fake and the real torch: 2 epochs of 3 batches, one optimizer step each.
TRAINING_LOOP = r"""
import sys, torch
from torch.utils.data import DataLoader
params = [] if getattr(torch, "IS_FAKE", False) else [torch.nn.Parameter(torch.zeros(1))]
opt = torch.optim.SGD(params, lr=0.1)
loader = DataLoader(list(range(3)), batch_size=1)
seen = 0
for epoch in range(2):
    for batch in loader:
        seen += 1
        opt.step()
print("batches", seen)
sys.exit(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
"""


def step_begin(n):
    return "push stepscope cat=2 reg:step payload=u64:%d" % n


# The DataLoader mark of TRAINING_LOOP's loader: the fake one's batches are ints (no size),
# its optimizer has no parameters (real torch's: one of one element).
LOADER_FAKE = "dataloader: workers=0 batch_size=1 pin_memory=0 persistent_workers=0 samples=0 " \
    "tokens=0 batches_per_step=1 params=0"
LOADER_REAL = LOADER_FAKE.replace("samples=0", "samples=1").replace("params=0", "params=1")


def expected_training_loop(loader_mark=LOADER_FAKE):
    ev = HEADER + [step_begin(0)]
    step = 0
    for _epoch in range(2):
        ev += DATA  # DataLoader.__iter__
        for _batch in range(3):
            ev += DATA  # __next__
            step += 1
            ev += ["pop stepscope", step_begin(step)]
            if step == 1:  # said once, after the first step that took a batch
                ev.append(mark(loader_mark))
        ev += DATA  # the __next__ that raises StopIteration
    return ev


class Run:
    def __init__(self, rc, out, err, events):
        self.rc, self.out, self.err, self.events = rc, out, err, events


def run(code, *, shim=True, fake_torch=True, path_after=(), env=None, args=(), name="run",
        python=sys.executable):
    """Runs `python3 -c code` like `stepscope record` would; returns Run with the tool's log
    (None when the tool was never initialised, i.e. no NVTX call reached it)."""
    log = os.path.join(TMP, name + ".log")
    if os.path.exists(log):
        os.unlink(log)
    child = {k: v for k, v in os.environ.items()
             if not k.startswith(("STEPSCOPE_", "NVTX_", "CUDA_INJECTION", "PYTHON"))}
    pythonpath = ([PYDIR] if shim else []) + ([FAKE_TORCH] if fake_torch else []) + list(path_after)
    child.update({
        "PYTHONPATH": os.pathsep.join(pythonpath),
        "STEPSCOPE_MARKERS_LIB": MARKERS_LIB,
        "NVTX_INJECTION64_PATH": FAKE_INJECT,
        "FAKE_INJECT_LOG": log,
        "PYTHONDONTWRITEBYTECODE": "1",
    })
    child.update(env or {})
    proc = subprocess.run([python, "-c", code, *args], cwd=TMP, env=child,
                          capture_output=True, text=True, timeout=50)
    events = None
    if os.path.exists(log):
        with open(log) as f:
            events = [line for line in f.read().splitlines() if "stepscope" in line]
    return Run(proc.returncode, proc.stdout, proc.stderr, events)


def check(cond, what, r=None):
    if not cond:
        detail = ""
        if r is not None:
            detail = "\n rc=%s\n stdout=%r\n stderr=%r\n events=%s" % (
                r.rc, r.out, r.err, json.dumps(r.events, indent=1))
        raise AssertionError(what + detail)


def check_events(r, expected, what):
    if r.events != expected:
        got = r.events or []
        first = next((i for i, (a, b) in enumerate(zip(got, expected)) if a != b),
                     min(len(got), len(expected)))
        check(False, "%s: events differ from index %d (expected %r)" % (
            what, first, expected[first:first + 3]), r)


def write_site(dirname, body):
    d = os.path.join(TMP, dirname)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "sitecustomize.py"), "w") as f:
        f.write(body)
    return d


# ---- cases ----


def no_torch_loads_nothing():
    code = "import sys, json; print(json.dumps([sorted(sys.modules), " \
           "[type(f).__name__ for f in sys.meta_path]]))"
    base = run(code, shim=False, name="base")
    shim = run(code, name="shim")
    check(base.rc == 0 and shim.rc == 0 and shim.err == "", "both runs succeed quietly", shim)
    base_mods, _ = json.loads(base.out)
    shim_mods, finders = json.loads(shim.out)
    added = sorted(set(shim_mods) - set(base_mods))
    check("stepscope._site" in added, "the shim ran (stepscope._site loaded): %s" % added, shim)
    check(all(m.startswith(("stepscope", "importlib")) or m == "sitecustomize" for m in added),
          "only the shim's start-up modules are added: %s" % added, shim)
    for heavy in ("torch", "ctypes", "stepscope._shim", "stepscope._markers"):
        check(heavy not in shim_mods, "%s is not imported without torch" % heavy, shim)
    check(finders[0] == "_TorchFinder", "the import hook waits for torch: %s" % finders, shim)
    check(shim.events is None, "no NVTX call without torch", shim)


ORIG_SITE = r"""
import builtins
builtins.ORIG_SITE_RUNS = getattr(builtins, "ORIG_SITE_RUNS", 0) + 1
print("original sitecustomize ran as", __name__, flush=True)
"""


def chains_existing_sitecustomize():
    orig = write_site("orig_site", ORIG_SITE)
    code = ("import builtins, sitecustomize, os; print('runs', builtins.ORIG_SITE_RUNS); "
            "print('module', os.path.dirname(sitecustomize.__file__))\n" + TRAINING_LOOP)
    # Our directory twice on the path must not make us run ourselves.
    r = run(code, path_after=[PYDIR, orig], name="chain")
    check(r.rc == 0 and r.err == "", "runs quietly", r)
    lines = r.out.splitlines()
    check(lines[0] == "original sitecustomize ran as sitecustomize", "it ran first, under its "
          "real name", r)
    check("runs 1" in lines and ("module " + orig) in lines,
          "it ran once, and `import sitecustomize` gives it", r)
    check_events(r, expected_training_loop(), "the shim still marks")


def chains_failing_sitecustomize():
    orig = write_site("failing_site", "raise ValueError('boom from the original')\n")
    base = run(TRAINING_LOOP, shim=False, path_after=[orig], name="base")
    r = run(TRAINING_LOOP, path_after=[orig], name="shim")
    check("Error in sitecustomize; set PYTHONVERBOSE for traceback:\n"
          "ValueError: boom from the original\n" == base.err, "baseline: site.py's message", base)
    check(r.err == base.err and r.out == base.out and r.rc == base.rc,
          "the same message, output and exit code with the shim", r)
    check_events(r, expected_training_loop(), "the shim still marks")


def switch_off():
    orig = write_site("orig_site", ORIG_SITE)
    code = ("import sys\n" + TRAINING_LOOP.replace(
        'print("batches", seen)', 'print("batches", seen, "_shim" in str(sorted(sys.modules)))'))
    r = run(code, path_after=[orig], env={"STEPSCOPE_PYSHIM": "0"}, name="off")
    check(r.rc == 0 and r.err == "", "runs quietly", r)
    check(r.out.splitlines() == ["original sitecustomize ran as sitecustomize",
                                  "batches 6 False"], "chains, and patches nothing", r)
    check(r.events is None, "no NVTX call with STEPSCOPE_PYSHIM=0", r)


def fake_torch_training_loop():
    r = run(TRAINING_LOOP, args=["5"], name="loop")
    check(r.rc == 5 and r.out == "batches 6\n" and r.err == "", "exit code and output kept", r)
    check_events(r, expected_training_loop(), "fake torch loop")


def fake_torch_two_optimizers():
    code = r"""
import gc, torch
from torch.utils.data import DataLoader
gen, disc = torch.optim.SGD([]), torch.optim.SGD([])
loader = DataLoader(list(range(2)))
for batch in loader:
    gen.step()
    disc.step()
del gen
gc.collect()
for batch in loader:   # the stepping optimizer is gone: disc takes over
    disc.step()
"""
    r = run(code, name="two")
    check(r.rc == 0 and r.err == "", "runs quietly", r)
    ev = HEADER + [step_begin(0)]
    step = 0
    for _epoch in range(2):
        ev += DATA
        for _batch in range(2):
            step += 1
            ev += DATA + ["pop stepscope", step_begin(step)]
            if step == 1:
                ev.append(mark(LOADER_FAKE))
        ev += DATA
    check_events(r, ev, "one step per iteration with two optimizers")


def fake_torch_no_dataloader():
    code = "import torch\nopt = torch.optim.SGD([])\nfor i in range(3):\n    opt.step()\n"
    r = run(code, name="nodl")
    check(r.rc == 0 and r.err == "", "runs quietly", r)
    check_events(r, HEADER + [step_begin(1), "pop stepscope", step_begin(2), "pop stepscope",
                              step_begin(3)], "step 0 unmarked without a DataLoader")


def fake_torch_data_error():
    code = r"""
import torch
from torch.utils.data import DataLoader
class Flaky:
    def __len__(self): return 2
    def __getitem__(self, i):
        if i == 1: raise ValueError("bad sample")
        return i
it = iter(DataLoader(Flaky()))
print(next(it))
try:
    next(it)
except ValueError as exc:
    print("caught", exc)
"""
    r = run(code, name="dataerr")
    check(r.rc == 0 and r.out == "0\ncaught bad sample\n" and r.err == "",
          "the dataset's exception reaches the program unchanged", r)
    check_events(r, HEADER + [step_begin(0)] + DATA * 3, "the data range closes on an exception")


def fake_torch_dataloader_mark():
    """The DataLoader mark: the loader's settings, the batch's samples and tokens times the
    batches a step took (2: gradient accumulation), the trainable parameters the optimizer
    steps (a tensor listed twice counted once, a frozen one not); said once, and again for a
    loader with other settings; a batch of floats has no tokens."""
    code = r"""
import torch
from torch.utils.data import DataLoader
class Ids:
    def __init__(self, shape, dtype): self.shape, self.dtype = shape, dtype
class P:
    def __init__(self, n, grad=True): self.n, self.requires_grad = n, grad
    def numel(self): return self.n
shared = P(1000)
opt = torch.optim.SGD([shared, P(24), shared, P(500, grad=False)])
loader = DataLoader([{"input_ids": Ids((4, 32), "torch.int64")}] * 4, batch_size=4)
loader.num_workers, loader.pin_memory = 3, True
for epoch in range(2):
    for i, batch in enumerate(loader):
        if i % 2:
            opt.step()
other = DataLoader([(Ids((6, 3, 8, 8), "torch.float32"), 0)] * 2, batch_size=6)
for batch in other:
    opt.step()
"""
    r = run(code, name="dlmark")
    check(r.rc == 0 and r.err == "", "runs quietly", r)
    marks = [e for e in (r.events or []) if e.startswith("mark ")]
    check(marks == [mark("dataloader: workers=3 batch_size=4 pin_memory=1 persistent_workers=0 "
                         "samples=8 tokens=256 batches_per_step=2 params=1024"),
                    mark("dataloader: workers=0 batch_size=6 pin_memory=0 persistent_workers=0 "
                         "samples=6 tokens=0 batches_per_step=1 params=1024")],
          "one mark per loader settings, per step: %r" % marks, r)


def mark(text):
    return "mark stepscope cat=2 ascii:%s payload=none" % text


PROF_START, PROF_STOP = mark("torch.profiler.start"), mark("torch.profiler.stop")
KINETO_PREPARE, KINETO_ENABLE, KINETO_DISABLE = (
    mark("fake:_prepare_profiler"), mark("fake:_enable_profiler"), mark("fake:_disable_profiler"))


def fake_torch_profiler_marks():
    code = r"""
import torch
with torch.profiler.profile() as p:                       # context manager
    pass
with torch.autograd.profiler.profile(use_device="cuda"):  # the autograd profiler
    pass
with torch.autograd.profiler.profile(enabled=False):      # disabled: no marks
    pass
p = torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA],
                           schedule=torch.profiler.schedule(wait=1, warmup=1, active=2, repeat=2),
                           on_trace_ready=lambda prof: print("trace ready"))
p.start()
for _ in range(10):
    p.step()
p.stop()
print("done")
"""
    r = run(code, name="prof")
    check(r.rc == 0 and r.out == "trace ready\ntrace ready\ndone\n" and r.err == "",
          "runs quietly, the profiler's own behaviour kept", r)
    cycle = [PROF_START, KINETO_PREPARE, KINETO_ENABLE, KINETO_DISABLE, PROF_STOP]
    # The schedule's two cycles: the profile object is reused, and announced again each time.
    check_events(r, HEADER + cycle * 4, "start before prepare, stop after disable, every cycle")
    base = run(code, shim=False, name="prof_base")
    check(base.out == r.out and base.rc == r.rc and base.err == r.err, "same as without shim", r)
    check_events(base, [e for e in r.events if e not in (PROF_START, PROF_STOP)],
                 "without the shim: only the fake Kineto's marks")


TICK_GRAPH, TICK_BACKWARD = mark("stepscope.tick.graph"), mark("stepscope.tick.backward")


def fake_torch_loop_ticks():
    """A CUDA graph replayed, backward() run, with no optimizer step since the previous call of
    the kind: a tick mark each (the first call of a kind has nothing before it); an optimizer
    step between two calls: none. Results and exceptions pass through."""
    code = r"""
import torch, torch.autograd as ag, torch.cuda.graphs as G
import torch.optim.optimizer as O
class SGD(O.Optimizer):
    def step(self): pass
opt, g = SGD([]), G.CUDAGraph()
for _ in range(3):                  # an ordinary loop: a step after every backward and replay
    ag.backward("loss"); g.replay(); opt.step()
print(g.replay(), g.replay())       # replays with no step between: one tick (the second)
for _ in range(3):
    ag.backward("loss")             # two ticks
try:
    ag.backward("raise")            # a tick, then the program's own exception
except RuntimeError as e:
    print(e)
print(G.replays, ag.backward_calls)
"""
    r = run(code, name="ticks")
    check(r.rc == 0 and r.err == "" and
          r.out == "replayed replayed\nbackward failed\n5 6\n", "runs quietly, results kept", r)
    steps = []
    for n in range(1, 4):
        steps += [] if n == 1 else ["pop stepscope"]
        steps.append(step_begin(n))
    check_events(r, HEADER + steps + [TICK_GRAPH] + [TICK_BACKWARD] * 3,
                 "ticks only where no optimizer step came between")


PROFILER_ERRORS = r"""
import traceback, torch
def attempt(label, fail, fn):
    torch.autograd.profiler.FAIL = fail
    try:
        fn()
        print(label, "no exception")
    except BaseException as exc:
        tb = traceback.extract_tb(exc.__traceback__)
        print(label, type(exc).__name__, exc, "raised in", tb[-1].name)
def body():
    with torch.profiler.profile():
        raise KeyError("from the body")
def plain():
    with torch.profiler.profile():
        pass
attempt("prepare", "_prepare_profiler", plain)
attempt("enable", "_enable_profiler", plain)
attempt("disable", "_disable_profiler", plain)
attempt("body", None, body)
"""


def fake_torch_profiler_errors():
    r = run(PROFILER_ERRORS, name="proferr")
    base = run(PROFILER_ERRORS, shim=False, name="proferr_base")
    check(base.out.splitlines() == [
        "prepare RuntimeError fake _prepare_profiler failed raised in _kineto",
        "enable RuntimeError fake _enable_profiler failed raised in _kineto",
        "disable RuntimeError fake _disable_profiler failed raised in _kineto",
        "body KeyError 'from the body' raised in body"], "baseline", base)
    check(r.out == base.out and r.rc == base.rc == 0 and r.err == base.err == "",
          "every exception reaches the program unchanged", r)
    # A failed __enter__ has no __exit__ after it: the shim closes the window itself.
    check_events(r, HEADER + [
        PROF_START, KINETO_PREPARE, PROF_STOP,
        PROF_START, KINETO_PREPARE, KINETO_ENABLE, PROF_STOP,
        PROF_START, KINETO_PREPARE, KINETO_ENABLE, KINETO_DISABLE, PROF_STOP,
        PROF_START, KINETO_PREPARE, KINETO_ENABLE, KINETO_DISABLE, PROF_STOP,
    ], "start/stop pair around each profiler run, also when it fails")


def broken_lib_case(lib_path, name):
    base = run(TRAINING_LOOP, shim=False, args=["3"], name=name + "_base")
    r = run(TRAINING_LOOP, env={"STEPSCOPE_MARKERS_LIB": lib_path}, args=["3"], name=name)
    check(base.rc == 3 and base.out == "batches 6\n", "baseline", base)
    check(r.rc == base.rc and r.out == base.out, "exit code and output unchanged", r)
    lines = r.err.splitlines()
    check(len(lines) == 1 and lines[0].startswith("stepscope: python shim disabled: ")
          and lib_path in lines[0], "exactly one stderr line naming the library", r)
    check(r.events is None, "no NVTX events", r)


def fake_torch_broken_markers_lib():
    bogus = os.path.join(TMP, "bogus.so")
    with open(bogus, "w") as f:
        f.write("not an ELF file\n")
    broken_lib_case(bogus, "bogus")


def fake_torch_missing_symbols():
    broken_lib_case(FAKE_INJECT, "nosym")  # a real .so without the stepscope_markers_* symbols


def torch_python():
    """The first interpreter that has torch, as tests/workloads/test_train_cpu.sh picks it:
    STEPSCOPE_TEST_PYTHON, this one, or the system's (CI installs Debian's python3-torch)."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    for cand in (os.environ.get("STEPSCOPE_TEST_PYTHON"), sys.executable, "/usr/bin/python3"):
        if not cand or not shutil.which(cand):
            continue
        probe = subprocess.run([cand, "-c", "import torch"], capture_output=True, env=clean)
        if probe.returncode == 0:
            return cand
    return None


def real_torch_training_loop():
    python = torch_python()
    if python is None:
        print("skipped: torch not installed")
        return SKIP
    r = run(TRAINING_LOOP, fake_torch=False, name="real", python=python)
    has_hook = subprocess.run(
        [python, "-c", "import torch.optim.optimizer as o; "
         "raise SystemExit(not hasattr(o, 'register_optimizer_step_post_hook'))"],
        capture_output=True).returncode == 0
    if not has_hook:
        # torch < 2.0 (e.g. Debian's, which CI installs): one line, data ranges, no steps.
        check(r.rc == 0 and r.out == "batches 6\n", "runs", r)
        said = [line for line in r.err.splitlines() if "stepscope" in line]
        check(said == ["stepscope: python shim: this torch has no global optimizer step hook: "
                       "step markers off"], "says once that step markers are off", r)
        check_events(r, HEADER + DATA * 10, "real torch loop without the optimizer hook")
        return 0
    # torch may warn on stderr by itself (e.g. without NumPy); the shim must not.
    check(r.rc == 0 and r.out == "batches 6\n" and "stepscope" not in r.err, "runs", r)
    check_events(r, expected_training_loop(LOADER_REAL), "real torch loop")


CASES = {f.__name__: f for f in (
    no_torch_loads_nothing, chains_existing_sitecustomize, chains_failing_sitecustomize,
    switch_off, fake_torch_training_loop, fake_torch_two_optimizers, fake_torch_no_dataloader,
    fake_torch_data_error, fake_torch_profiler_marks, fake_torch_profiler_errors,
    fake_torch_broken_markers_lib, fake_torch_missing_symbols, fake_torch_loop_ticks,
    fake_torch_dataloader_mark, real_torch_training_loop)}


def main(argv):
    if len(argv) != 2 or argv[1] not in CASES:
        print("usage: test_pyshim.py {%s}" % "|".join(CASES), file=sys.stderr)
        return 2
    shutil.rmtree(TMP, ignore_errors=True)
    os.makedirs(TMP)
    try:
        rc = CASES[argv[1]]()
    except AssertionError as exc:
        print("FAIL: %s" % exc)
        return 1
    if rc == SKIP:
        return SKIP
    print("ok: %s" % argv[1])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
