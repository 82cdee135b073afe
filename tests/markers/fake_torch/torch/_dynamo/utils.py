"""FAKE torch._dynamo.utils: counters (graph breaks by reason) and the per-thread metrics
context whose _metrics holds "recompile_reason" while a recompile is in progress."""
import collections
import threading

counters = collections.defaultdict(collections.Counter)


class MetricsContext:
    def __init__(self):
        self._metrics = {}


_tls = threading.local()


def get_metrics_context():
    if not hasattr(_tls, "ctx"):
        _tls.ctx = MetricsContext()
    return _tls.ctx
