"""Start-up part of the shim: chain the pre-existing sitecustomize, then wait for torch.

Kept light on purpose: programs that never import torch pay for this module and one meta-path
finder, nothing else (no ctypes, no threading, no torch patches) — except the one process that
`stepscope record` started itself (STEPSCOPE_ROOT_PID), whose stacks are sampled from the start.
"""
import os
import sys

_PREFIX = "stepscope: python shim disabled: "


def start(stub_file):
    """Called once by ../sitecustomize.py. Never raises Exception (SystemExit from a chained
    sitecustomize passes through, as it would without us)."""
    try:
        _chain_next_sitecustomize(stub_file)
    except Exception as exc:  # noqa: BLE001
        sys.stderr.write("stepscope: could not run the next sitecustomize: %s\n" % (exc,))
    from stepscope import _settings

    if _settings.get("PYSHIM").value == 0:
        return
    try:
        if _settings.get("ROOT_PID").value == str(os.getpid()):
            _sample_from_start()
    except Exception as exc:  # noqa: BLE001
        sys.stderr.write(_PREFIX + "%s\n" % (exc,))
    try:
        if "torch" in sys.modules:  # imported by a chained sitecustomize or a .pth file
            _torch_loaded()
        else:
            sys.meta_path.insert(0, _TorchFinder())
    except Exception as exc:  # noqa: BLE001
        sys.stderr.write(_PREFIX + "%s\n" % (exc,))


def _sample_from_start():
    """The process `stepscope record` ran: its Python stacks are sampled from the start,
    whether or not it ever imports torch (issue #28: a plain script's host time too)."""
    from stepscope import _pysampler

    _pysampler.start_from_env()


# ---- chaining: run the sitecustomize that Python would have run without us ----


def _same_dir(entry, here):
    try:
        return os.path.realpath(entry or os.curdir) == here
    except (OSError, ValueError):
        return False


def _path_after(here):
    """sys.path entries after the first one that is our directory, without our directory."""
    for i, entry in enumerate(sys.path):
        if _same_dir(entry, here):
            return [e for e in sys.path[i + 1 :] if not _same_dir(e, here)]
    return [e for e in sys.path if not _same_dir(e, here)]


def _chain_next_sitecustomize(stub_file):
    import importlib.machinery
    import importlib.util

    here = os.path.dirname(os.path.realpath(stub_file))
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", _path_after(here))
    if spec is None or spec.loader is None:
        return
    ours = sys.modules.get("sitecustomize")
    module = importlib.util.module_from_spec(spec)
    # Imported under its real name, as site.py would have done: code that later does
    # `import sitecustomize` gets that module, not ours.
    sys.modules["sitecustomize"] = module
    try:
        spec.loader.exec_module(module)
    except ImportError as exc:
        sys.modules["sitecustomize"] = ours
        if exc.name != "sitecustomize":
            _report_like_site(exc)
    except Exception as exc:  # noqa: BLE001 - site.py reports and goes on; so do we
        sys.modules["sitecustomize"] = ours
        _report_like_site(exc)


def _report_like_site(exc):
    """The message site.execsitecustomize() prints for a failing sitecustomize."""
    if sys.flags.verbose:
        sys.excepthook(type(exc), exc, exc.__traceback__)
    else:
        sys.stderr.write(
            "Error in sitecustomize; set PYTHONVERBOSE for traceback:\n"
            "%s: %s\n" % (exc.__class__.__name__, exc)
        )


# ---- waiting for torch ----


class AfterImport:
    """A meta-path finder that finds nothing itself. When module `fullname` is about to be
    imported it asks the finders after it for the real spec and wraps its loader, so that
    `callback` runs right after the module has finished executing. Then it takes itself off
    sys.meta_path. Used for torch (the shim) and torch._dynamo (torch.compile marks)."""

    def __init__(self, fullname, callback):
        self._fullname = fullname
        self._callback = callback

    def find_spec(self, fullname, path=None, target=None):
        if fullname != self._fullname:
            return None
        try:
            spec = self._real_spec(fullname, path, target)
            if spec is None or not hasattr(spec.loader, "exec_module"):
                return None  # let the normal machinery import (or fail to import) it
            spec.loader = _LoaderThenPatch(spec.loader, spec, self)
            return spec
        except Exception as exc:  # noqa: BLE001 - the normal import goes on without us
            self.remove()
            sys.stderr.write(_PREFIX + "%s\n" % (exc,))
            return None

    def _real_spec(self, fullname, path, target):
        for finder in list(sys.meta_path):
            if isinstance(finder, AfterImport):
                continue
            find_spec = getattr(finder, "find_spec", None)
            if find_spec is None:
                return None  # a legacy finder we cannot consult: do not guess
            spec = find_spec(fullname, path, target)
            if spec is not None:
                return spec
        return None

    def invalidate_caches(self):
        pass

    def remove(self):
        sys.meta_path[:] = [f for f in sys.meta_path if f is not self]

    def loaded(self):
        self.remove()
        self._callback()


class _TorchFinder(AfterImport):
    """Waits for `import torch` (the name is what tests look for on sys.meta_path)."""

    def __init__(self):
        AfterImport.__init__(self, "torch", _torch_loaded)


class _LoaderThenPatch:
    """Delegates to the module's own loader, then runs the finder's callback. Puts the real
    loader back on the module and its spec before the module's code runs, so it never sees
    this object."""

    def __init__(self, loader, spec, finder):
        self._loader = loader
        self._spec = spec
        self._finder = finder

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        module.__loader__ = self._loader
        if getattr(module, "__spec__", None) is not None:
            module.__spec__.loader = self._loader
        self._spec.loader = self._loader
        self._loader.exec_module(module)  # the module's own errors propagate unchanged
        self._finder.loaded()

    def __getattr__(self, name):
        return getattr(self._loader, name)


def _torch_loaded():
    try:
        from stepscope import _shim

        _shim.install()
    except Exception as exc:  # noqa: BLE001
        sys.stderr.write(_PREFIX + "%s\n" % (exc,))
