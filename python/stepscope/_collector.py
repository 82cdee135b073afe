"""ctypes binding of the collector's table for the stack sampler (src/collect/ssc_pyhost.c).

The collector, libstepscope.so, is loaded into the program by CUDA (CUDA_INJECTION64_PATH) or
NVTX (NVTX_INJECTION64_PATH) — not by us. find() only looks for it among the libraries already
loaded (dlopen with RTLD_NOLOAD), so a process that the collector is not in (a plain run with the
shim on PYTHONPATH, a DataLoader worker that never calls NVTX) never loads or starts it.

Every function but sync_wait is bound with PYFUNCTYPE: the call keeps the GIL, so one sample is
taken and handed over in one go, without letting another thread run (and exit) in between.
sync_wait (version 2) is CFUNCTYPE: it sleeps until a thread blocks in a synchronising CUDA call,
and must let that thread (and every other) have the GIL meanwhile.
"""
import ctypes
import os

from stepscope import _settings

SYMBOL = "stepscope_host_api_v1"
VERSION = 1

_U32, _U64, _INT = ctypes.c_uint32, ctypes.c_uint64, ctypes.c_int
_STR = ctypes.c_char_p
_F = ctypes.PYFUNCTYPE


class HostApiV1(ctypes.Structure):
    """Mirror of struct stepscope_host_api_v1 (ssc_pyhost.c), field by field."""

    _fields_ = [
        ("version", _U32),
        ("size", _U32),
        ("recording", _F(_INT)),
        ("now_ns", _F(_U64)),
        ("begin", _F(_INT, _U32, _STR, _U32)),
        ("capture", _F(_INT, _U32, _U32)),
        ("sampler", _F(ctypes.py_object)),
        ("thread_name", _F(_INT, _U32, _STR, _U32)),
        ("notice", _F(_INT, _U32, _STR, _U32)),
    ]


class HostApiV2(HostApiV1):
    """Version 2 appends sync_wait(timeout_ns, min_block_ns, &tid, &correlation)."""

    _fields_ = [
        ("sync_wait", ctypes.CFUNCTYPE(_INT, _U64, _U64, ctypes.POINTER(_U32),
                                       ctypes.POINTER(_U32))),
    ]


class HostApiV3(HostApiV2):
    """Version 3 appends the native frame reader: learner() (the builtin stepscope_learn, or
    None), native_start(hz, skip_tid), native_stop()."""

    _fields_ = [
        ("learner", _F(ctypes.py_object)),
        ("native_start", _F(_INT, _U32, _U32)),
        ("native_stop", _F(_INT)),
        ("start", _F(_INT)),
    ]


def load_and_start(paths):
    """In the process `record` ran (STEPSCOPE_ROOT_PID): loads the collector from the first
    injection path that is ours and starts it, as CUDA or NVTX would have. True when it
    records."""
    for path in paths:
        try:
            ctypes.PyDLL(path, mode=os.RTLD_NOW)
            api = find([path])
        except (OSError, NotOurs):
            continue
        if api is not None and getattr(api, "start", None) and api.start() == 1:
            return True
    return False


class NotOurs(Exception):
    """The library in the injection variable is loaded but is not a collector we can use."""


def candidate_paths(environ=os.environ):
    """The injection libraries that may be ours; another tool's (record marks it) first out."""
    paths = []
    for var, foreign in (("NVTX_INJECTION64_PATH", "FOREIGN_NVTX_INJECTION"),
                         ("CUDA_INJECTION64_PATH", "FOREIGN_CUDA_INJECTION")):
        path = environ.get(var)
        if path and path != _settings.get(foreign, environ).value and path not in paths:
            paths.append(path)
    return paths


def _loaded(path):
    """The library at path if the process has it loaded already, else None (never loads)."""
    try:
        return ctypes.PyDLL(path, mode=os.RTLD_NOLOAD | os.RTLD_NOW)
    except OSError:
        return None


def find(paths):
    """The API table of the first loaded collector among paths, or None when none is loaded.
    Raises NotOurs when a loaded library lacks the table or has a version/size we do not
    know (another tool, or a collector older than the shim)."""
    for path in paths:
        lib = _loaded(path)
        if lib is None:
            continue
        entry = getattr(lib, SYMBOL, None)
        if entry is None:
            raise NotOurs("%s has no %s" % (path, SYMBOL))
        entry.restype = ctypes.POINTER(HostApiV1)
        entry.argtypes = []
        table = entry()
        api = table.contents
        if api.version < VERSION or api.size < ctypes.sizeof(HostApiV1):
            raise NotOurs("%s: host API version %d size %d, this shim needs version %d" % (
                path, api.version, api.size, VERSION))
        for version, cls in ((3, HostApiV3), (2, HostApiV2)):
            if api.version >= version and api.size >= ctypes.sizeof(cls):
                api = ctypes.cast(table, ctypes.POINTER(cls)).contents
                break
        api._lib = lib  # noqa: SLF001 - keeps the handle with the table
        return api
    return None
