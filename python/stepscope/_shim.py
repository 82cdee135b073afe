"""The torch part of the shim, installed once right after `import torch` has finished.

Step boundaries come from torch's global optimizer hook: a step ends when optimizer.step()
returns, and the next one begins at once. Data loading is every DataLoader iterator __next__
(and DataLoader.__iter__, where worker processes start) wrapped in a "data" range.

Step numbering (docs/markers.md): step k is the time up to the (k+1)-th optimizer.step() of the
*stepping optimizer*. Step 0 begins at the first data-loading call on the main thread; when the
program has no DataLoader, step 0 has no begin and is not marked (the first marked step is 1).
The stepping optimizer is the first optimizer whose step() runs; with several optimizers (GAN,
multi-task) the others' steps fall inside its steps, so there is one step per iteration. When it
is garbage-collected, the next optimizer that steps takes over. A range is closed only by the
thread that opened it (NVTX push/pop ranges are per thread). The range opened after the last
optimizer.step() is never closed: it is not a step (the analysis drops unclosed step ranges).

torch.profiler: CUPTI serves one activity client at a time, so the collector must step aside
while torch.profiler (Kineto) records and step back in when it stops. Every profiler entry point
(torch.profiler.profile with or without a schedule, torch.autograd.profiler.profile) goes through
torch.autograd.profiler.profile: _prepare_trace() is where Kineto first touches CUPTI, and
__exit__() is where it stops (_disable_profiler). The shim marks "torch.profiler.start" right
before the first and "torch.profiler.stop" right after the second (or after a failing
_prepare_trace/_start_trace); the collector acts on the marks synchronously, so the order is
guaranteed.
"""
import os
import sys
import threading
import weakref

from stepscope import _compile, _loader, _markers, _settings

_PREFIX = "stepscope: python shim"
_WRAPPED = "_stepscope_wrapped"
PROFILER_START = "torch.profiler.start"
PROFILER_STOP = "torch.profiler.stop"
_ANNOUNCED = "_stepscope_profiler_announced"  # set on a profile object between the two marks


class StepTracker:
    def __init__(self, markers, loader=None):
        self._m = markers
        self._loader = loader  # _loader.LoaderWatch: told when a step ends
        self._lock = threading.Lock()
        self._owner = None  # weakref (or id) of the stepping optimizer
        self._open_thread = None  # ident of the thread whose step range is open
        self._next = 0  # number of the step that the next optimizer step ends
        self._started = False
        self.optimizer_steps = 0  # steps of every optimizer (LoopTicks reads it)
        if hasattr(os, "register_at_fork"):
            os.register_at_fork(after_in_child=self._after_fork)

    def _after_fork(self):
        # The lock may have been held by another thread of the parent at fork time.
        self._lock = threading.Lock()

    def before_data(self):
        """Opens step 0 at the first data-loading call of the main thread."""
        if self._started or threading.current_thread() is not threading.main_thread():
            return
        with self._lock:
            if self._started:
                return
            self._started = True
            self._m.step_begin(0)
            self._open_thread = threading.get_ident()

    def _is_owner(self, optimizer):
        owner = self._owner
        if isinstance(owner, weakref.ref):
            current = owner()
            if current is not None:
                return current is optimizer
        elif owner is not None:
            return owner == id(optimizer)
        try:
            self._owner = weakref.ref(optimizer)
        except TypeError:
            self._owner = id(optimizer)
        return True

    def on_optimizer_step(self, optimizer, args, kwargs):
        """torch's global optimizer step post hook. Must never raise."""
        try:
            if _compile.MARKS is not None:  # a compile range that dynamo ended elsewhere
                _compile.MARKS.close_dangling()
            with self._lock:
                self.optimizer_steps += 1
                if not self._is_owner(optimizer):
                    return
                tid = threading.get_ident()
                if self._open_thread == tid:
                    self._m.step_end()
                self._started = True
                self._next += 1
                self._m.step_begin(self._next)
                self._open_thread = tid
            _loader_call(self._loader, "step_done", optimizer)
        except Exception as exc:  # noqa: BLE001
            self._m.enabled = False
            sys.stderr.write("%s: step markers disabled: %s\n" % (_PREFIX, exc))


# Marks of a loop that goes on without optimizer steps (docs/markers.md, "Loop ticks"): the
# collector's --capture auto opens its window on them when the step marks stop or never come.
TICK_GRAPH = "stepscope.tick.graph"
TICK_BACKWARD = "stepscope.tick.backward"


class LoopTicks:
    """A tick each time a CUDA graph is replayed, or backward() runs, with no optimizer step
    since the previous one of its kind: the whole step captured in a graph, a hand-written
    update, an optimizer the global hook does not see. A program whose optimizer steps between
    them never ticks."""

    def __init__(self, markers, steps):
        self._m, self._steps = markers, steps
        self._last = {}  # text -> optimizer steps seen at the previous call of that kind

    def tick(self, text):
        seen = self._steps.optimizer_steps
        if self._last.get(text) == seen:
            self._m.mark(text)
        self._last[text] = seen


def _wrap_ticking(owner, name, ticks, text):
    """owner.<name> ticks before it runs; its result and exceptions pass through."""
    original = getattr(owner, name, None)
    if original is None or getattr(original, _WRAPPED, False):
        return

    def wrapped(*args, **kwargs):
        try:
            ticks.tick(text)
        except Exception:  # noqa: BLE001 - never in the program's way
            pass
        return original(*args, **kwargs)

    wrapped.__name__ = getattr(original, "__name__", name)
    wrapped.__qualname__ = getattr(original, "__qualname__", name)
    wrapped.__doc__ = getattr(original, "__doc__", None)
    wrapped.__wrapped__ = original
    setattr(wrapped, _WRAPPED, True)
    try:
        setattr(owner, name, wrapped)
    except (AttributeError, TypeError):  # a C type that refuses it: no ticks of that kind
        pass


def _install_loop_ticks(markers, steps):
    """CUDAGraph.replay (torch.cuda.graph and torch.compile's CUDA graph trees call it) and
    torch.autograd.backward (Tensor.backward looks it up at each call)."""
    ticks = LoopTicks(markers, steps)
    try:
        import torch.autograd as autograd_mod
        import torch.cuda.graphs as graphs_mod
    except ImportError:
        return
    cls = getattr(graphs_mod, "CUDAGraph", None)
    if cls is not None:
        _wrap_ticking(cls, "replay", ticks, TICK_GRAPH)
    _wrap_ticking(autograd_mod, "backward", ticks, TICK_BACKWARD)


def _safe_before_data(steps):
    try:
        steps.before_data()
    except Exception as exc:  # noqa: BLE001
        steps._started = True  # do not try (and report) again
        sys.stderr.write("%s: step markers disabled: %s\n" % (_PREFIX, exc))


def _loader_call(watch, name, *args):
    """watch.<name>(*args); a failure stops the watch with one line, never the program."""
    if watch is None or not watch.enabled:
        return
    try:
        getattr(watch, name)(*args)
    except Exception as exc:  # noqa: BLE001
        watch.enabled = False
        sys.stderr.write("%s: DataLoader mark disabled: %s\n" % (_PREFIX, exc))


def _wrap_data_method(cls, name, markers, steps, tell=None):
    """cls.<name> (a loader iterator's __next__, a DataLoader's __iter__: where worker start-up
    and fetching happen) inside the data-loading range; once, however often it is called.
    tell: (watch, method) given the DataLoader (__iter__) or the batch (__next__)."""
    original = getattr(cls, name)
    if getattr(original, _WRAPPED, False):
        return

    def wrapped(self):
        _safe_before_data(steps)
        if tell and name == "__iter__":
            _loader_call(tell[0], tell[1], self)
        markers.data_begin()
        try:
            result = original(self)
        finally:
            markers.data_end()
        if tell and name == "__next__":
            _loader_call(tell[0], tell[1], result)
        return result

    wrapped.__name__ = original.__name__
    wrapped.__qualname__ = getattr(original, "__qualname__", name)
    wrapped.__doc__ = original.__doc__
    wrapped.__wrapped__ = original
    setattr(wrapped, _WRAPPED, True)
    setattr(cls, name, wrapped)


def _set_announced(profile, value):
    try:
        setattr(profile, _ANNOUNCED, value)
    except Exception:  # noqa: BLE001 - an object that refuses attributes: no marks
        return False
    return True


def _wrap_profiler(cls, markers):
    """Marks PROFILER_START before cls._prepare_trace and PROFILER_STOP after cls.__exit__, once
    per profiling cycle of each profile object; the profiler's results and exceptions pass
    through unchanged. When _prepare_trace or _start_trace raises, PROFILER_STOP follows at
    once: torch calls no __exit__ after a failed __enter__."""
    prepare, start, exit_ = cls._prepare_trace, cls._start_trace, cls.__exit__
    if getattr(prepare, _WRAPPED, False):
        return

    def close(self):
        if getattr(self, _ANNOUNCED, False):
            _set_announced(self, False)
            markers.mark(PROFILER_STOP)

    def _prepare_trace(self, *args, **kwargs):
        if not getattr(self, _ANNOUNCED, False) and _set_announced(self, True):
            markers.mark(PROFILER_START)
        try:
            return prepare(self, *args, **kwargs)
        except BaseException:
            close(self)
            raise

    def _start_trace(self, *args, **kwargs):
        try:
            return start(self, *args, **kwargs)
        except BaseException:
            close(self)
            raise

    def __exit__(self, *args, **kwargs):
        try:
            return exit_(self, *args, **kwargs)
        finally:
            close(self)

    for new, old in ((_prepare_trace, prepare), (_start_trace, start), (__exit__, exit_)):
        new.__name__ = old.__name__
        new.__qualname__ = getattr(old, "__qualname__", old.__name__)
        new.__doc__ = old.__doc__
        new.__wrapped__ = old
        setattr(new, _WRAPPED, True)
    cls._prepare_trace, cls._start_trace, cls.__exit__ = _prepare_trace, _start_trace, __exit__


def _install_profiler_marks(markers):
    try:
        import torch.autograd.profiler as profiler_mod

        cls = profiler_mod.profile
        cls._prepare_trace, cls._start_trace, cls.__exit__  # noqa: B018 - all must exist
    except (ImportError, AttributeError) as exc:
        sys.stderr.write(
            "%s: torch.profiler not recognised (%s): stepscope's GPU trace and "
            "torch.profiler may conflict\n" % (_PREFIX, exc)
        )
        return
    _wrap_profiler(cls, markers)


def _pysampler_started():
    mod = sys.modules.get("stepscope._pysampler")
    return mod is not None and mod.SAMPLER is not None


def _start_host_samples():
    """The stack sampler (_pysampler.py) is independent of the markers: started first, and its
    failure to start is said on its own line. Without an injection variable no collector can
    be in the process: then nothing is even imported."""
    if not (os.environ.get("NVTX_INJECTION64_PATH") or os.environ.get("CUDA_INJECTION64_PATH")):
        return
    try:
        from stepscope import _pysampler

        _pysampler.start_from_env()
    except Exception as exc:  # noqa: BLE001
        sys.stderr.write("%s: host samples off: %s\n" % (_PREFIX, exc))


def _stop_samples_at_graph_capture():
    """CUDA graph capture (torch.cuda.graph, CUDA graph trees of torch.compile's
    reduce-overhead mode) checks when tensors die; the stack sampler's snapshots could move
    that (see _pysampler.Sampler.stop_for_graphs): the first capture stops the sampler."""
    from stepscope import _pysampler

    try:
        import torch.cuda.graphs as graphs_mod

        cls = graphs_mod.CUDAGraph
        original = cls.capture_begin
    except (ImportError, AttributeError):
        return
    if getattr(original, _WRAPPED, False):
        return

    def capture_begin(self, *args, **kwargs):
        sampler = _pysampler.SAMPLER
        if sampler is not None:
            try:
                sampler.stop_for_graphs()
            except Exception:  # noqa: BLE001 - never in the program's way
                pass
        return original(self, *args, **kwargs)

    capture_begin.__name__ = original.__name__
    capture_begin.__doc__ = original.__doc__
    capture_begin.__wrapped__ = original
    setattr(capture_begin, _WRAPPED, True)
    try:
        cls.capture_begin = capture_begin
    except (AttributeError, TypeError):  # a C type that refuses it: sampling stays unsafe there
        sys.stderr.write("%s: host samples: cannot watch CUDA graph capture\n" % _PREFIX)


AUTO_FIRST_STEP = 8


def _say_steps_will_be_marked():
    """Tells this process's collector (it reads this at its start and again when CUDA starts:
    NVTX may have loaded it during torch's import) that the optimizer's steps will be marked:
    --capture auto
    then leaves steps 0-7 unrecorded and the report measures the recording's cost against
    steps 3-7 (src/collect/ssc_core.c, capture_auto). The pid keeps it from children that
    inherit the environment and mark no steps (a C++ tool the script runs)."""
    os.environ[_settings.env("AUTO_FROM")] = "%d:%d" % (AUTO_FIRST_STEP, os.getpid())


def install():
    """Raises when nothing could be installed (the caller prints one line)."""
    import torch.optim.optimizer as optimizer_mod
    import torch.utils.data.dataloader as dataloader_mod

    register = getattr(optimizer_mod, "register_optimizer_step_post_hook", None)
    if register is not None:
        _say_steps_will_be_marked()
    _start_host_samples()
    if _pysampler_started():
        _stop_samples_at_graph_capture()
    markers = _markers.load()
    loader = _loader.LoaderWatch(markers)
    steps = StepTracker(markers, loader)
    if register is None:
        sys.stderr.write(
            "%s: this torch has no global optimizer step hook: step markers off\n" % _PREFIX
        )
        steps._started = True  # no step 0 either: nothing would ever close it
    else:
        register(steps.on_optimizer_step)
    _wrap_data_method(dataloader_mod._BaseDataLoaderIter, "__next__", markers, steps,
                      (loader, "on_batch"))
    _wrap_data_method(dataloader_mod.DataLoader, "__iter__", markers, steps, (loader, "on_iter"))
    _install_profiler_marks(markers)
    _install_loop_ticks(markers, steps)
    _compile.watch(markers)
