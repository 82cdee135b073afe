"""stepscope's Python side: explicit step and range markers, and the shim.

Explicit markers, for code that wants to say where its steps and phases are:

    import stepscope
    for batch in loader:
        with stepscope.step():             # one training step (numbered 0, 1, 2, ...)
            with stepscope.range("data"):  # "data": data loading, priced by the report
                batch = to_device(batch)
            train_step(batch)

They are NVTX ranges in the stepscope convention (docs/markers.md), through
libstepscope_markers.so: free when the program is not run under `stepscope record`, and never
an exception into the program (a marker that fails turns them all off and says so once).

The shim (loaded by ../sitecustomize.py under `stepscope record`) marks PyTorch programs with
no change at all. Importing this package does nothing by itself: it is loaded into every
Python process started under the recorder, so it imports nothing at import time.
"""

_state = {"markers": None, "tried": False, "next_step": 0}


def _loaded():
    """The loaded markers, or None when the library cannot be used (said once on stderr)."""
    if not _state["tried"]:
        _state["tried"] = True
        from stepscope import _markers as m

        try:
            _state["markers"] = m.load()
        except OSError as exc:
            import sys

            sys.stderr.write("stepscope: markers disabled: %s\n" % (exc,))
    return _state["markers"]


class _Range:
    """A context manager (also usable as begin()/end()) around one marked range."""

    def __init__(self, begin, end):
        self._begin, self._end = begin, end

    def begin(self):
        if _loaded() is not None:
            self._begin(_state["markers"])
        return self

    def end(self):
        if _loaded() is not None:
            self._end(_state["markers"])

    def __enter__(self):
        return self.begin()

    def __exit__(self, *exc):
        self.end()
        return False


def step(number=None):
    """One training step: `with stepscope.step(): ...`. Steps are numbered from 0 in call
    order unless number is given."""
    if number is None:
        number = _state["next_step"]
    _state["next_step"] = int(number) + 1
    return _Range(lambda m: m.step_begin(int(number)), lambda m: m.step_end())


def range(name):  # noqa: A001 - stepscope.range("data") reads as the markers' name
    """A named range: `with stepscope.range("forward"): ...`. The name "data" marks data
    loading (the report blames GPU idle inside it on the input pipeline)."""
    if name == "data":
        return _Range(lambda m: m.data_begin(), lambda m: m.data_end())
    return _Range(lambda m: m.range_push(str(name)), lambda m: m.range_pop())


def mark(name):
    """An instant event on the timeline."""
    m = _loaded()
    if m is not None:
        m.mark(str(name))
