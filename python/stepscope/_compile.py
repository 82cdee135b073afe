"""torch.compile awareness: compile ranges, recompilations and graph breaks as NVTX marks.

Nothing here changes what dynamo compiles: it registers torch._dynamo's own compile callbacks
(torch._dynamo.callback, torch >= 2.3; CallbackArgs with the trigger and compile id since 2.6)
and reads, never writes, what dynamo already keeps: the recompile reason of the compile in
progress (the metrics context, torch >= 2.6) and the graph-break counter
(torch._dynamo.utils.counters["graph_break"]). torch._dynamo is not imported by us: a finder
waits for the program's own first `import torch._dynamo` (torch.compile does it), so a program
that never compiles pays nothing. A torch without these APIs gets no marks, silently.

The marks (docs/markers.md), in the shim's NVTX domain on the compiling thread:
  range "compile: <function> (<file>:<line>) [<compile id>]" around each dynamo compile
        ("compile: lazy backward [<id>]" and so on for the other triggers);
  mark  "recompile: <dynamo's guard-failure reason>" right before a recompile's range;
  mark  "graph break: <reason>" at the end of a compile, for each graph break it made.
"""
import re
import sys
import threading

COMPILE = "compile: "
RECOMPILE = "recompile: "
GRAPH_BREAK = "graph break: "
MAX_TEXT = 400
MAX_BREAK_MARKS = 8  # per compile; more are summed up in one last mark
_PREFIX = "stepscope: python shim"
_ID_PREFIX = re.compile(r"^\s*\d+/\d+(?:_\d+)?:\s*")


def _first_line(text):
    line = str(text).strip().split("\n", 1)[0].strip()
    return line[:MAX_TEXT]


def _frame_being_compiled():
    """The code object dynamo is compiling, read from its _compile/compile_inner frame (the
    callback runs inside it), or None."""
    frame = sys._getframe(2)
    for _ in range(24):
        if frame is None:
            return None
        name = frame.f_code.co_name
        if name in ("compile_inner", "_compile") and "convert_frame" in frame.f_code.co_filename:
            code = frame.f_locals.get("code")
            if hasattr(code, "co_filename"):
                return code
        frame = frame.f_back
    return None


def _trigger_name(args):
    trigger = getattr(args, "callback_trigger", None)
    name = getattr(trigger, "name", None)
    return name.lower().replace("_", " ") if name else "dynamo"


def describe(args):
    """The range text for a compile that starts with CallbackArgs args (None on old torch)."""
    trigger = _trigger_name(args)
    compile_id = getattr(args, "compile_id", None)
    suffix = " [%s]" % compile_id if compile_id else ""
    if trigger == "dynamo":
        code = _frame_being_compiled()
        if code is not None:
            where = "%s (%s:%d)" % (getattr(code, "co_qualname", code.co_name),
                                    code.co_filename, code.co_firstlineno)
            return COMPILE + where + suffix
    return COMPILE + trigger + suffix


class CompileMarks:
    """The callbacks. A range is pushed and popped on the thread that compiles; dynamo runs
    the end callbacks where its (process-wide) counter of pending compiles drops to zero, so an
    end on another thread leaves the range to be closed by close_dangling() on its own thread."""

    def __init__(self, markers, utils):
        self._m = markers
        self._utils = utils
        self._tls = threading.local()
        self._breaks = {}  # graph-break reason -> count already marked
        self._dangling = False  # an end callback ran on a thread that had no range open
        self.enabled = True
        self._snapshot_breaks()

    def _fail(self, exc):
        self.enabled = False
        sys.stderr.write("%s: torch.compile marks disabled: %s\n" % (_PREFIX, exc))

    def _recompile_reason(self):
        get = getattr(self._utils, "get_metrics_context", None)
        metrics = getattr(get(), "_metrics", None) if get else None
        reason = metrics.get("recompile_reason") if isinstance(metrics, dict) else None
        return _ID_PREFIX.sub("", _first_line(reason)) if reason else None

    def on_start(self, args=None):
        if not self.enabled:
            return
        try:
            self.close_dangling()
            reason = self._recompile_reason()
            if reason:
                self._m.mark(RECOMPILE + reason)
            if not getattr(self._tls, "open", False):
                self._m.range_push(describe(args))
                self._tls.open = True
        except Exception as exc:  # noqa: BLE001 - a mark must never break a compile
            self._fail(exc)

    def on_end(self, args=None):
        if not self.enabled:
            return
        try:
            if getattr(self._tls, "open", False):
                self._m.range_pop()
                self._tls.open = False
            else:
                self._dangling = True  # the opener closes its range: close_dangling()
            self._mark_graph_breaks()
        except Exception as exc:  # noqa: BLE001
            self._fail(exc)

    def close_dangling(self):
        """On a thread whose compile range was ended elsewhere: pop it now (the step marker
        calls this too, so the thread's step ranges stay nested right)."""
        if self._dangling and getattr(self._tls, "open", False):
            self._dangling = False
            self._m.range_pop()
            self._tls.open = False

    def _counter(self):
        counters = getattr(self._utils, "counters", None)
        return counters.get("graph_break") if hasattr(counters, "get") else None

    def _snapshot_breaks(self):
        counter = self._counter()
        self._breaks = dict(counter) if counter else {}

    def _mark_graph_breaks(self):
        counter = self._counter()
        if not counter:
            return
        new = [(reason, n - self._breaks.get(reason, 0)) for reason, n in list(counter.items())
               if n > self._breaks.get(reason, 0)]
        self._breaks = dict(counter)
        for reason, times in new[:MAX_BREAK_MARKS]:
            self._m.mark(GRAPH_BREAK + _first_line(reason) + (" (x%d)" % times if times > 1 else ""))
        if len(new) > MAX_BREAK_MARKS:
            self._m.mark(GRAPH_BREAK + "%d more kinds" % (len(new) - MAX_BREAK_MARKS))


MARKS = None


def _register(markers):
    """Right after torch._dynamo finished importing. Returns the CompileMarks or None."""
    global MARKS
    try:
        import torch._dynamo.callback as callback
        import torch._dynamo.utils as utils
    except ImportError:
        return None  # torch < 2.3: no callbacks, no marks
    handler = getattr(callback, "callback_handler", None)
    if handler is None or not hasattr(handler, "register_start_callback"):
        return None
    MARKS = CompileMarks(markers, utils)
    handler.register_start_callback(MARKS.on_start)
    handler.register_end_callback(MARKS.on_end)
    return MARKS


def _register_safely(markers):
    try:
        _register(markers)
    except Exception as exc:  # noqa: BLE001
        sys.stderr.write("%s: torch.compile marks off: %s\n" % (_PREFIX, exc))


def watch(markers):
    """From the shim's install(): marks compiles once torch._dynamo is imported (now if it
    already is)."""
    if "torch._dynamo" in sys.modules and hasattr(sys.modules["torch._dynamo"], "callback"):
        _register_safely(markers)
        return
    from stepscope import _site

    sys.meta_path.insert(0, _site.AfterImport("torch._dynamo", lambda: _register_safely(markers)))
