"""ctypes binding of libstepscope_markers.so (src/markers/markers.c).

The library emits the stepscope NVTX convention with category 2 ("pyshim"); nvtx3 inside it loads
the injection library named by NVTX_INJECTION64_PATH itself, so this works with a CPU-only torch
and without a GPU. Without an injection every call is a no-op in C.
"""
import ctypes
import os
import sys

from stepscope import _settings

LIB_NAME = "libstepscope_markers.so"

_SIGNATURES = {
    "stepscope_markers_step_begin": [ctypes.c_uint64],
    "stepscope_markers_step_end": [],
    "stepscope_markers_data_begin": [],
    "stepscope_markers_data_end": [],
    "stepscope_markers_range_push": [ctypes.c_char_p],
    "stepscope_markers_range_pop": [],
    "stepscope_markers_mark": [ctypes.c_char_p],
}


def library_path():
    """$STEPSCOPE_MARKERS_LIB when set (no fallback then: a wrong path is reported); else the
    library next to this package, or the pip wheel's (stepscope/_prefix/lib/stepscope/), or
    the one of `cmake --install` (this package is lib/stepscope/python/stepscope/ there),
    else <repo>/build/ (source tree)."""
    explicit = _settings.get("MARKERS_LIB").value
    if explicit:
        return explicit
    here = os.path.dirname(os.path.abspath(__file__))
    candidates = [
        os.path.join(here, LIB_NAME),
        os.path.join(here, "_prefix", "lib", "stepscope", LIB_NAME),
        os.path.join(here, os.pardir, os.pardir, LIB_NAME),
        os.path.join(here, os.pardir, os.pardir, "build", LIB_NAME),
    ]
    for path in candidates:
        if os.path.exists(path):
            return os.path.normpath(path)
    raise OSError("%s not found (set STEPSCOPE_MARKERS_LIB)" % LIB_NAME)


class Markers:
    """The markers, each safe to call: the first failure disables them all and says so once."""

    def __init__(self, path):
        lib = ctypes.CDLL(path)
        self._fns = {}
        for name, argtypes in _SIGNATURES.items():
            fn = getattr(lib, name)  # AttributeError when the library lacks it
            fn.argtypes = argtypes
            fn.restype = None
            self._fns[name[len("stepscope_markers_") :]] = fn
        self._lib = lib
        self.enabled = True

    def _call(self, name, *args):
        if not self.enabled:
            return
        try:
            self._fns[name](*args)
        except Exception as exc:  # noqa: BLE001 - a marker must never break the program
            self.enabled = False
            sys.stderr.write("stepscope: python shim disabled: marker %s failed: %s\n" % (name, exc))

    def step_begin(self, step):
        self._call("step_begin", step)

    def step_end(self):
        self._call("step_end")

    def data_begin(self):
        self._call("data_begin")

    def data_end(self):
        self._call("data_end")

    def range_push(self, name):
        self._call("range_push", name.encode("utf-8", "replace"))

    def range_pop(self):
        self._call("range_pop")

    def mark(self, name):
        self._call("mark", name.encode("utf-8", "replace"))


def load():
    """Returns Markers; raises OSError/AttributeError with a readable message when unusable."""
    path = library_path()
    try:
        return Markers(path)
    except (OSError, AttributeError) as exc:
        raise OSError("cannot use %s: %s" % (path, exc)) from None
