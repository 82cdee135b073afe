"""FAKE torch.autograd.profiler: the structure of torch 2.11's `profile` that the shim hooks.

__enter__ calls _prepare_trace() (Kineto prepares: _prepare_profiler) then _start_trace()
(_enable_profiler); __exit__ calls _disable_profiler(). Each of those "Kineto" calls logs an NVTX
mark "fake:<name>" through libstepscope_markers.so (when $STEPSCOPE_MARKERS_LIB is set), so a
test sees them in order with the shim's own marks. Setting the module's FAIL to one of those
names makes that call raise RuntimeError("fake <name> failed").
"""
import ctypes
import os

_lib = None
FAIL = None


def _kineto(name):
    global _lib
    if _lib is None and os.environ.get("STEPSCOPE_MARKERS_LIB"):
        _lib = ctypes.CDLL(os.environ["STEPSCOPE_MARKERS_LIB"])
        _lib.stepscope_markers_mark.argtypes = [ctypes.c_char_p]
    if _lib is not None:
        _lib.stepscope_markers_mark(("fake:" + name).encode())
    if FAIL == name:
        raise RuntimeError("fake %s failed" % name)


def _prepare_profiler(config, activities):
    _kineto("_prepare_profiler")


def _enable_profiler(config, activities):
    _kineto("_enable_profiler")


def _disable_profiler():
    _kineto("_disable_profiler")
    return "fake results"


class profile:
    def __init__(self, enabled=True, *, use_device=None, use_kineto=False):
        self.enabled = enabled
        self.entered = False
        self.kineto_results = None
        self.kineto_activities = {"CPU", "CUDA"} if use_device == "cuda" else {"CPU"}

    def config(self):
        return None

    def __enter__(self):
        if not self.enabled:
            return
        if self.entered:
            raise RuntimeError("Profiler context manager is not reentrant")
        self._prepare_trace()
        self._start_trace()
        return self

    def _prepare_trace(self):
        self.entered = True
        _prepare_profiler(self.config(), self.kineto_activities)

    def _start_trace(self):
        self.entered = True
        _enable_profiler(self.config(), self.kineto_activities)

    def __exit__(self, exc_type, exc_val, exc_tb):
        if not self.enabled:
            return
        self.kineto_results = _disable_profiler()
        self.entered = False
        return False
