"""foreignmut.py — damage done to the captures of other tools that stepscope reads: Kineto JSON
(plain and gzip) and nsys SQLite exports (docs/interop.md), for the hostile-input harness.

Each mutation returns (bytes, what, damaged): damaged is True when the result is damaged by
construction (cut, a repeated event or row, an impossible time) or fails the format's own
check (not JSON any more; a gzip stream whose check fails; an SQLite file that fails
PRAGMA integrity_check). A flipped bit that leaves a valid document (a digit in a number, a
letter in a name) makes another plausible capture, not a damaged one: nothing in the format can
tell, so the harness counts such mutants apart ("plausible") and does not judge them.
"""
import gzip
import json
import os
import sqlite3
import tempfile
import zlib

WORK_CATS = ("kernel", "gpu_memcpy", "gpu_memset", "cuda_runtime", "cuda_driver")


# ---- Kineto JSON ----

def _json_valid(text_bytes):
    """Whether the bytes parse as JSON (bytes read as Latin-1: only the syntax is judged;
    the importer passes names that are not UTF-8 through, as given)."""
    try:
        json.loads(text_bytes.decode("latin-1"))
        return True
    except ValueError:
        return False


def _doc_end(text):
    """Offset just past the document's last non-blank byte."""
    return len(text.rstrip())


def kin_cut(src, rng, doc):
    end = _doc_end(src)
    at = rng.randrange(1, end)
    return src[:at], "JSON cut at byte %d of %d" % (at, end), True


def kin_flip(src, rng, doc):
    d = bytearray(src)
    at = rng.randrange(len(d))
    d[at] ^= 1 << rng.randrange(8)
    return bytes(d), "a bit of byte %d flipped" % at, not _json_valid(bytes(d))


def _work_events(doc):
    return [i for i, e in enumerate(doc["traceEvents"])
            if e.get("ph") == "X" and e.get("cat") in WORK_CATS]


def _dumps(doc):
    return json.dumps(doc).encode()


def kin_repeat(src, rng, doc):
    """A GPU event or API call written twice (next to itself: a writer repeating a row)."""
    i = rng.choice(_work_events(doc))
    ev = list(doc["traceEvents"])
    ev.insert(i + 1, dict(ev[i]))
    return _dumps(dict(doc, traceEvents=ev)), "traceEvents[%d] (%s) repeated" % (
        i, ev[i]["cat"]), True


def _with_event(doc, i, **kw):
    ev = list(doc["traceEvents"])
    ev[i] = dict(ev[i], **kw)
    return _dumps(dict(doc, traceEvents=ev))


def kin_negative_ts(src, rng, doc):
    i = rng.choice(_work_events(doc))
    ts = rng.choice([-1e9, -1.0, -5126582631737.708])
    return _with_event(doc, i, ts=ts), "traceEvents[%d] (%s) at ts %g us" % (
        i, doc["traceEvents"][i]["cat"], ts), True


def kin_negative_dur(src, rng, doc):
    i = rng.choice(_work_events(doc))
    return _with_event(doc, i, dur=-2.5), "traceEvents[%d] (%s) with dur -2.5 us" % (
        i, doc["traceEvents"][i]["cat"]), True


def kin_absurd_ts(src, rng, doc):
    i = rng.choice(_work_events(doc))
    return _with_event(doc, i, ts=5e15), "traceEvents[%d] (%s) at ts 5e15 us (past 2^62 ns)" % (
        i, doc["traceEvents"][i]["cat"]), True


def gz_cut(src, rng, doc):
    packed = gzip.compress(src, mtime=0)
    at = rng.randrange(1, len(packed))
    return packed[:at], "gzip cut at byte %d of %d" % (at, len(packed)), True


def gz_flip(src, rng, doc):
    """A flipped bit of the gzip stream: damage when zlib's check fails (a flip in the header's
    time or flags leaves the same JSON: not damaged)."""
    d = bytearray(gzip.compress(src, mtime=0))
    at = rng.randrange(len(d))
    d[at] ^= 1 << rng.randrange(8)
    try:
        same = gzip.decompress(bytes(d)) == src
        damaged = not same
    except (OSError, EOFError, zlib.error):
        damaged = True
    return bytes(d), "a bit of gzip byte %d flipped" % at, damaged


KINETO = {
    "truncated": kin_cut,
    "bit_flip": kin_flip,
    "event_repeated": kin_repeat,
    "negative_ts": kin_negative_ts,
    "negative_dur": kin_negative_dur,
    "absurd_ts": kin_absurd_ts,
    "gzip_truncated": gz_cut,
    "gzip_bit_flip": gz_flip,
}
KINETO_GZ = {"gzip_truncated", "gzip_bit_flip"}


# ---- nsys SQLite ----

def _integrity_ok(data):
    fd, path = tempfile.mkstemp(suffix=".sqlite")
    try:
        os.write(fd, data)
        os.close(fd)
        c = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
        try:
            return c.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        finally:
            c.close()
    except sqlite3.Error:
        return False
    finally:
        os.unlink(path)


def _edit(src, sql_fn):
    """The database after sql_fn(connection) changed a copy of it."""
    fd, path = tempfile.mkstemp(suffix=".sqlite")
    try:
        os.write(fd, src)
        os.close(fd)
        c = sqlite3.connect(path)
        what = sql_fn(c)
        c.commit()
        c.close()
        with open(path, "rb") as f:
            return f.read(), what
    finally:
        os.unlink(path)


TABLES = ("CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET",
          "CUPTI_ACTIVITY_KIND_RUNTIME")


def _table(c, rng):
    have = [t for t in TABLES
            if c.execute("SELECT count(*) FROM sqlite_master WHERE name = ?", (t,)).fetchone()[0]
            and c.execute('SELECT count(*) FROM "%s"' % t).fetchone()[0]]
    return rng.choice(have)


def nsys_cut(src, rng, doc):
    at = rng.randrange(1, len(src))
    return src[:at], "cut at byte %d of %d" % (at, len(src)), True


def nsys_flip(src, rng, doc):
    d = bytearray(src)
    at = rng.randrange(len(d))
    d[at] ^= 1 << rng.randrange(8)
    return bytes(d), "a bit of byte %d flipped" % at, not _integrity_ok(bytes(d))


def nsys_repeat(src, rng, doc):
    def fn(c):
        t = _table(c, rng)
        n = c.execute('SELECT count(*) FROM "%s"' % t).fetchone()[0]
        k = rng.randrange(1, 4)
        at = rng.randrange(max(n - k, 1))
        cols = [r[1] for r in c.execute('PRAGMA table_info("%s")' % t)]
        rows = c.execute('SELECT * FROM "%s" ORDER BY rowid LIMIT ? OFFSET ?' % t, (k, at)).fetchall()
        c.executemany('INSERT INTO "%s" VALUES (%s)' % (t, ",".join("?" * len(cols))), rows)
        return "%d %s rows repeated" % (len(rows), t)
    data, what = _edit(src, fn)
    return data, what, True


def _row(c, t, rng):
    n = c.execute('SELECT count(*) FROM "%s"' % t).fetchone()[0]
    return c.execute('SELECT rowid FROM "%s" ORDER BY rowid LIMIT 1 OFFSET ?' % t,
                     (rng.randrange(n),)).fetchone()[0]


def nsys_end_before_start(src, rng, doc):
    def fn(c):
        t = _table(c, rng)
        rid = _row(c, t, rng)
        c.execute('UPDATE "%s" SET "end" = start - ? WHERE rowid = ?' % t, (rng.choice([1, 5000]), rid))
        return "%s rowid %d ends before it starts" % (t, rid)
    data, what = _edit(src, fn)
    return data, what, True


def nsys_negative_start(src, rng, doc):
    def fn(c):
        t = _table(c, rng)
        rid = _row(c, t, rng)
        c.execute('UPDATE "%s" SET start = -1000000000 WHERE rowid = ?' % t, (rid,))
        return "%s rowid %d starts at -1 s" % (t, rid)
    data, what = _edit(src, fn)
    return data, what, True


NSYS = {
    "truncated": nsys_cut,
    "bit_flip": nsys_flip,
    "rows_repeated": nsys_repeat,
    "end_before_start": nsys_end_before_start,
    "negative_start": nsys_negative_start,
}
