"""The STEPSCOPE_* variables the Python shim reads, as every part of stepscope reads them.

One table holds every setting (src/trace/sst_settings.h); its rows for the shim are generated
into _settings_rows.py, and this module reads a value with the table's one grammar, as the
collector and `stepscope record` do (src/trace/sst_settings.c): test settings.agree runs both
over the same values. An empty variable is an unset one; a value that is not one gives the
default and a problem to say. Kept light: the shim's start-up imports it.
"""
import os

from stepscope._settings_rows import ROWS

_U64_MAX = (1 << 64) - 1


class Value(tuple):
    """(value, given, problem): value is a word, a number, a switch's 0/1, a text or
    (step, pid); given is 1 (a value), 0 (unset or empty: the default) or -1 (not a value:
    the default, and problem says so)."""

    __slots__ = ()

    def __new__(cls, value, given, problem):
        return tuple.__new__(cls, (value, given, problem))

    value = property(lambda self: self[0])
    given = property(lambda self: self[1])
    problem = property(lambda self: self[2])


def env(name):
    """The variable of row name: "STEPSCOPE_<name>"."""
    return ROWS[name][0]


def _number(text):
    """A whole number as the C grammar takes one: 1 to 31 ASCII digits, nothing else (no re:
    the shim's start-up imports this module in every process record runs)."""
    if not (0 < len(text) < 32 and text.isascii() and text.isdigit()):
        return None
    n = int(text)
    return n if n <= _U64_MAX else None


def _choice(values, text):
    """A word of values, or a number in one of its ranges A-B; None otherwise."""
    n = _number(text)
    for alt in values.split("|") if values else ():
        lo, dash, hi = alt.partition("-")
        if dash and _number(lo) is not None and _number(hi) is not None:
            if n is not None and int(lo) <= n <= int(hi):
                return n
        elif text == alt:
            return alt
    return None


def _step_pid(values, text):
    head, colon, tail = text.partition(":")
    step = _choice(values, head) if colon else None
    pid = _number(tail)
    if isinstance(step, str) or step is None or pid is None:
        return None
    return (step, pid)


def _parse_as(kind, values, text):
    if kind == "text":
        return text
    if kind == "switch":
        return {"0": 0, "1": 1}.get(text)
    if kind == "choice":
        return _choice(values, text)
    if kind == "step_pid":
        return _step_pid(values, text)
    raise NotImplementedError("settings of type %s are not read by the shim" % kind)


def parse(name, text):
    """Value of row name for text (None: unset)."""
    var, kind, values, default, must = ROWS[name]
    fallback = _parse_as(kind, values, default) if default else (
        "" if kind == "text" else None)
    if not text:
        return Value(fallback, 0, None)
    got = _parse_as(kind, values, text)
    if got is None:
        return Value(fallback, -1, "%s must be %s, not '%.200s': using the default"
                     % (var, must, text))
    return Value(got, 1, None)


def get(name, environ=os.environ):
    """Value of row name from the environment."""
    return parse(name, environ.get(env(name)))
