"""Host stack samples: where each Python thread of the program is, ~100 times a second.

Native reading first (issue #28): the collector reads the interpreter's frames itself, without
the GIL, from a thread of its own (src/collect/ssc_pynative.c), once it knows CPython's struct
layout — from _Py_DebugOffsets on 3.13, learned on 3.11/3.12 from what the public API says
about the frames of _Learn below (src/collect/ssc_pylearn.c), and checked against them. Then
samples land on the line running at that instant, also inside C calls that hold the GIL, and
each CUDA call that blocks gets the line that made it (PY_CALL, in the collector's CUPTI
callback). This thread then only names threads, once a second. Where the layout cannot be had
(Python 3.10, a check failing, process_vm_readv forbidden), or STEPSCOPE_PYFRAMES=gil, the
sampler below takes sys._current_frames() under the GIL, as before:

A thread of ours wakes at a randomised interval (mean 1/rate: no aliasing with a periodic
training step), takes sys._current_frames() — one snapshot of every thread's Python stack,
taken under the GIL — and hands it to the collector (src/collect/ssc_pyhost.c, bound in
_collector.py), which walks the frames in C, interns frames by (code object, instruction
offset) and stacks by their frame ids, and writes PY_FRAME / PY_STACK / PY_SAMPLE records on the
trace's clock. After warm-up a tick is one snapshot, one C call and one record per thread.

Why this way (measured, see bench/overhead/host_sampler_bench.py and docs/markers.md): PyTorch
releases the GIL in ops, backward, DataLoader waits and item(), so the sampler runs there at
once and sees the thread's Python stack at the call; only long C calls that keep the GIL delay a
sample, and each sample says how late it was (lag_us). A native reader of CPython's frame
structures would not need the GIL, but needs per-version struct offsets for 3.10-3.12; walking
in Python cost tens of times what it costs in C with the caches cold from the training step
(docs/performance.md, "Figures behind the collector's choices").

Synchronising calls (PY_CALL records): where the collector sees CUDA API calls as they start
(STEPSCOPE_API=callbacks), the wait between ticks is a wait for a thread blocked in a stream,
device or event synchronize (sync_wait, in C, without the GIL); one such thread still blocked
100 us after its call began is snapshotted alone, at most once per mean interval, so the line
of a short `.item()` is known however seldom a tick lands in it.

Rules kept here: nothing runs without an injection variable (a plain run pays nothing); the
thread never records in a process the collector does not record (a fork()ed child has no
sampler); no reference to a frame outlives a sample (a frame keeps its locals, i.e. tensors,
alive); memory is bounded (the C tables are cleared at a cap, said once); any failure stops the sampler
with one line on stderr and leaves the program alone.
"""
import _thread
import os
import sys
import time

from stepscope import _settings

_monotonic_ns = time.monotonic_ns
_current_frames = getattr(sys, "_current_frames", None)
_gettrace, _settrace = sys.gettrace, sys.settrace
_getprofile, _setprofile = sys.getprofile, sys.setprofile

MAX_THREADS_NAMED = 4096
SUPPORTED = ((3, 10), (3, 13))  # inclusive
FIND_FAST_S, FIND_SLOW_S, FIND_FAST_FOR_S = 0.1, 1.0, 30.0
EXIT_WAIT_S = 1.0
PAUSED_WAIT_S = 0.05
NAMES_EVERY = 64
NATIVE_NAMES_S = 0.1  # native mode: how often this thread looks for new threads to name
_SS_EINVAL = -3  # src/util/ss_error.h: what sample_frames says once the collector stopped
# A thread blocked in a synchronising CUDA call this long after the call's entry gets one
# snapshot of its own (a PY_CALL record: the line that issued the sync, docs/trace-format.md);
# at most one such snapshot per mean sampling interval.
SYNC_MIN_BLOCK_NS = 100000
SYNC_RETRY_NS = 1000000000  # the collector sees no calls as they start now: ask again after

# CAPTURE reasons (docs/trace-format.md): start, window edge (pause), exit, error.
CAP_START, CAP_WINDOW, CAP_EXIT, CAP_ERROR = 1, 2, 5, 6
NOTE_INFO, NOTE_WARN = 1, 2

_PREFIX = "stepscope: host samples"


def parse_rate(value):
    """STEPSCOPE_HOST_SAMPLES as `record --host-samples` takes it (the settings table's row):
    unset or '' -> (the default, None); 'off' -> (0, None); a whole number of Hz in its range
    -> (Hz, None); anything else ('0', 'no', '2.5', ...) -> (the default, problem text)."""
    v = _settings.parse("HOST_SAMPLES", value)
    return (0 if v.value == "off" else v.value), v.problem


def interpreter_problem():
    """Why this interpreter cannot be sampled, or None."""
    impl = sys.implementation.name
    ver = sys.version_info[:2]
    if impl != "cpython":
        return "%s is not supported (CPython %d.%d-%d.%d only)" % ((impl,) + SUPPORTED[0] + SUPPORTED[1])
    if not SUPPORTED[0] <= ver <= SUPPORTED[1]:
        return "Python %d.%d is not supported (%d.%d-%d.%d)" % (ver + SUPPORTED[0] + SUPPORTED[1])
    if sys.version_info[:3] in ((3, 12, 0), (3, 12, 1)) and \
            _settings.get("HOST_SAMPLES_FORCE").value != 1:
        # CPython gh-111049: the garbage collector can crash on a BytesIO buffer in a reference
        # cycle; a sampler thread's allocations move collections to where they hit it (seen as
        # a segfault in multiprocessing DataLoader runs on 3.12.1). Fixed in 3.12.2.
        return "Python %d.%d.%d can crash in garbage collection (CPython gh-111049): use " \
            "3.12.2 or later" % sys.version_info[:3]
    gil = getattr(sys, "_is_gil_enabled", None)
    if gil is not None and not gil():
        return "a free-threaded Python (no GIL) is not supported"
    if not hasattr(sys, "_current_frames"):
        return "this Python has no sys._current_frames"
    return None


def _utf8(text):
    """Valid UTF-8 whatever the text holds (a file name with undecodable bytes comes as lone
    surrogates: they become \\udcXX escapes)."""
    return text.encode("utf-8", "backslashreplace")


class ThreadNames:
    """Gives each thread that threading knows its Python name in the trace, once."""

    def __init__(self, api):
        import threading

        self._api = api
        self._active = getattr(threading, "_active", {})
        self._dummy = getattr(threading, "_DummyThread", ())
        self._idents = frozenset()
        self._named = set()  # kernel tids named

    def update(self):
        """Only a change in the set of threads costs anything. Reads threading's own table,
        never a frame snapshot (see Sampler._tick)."""
        idents = frozenset(self._active)
        if self._idents == idents:
            return
        self._idents = idents
        for ident in self._idents:
            thread = self._active.get(ident)
            tid = getattr(thread, "native_id", None)
            if not tid or tid in self._named or isinstance(thread, self._dummy):
                continue
            if len(self._named) >= MAX_THREADS_NAMED:
                return
            self._named.add(tid)
            name = _utf8(str(thread.name))
            self._api.thread_name(tid, name, len(name))


class Sampler:
    def __init__(self, hz, explicit, environ=os.environ):
        self.hz = hz
        self.explicit = explicit  # the user asked for samples: say why there are none
        self.paths = None
        self.quiet = _settings.get("QUIET", environ).value == 1
        self.api = None
        self.ticks = 0  # samples taken (all threads of one snapshot count once)
        self.busy_ns = 0  # time spent taking them, GIL held
        self.sync_calls = 0  # snapshots of a thread blocked in a synchronising call (PY_CALL)
        self.lag_us_total = 0  # how late they were, summed (the wait for the GIL)
        self._threads_seen = 0
        self._environ = environ
        self._stop = False
        self._paused = False
        self._graphs = False  # a CUDA graph capture began: no more samples
        self._forked = False
        self._sampling = False  # in the sampling loop: exit waits for its CAPTURE off
        self._done = _thread.allocate_lock()  # held by the thread while it runs
        self._wake = _thread.allocate_lock()  # held; released to end a wait early
        self._said = set()
        self.native = False  # the collector samples natively (this thread only names threads)
        # the process `record` ran: the sampler loads and starts the collector itself when
        # neither CUDA nor NVTX has after a moment (a script that never imports torch)
        self.root = _settings.get("ROOT_PID", environ).value == str(os.getpid())

    # ---- control (any thread) ----

    def start(self):
        import atexit
        # threading must be imported here, on the thread that starts us (the main thread), not
        # first by our thread (ThreadNames does): the thread that imports threading becomes its
        # main thread, and interpreter shutdown then waits for ours forever (a hang at exit,
        # seen when the sampler starts at site time, before the program imports threading)
        import threading  # noqa: F401

        from stepscope import _collector

        self.paths = _collector.candidate_paths(self._environ)
        if not self.paths:
            return False
        if hasattr(os, "register_at_fork"):
            os.register_at_fork(after_in_child=self._after_fork_child)
        self._done.acquire()
        self._wake.acquire()
        try:
            _thread.start_new_thread(self._run, ())
        except Exception:
            self._done.release()
            raise
        atexit.register(self.stop_at_exit)
        return True

    def set_paused(self, paused):
        """Benchmarks: stop sampling for a while (CAPTURE off/on, reason window)."""
        self._paused = bool(paused)

    def stop_for_graphs(self):
        """A CUDA graph is about to be captured (torch.cuda.graph, torch.compile's
        mode="reduce-overhead"): sampling stops for good. Each snapshot makes frame objects and
        allocates, which moves when the program's tensors die (a frame object outlives its
        call; a garbage collection runs in our thread); graph capture checks exactly that —
        torch.compile(mode="reduce-overhead") failed under sampling with
        "graph recording observed an input tensor deallocate during graph recording that did
        not occur during replay". Called with the GIL held, so no tick is in flight."""
        if self._stop or self._graphs or self.native:
            return  # the native reader makes no Python object: graph capture is not disturbed
        self._graphs = True
        self.say(NOTE_INFO, "stopped at the first CUDA graph capture (samples could change when "
                            "tensors are freed, which graph capture checks)")

    def stop_at_exit(self):
        """atexit: a sampling thread writes CAPTURE off and leaves before the interpreter goes;
        one still waiting for the collector is just told to stop."""
        if self._forked or self._stop:
            return
        self._stop = True
        try:
            self._wake.release()
        except RuntimeError:  # not held: already released
            pass
        if self._sampling and self._done.acquire(timeout=EXIT_WAIT_S):
            self._done.release()

    def _after_fork_child(self):
        # Only the forking thread exists in the child: no sampler, and nothing to wait for.
        self._forked = True
        self._stop = True

    def _sleep(self, seconds):
        """Waits, unless stop_at_exit wakes us first. Releases the GIL while waiting."""
        if self._wake.acquire(timeout=seconds):
            self._wake.release()  # woken: stay woken for every later wait

    # ---- messages ----

    def say(self, level, text):
        """One stderr line per text (warnings unless quiet) and a NOTICE record when we can."""
        if text in self._said:
            return
        self._said.add(text)
        if level >= NOTE_WARN and not self.quiet:
            sys.stderr.write("%s: %s\n" % (_PREFIX, text))
        if self.api is not None:
            msg = _utf8("host samples: " + text)
            self.api.notice(level, msg, len(msg))

    # ---- the thread ----

    def _run(self):
        try:
            sys.settrace(None)
            sys.setprofile(None)
            self._main()
        except BaseException as exc:  # noqa: BLE001 - nothing may escape into the program
            self._failed(exc)
        finally:
            self._sampling = False
            self._done.release()

    def _failed(self, exc):
        try:
            self.say(NOTE_WARN, "stopped: %s: %s" % (type(exc).__name__, exc))
            if self.api is not None and self.api.recording():
                self.api.capture(0, CAP_ERROR)
        except BaseException:  # noqa: BLE001
            pass

    def _find(self):
        """Waits until the collector records in this process; the API table, or None."""
        from stepscope import _collector

        started = time.monotonic()
        while not self._stop:
            try:
                api = _collector.find(self.paths)
            except _collector.NotOurs as exc:
                if self.explicit:
                    self.say(NOTE_WARN, "off: %s" % exc)
                return None
            if api is not None and api.recording():
                return api
            if api is None and self.root and _collector.load_and_start(self.paths):
                continue  # a program without CUDA or NVTX: started here (issue #28)
            fast = time.monotonic() - started < FIND_FAST_FOR_S
            self._sleep(FIND_FAST_S if fast else FIND_SLOW_S)
        return None

    def _main(self):
        api = self._find()
        if api is None:
            return
        self.api = api
        problem = interpreter_problem()
        if problem:
            self.say(NOTE_WARN, "off: " + problem)
            return
        version = _utf8("%s (%s)" % (sys.version.split()[0], sys.implementation.name))
        self._sampling = True
        if self._stop or api.begin(self.hz, version, len(version)) != 0:
            return
        if self._start_native(api):
            self._loop_native(api)
        else:
            self._loop(api)
        if api.recording():
            api.capture(0, CAP_EXIT if self._stop or self._graphs else CAP_ERROR)

    def _loop(self, api):
        """Ticks until told to stop. Calls no Python function of ours between waking and the
        trace check: a tracer set on every thread (threading.settrace_all_threads) while we
        waited would see it."""
        import random

        rng = random.Random()  # our own: the program's `random` state is not touched
        names = ThreadNames(api)
        self._ident = _thread.get_ident()
        self._sample = api.sampler()  # stepscope_sample(frames, skip_ident, due_ns)
        if self._sample is None:
            raise RuntimeError("the collector found no CPython API in this process")
        sync_wait, tid, corr = self._sync_args(api)
        wake = self._wake
        period_ns = 1e9 / self.hz
        due = _monotonic_ns()
        sampling = True
        sync_after = 0  # no synchronising call is waited for before this (monotonic ns)
        again = False  # a call site was taken while waiting: the same tick is still due
        while True:
            wait = PAUSED_WAIT_S
            if not self._paused:
                due += 0 if again else int(period_ns * (0.5 + rng.random()))
                wait = (due - _monotonic_ns()) / 1e9
            got = -1  # < 0: no wait for a synchronising call was made
            if wait > 0 and sync_wait is not None and sampling and _monotonic_ns() >= sync_after:
                got = sync_wait(int(wait * 1e9), SYNC_MIN_BLOCK_NS, tid, corr)  # GIL released
                if got < 0:  # not offered now (API calls from activity records)
                    sync_after = _monotonic_ns() + SYNC_RETRY_NS
            if got < 0 and wait > 0 and wake.acquire(True, wait):
                wake.release()  # woken by stop_at_exit: stay woken
            if _gettrace() is not None or _getprofile() is not None:
                _settrace(None)
                _setprofile(None)
            if self._stop or self._graphs:
                return
            again = got > 0
            if again:  # a thread blocked in a synchronising call: its line, now
                self._call_site(tid._obj.value, corr._obj.value)
                sync_after = _monotonic_ns() + period_ns
                continue
            if self._paused == sampling:  # a benchmark switched us off or on
                sampling = not sampling
                api.capture(1 if sampling else 0, CAP_WINDOW)
                due = _monotonic_ns()
            if not sampling:
                continue
            start = _monotonic_ns()
            if not self._tick(names, start, due):
                return  # the collector stopped recording (the process is exiting)
            now = _monotonic_ns()
            self.busy_ns += now - start
            if now - due > period_ns:  # fell behind (GIL held long): no burst of late ticks
                due = now

    def _start_native(self, api):
        """Has the collector learn the frame layout and start its own sampler; False (said
        once, as a NOTICE) when it cannot."""
        why = native_problem(api, self._environ)
        if why is None:
            why = _Learn(api.learner()).run()
        if why == 0 and api.native_start(self.hz, _thread.get_native_id()) == 0:
            self.native = True
            self.ticks += 1  # sampling has begun (the ticks are the collector's now)
            return True
        self.say(NOTE_INFO, "sampled under the GIL: %s" % (why if why else "the collector's "
                                                             "sampler did not start"))
        return False

    def _loop_native(self, api):
        """The collector samples; this thread names new threads and follows pauses. As in
        _loop, no Python function of ours runs between waking and the trace check."""
        names = ThreadNames(api)
        wake = self._wake
        sampling = True
        while True:
            if wake.acquire(True, PAUSED_WAIT_S if self._paused else NATIVE_NAMES_S):
                wake.release()  # woken by stop_at_exit: stay woken
            if _gettrace() is not None or _getprofile() is not None:
                _settrace(None)
                _setprofile(None)
            if self._stop:
                break
            if self._paused == sampling:  # a benchmark switched us off or on
                sampling = not sampling
                if sampling:
                    api.native_start(self.hz, _thread.get_native_id())
                else:
                    api.native_stop()
                api.capture(1 if sampling else 0, CAP_WINDOW)
            if _thread._count() != self._threads_seen:
                self._threads_seen = _thread._count()
                names.update()
        names.update()  # threads started since the last look
        api.native_stop()

    @staticmethod
    def _sync_args(api):
        """The collector's sync_wait (version 2 of its table) and its two out-arguments, or
        (None, None, None)."""
        sync_wait = getattr(api, "sync_wait", None)
        if not sync_wait:
            return None, None, None
        import ctypes

        return sync_wait, ctypes.byref(ctypes.c_uint32()), ctypes.byref(ctypes.c_uint32())

    def _call_site(self, tid, correlation):
        """The stack of thread tid, blocked in the call with this correlation id, as a PY_CALL
        record (the snapshot freed inside the call, as in _tick)."""
        if self._sample(_current_frames(), self._ident, 0, tid, correlation) > 0:
            self.sync_calls += 1

    def _tick(self, names, woke, due):
        """One snapshot of every other thread; woke: when this thread had the GIL again. The
        walk and the records are C (ssc_pyhost.c), in one call with the GIL held. Thread names
        are looked at when the number of threads changes, and every NAMES_EVERY ticks. False
        when the collector no longer records."""
        # one expression: the snapshot (a dict of frame objects) is freed inside the call
        # that used it, before the next bytecode could hand the GIL to another thread, so no
        # frame object of ours outlives its call in the program (its locals would live on)
        n = self._sample(_current_frames(), self._ident, due)
        if n == _SS_EINVAL:
            return False
        if n < 0:
            raise RuntimeError("the collector refused the samples (error %d)" % n)
        self.ticks += 1
        self.lag_us_total += (woke - due) // 1000
        if self.ticks % NAMES_EVERY == 0 or _thread._count() != self._threads_seen:
            self._threads_seen = _thread._count()
            names.update()
        return True


class _Learn:
    """The frames the collector learns CPython's layout from (ssc_pylearn.c): methods (their
    qualified names differ from their names), entered through map() (a C call: 3.12 puts a
    shim frame there, which the learning must see between two known frames), and the learning
    call made twice, the second time one frame deeper (a field that still points at the
    current frame is the current-frame field, not a stale copy)."""

    SAMPLES = ("stepscope", "\xe9t\xe9", "\u20ac\u2030", b"\x00stepscope\xff")

    def __init__(self, learn):
        self.learn = learn

    def run(self):
        """0 when learned, else why not (str)."""
        if self.learn is None:
            return "this Python lacks what the learning needs (3.11+)"
        return list(map(self._a, (0,)))[0]

    def _a(self, _):
        return self._b()

    def _b(self):
        first = self._c()
        return self._d() if first == 1 else first

    def _c(self):
        return self.learn(sys._getframe(), *self.SAMPLES)

    def _d(self):
        return self._c()


def native_problem(api, environ=os.environ):
    """Why the collector cannot read frames natively here, or None."""
    if _settings.get("PYFRAMES", environ).value == "gil":
        return "%s=gil" % _settings.env("PYFRAMES")
    if getattr(api, "learner", None) is None:
        return "the collector is older than this shim"
    if sys.version_info[:2] < (3, 11):
        return "Python %d.%d (native reading needs 3.11+)" % sys.version_info[:2]
    return None


SAMPLER = None


def start_from_env(environ=os.environ):
    """From the shim's install(): starts the sampler when the program runs under a collector
    (an injection variable is set) and samples are not off. Returns the Sampler or None."""
    global SAMPLER
    if SAMPLER is not None:
        return SAMPLER
    rate = _settings.get("HOST_SAMPLES", environ)
    hz, problem = parse_rate(environ.get(_settings.env("HOST_SAMPLES")))
    if hz == 0:
        return None
    sampler = Sampler(hz, explicit=rate.given != 0, environ=environ)
    if problem:
        sampler.say(NOTE_WARN, problem)
    if not sampler.start():
        return None
    SAMPLER = sampler
    return sampler
