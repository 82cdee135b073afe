"""FAKE torch._dynamo.convert_frame: _compile(code, ...) sets the recompile reason in the metrics
context, then compile_inner(code) runs the compile inside install_callbacks, and graph breaks
found while compiling are counted (counters["graph_break"][reason] += 1), as in torch 2.11."""
import threading

from .callback import CallbackTrigger, callback_handler
from .utils import counters, get_metrics_context


def _compile(code, compile_id, recompile_reason=None, graph_breaks=()):
    metrics = get_metrics_context()
    metrics._metrics = {"recompile_reason": recompile_reason}
    try:
        return compile_inner(code, compile_id, graph_breaks)
    finally:
        metrics._metrics = {}


def compile_inner(code, compile_id, graph_breaks):
    with callback_handler.install_callbacks(CallbackTrigger.DYNAMO, compile_id):
        for reason in graph_breaks:
            counters["graph_break"][reason] += 1
        return code


def lazy_backward(compile_id):
    with callback_handler.install_callbacks(CallbackTrigger.LAZY_BACKWARD, compile_id):
        pass


def overlapping_compiles(code):
    """Thread A starts a compile, thread B starts one while A's is pending, A finishes first:
    the start callbacks run on A, the end callbacks on B (the counter is process-wide)."""
    a_started, b_entered, a_done = threading.Event(), threading.Event(), threading.Event()

    def b():
        a_started.wait()
        with callback_handler.install_callbacks(CallbackTrigger.DYNAMO, "9/0"):
            b_entered.set()
            a_done.wait()

    tb = threading.Thread(target=b)
    tb.start()
    with callback_handler.install_callbacks(CallbackTrigger.DYNAMO, "8/0"):
        a_started.set()
        b_entered.wait()
    a_done.set()
    tb.join()


class Compiled:
    """What torch.compile(fn) returns: a compile per new argument signature (here: the lengths
    of list arguments), a recompile with a guard-failure reason after the first."""

    def __init__(self, fn, frame_id):
        self.fn = fn
        self.frame_id = frame_id
        self.entries = []
        self.graph_breaks = getattr(fn, "graph_breaks", ())

    def __call__(self, *args):
        key = tuple(len(a) if isinstance(a, list) else None for a in args)
        if key not in self.entries:
            n = len(self.entries)
            reason = None
            if n:
                reason = "%d/%d: tensor 'x' size mismatch at index 0. expected %s, actual %s" % (
                    self.frame_id, n - 1, self.entries[-1][0], key[0])
            _compile(self.fn.__code__, "%d/%d" % (self.frame_id, n), reason, self.graph_breaks)
            self.entries.append(key)
        return self.fn(*args)
