#!/usr/bin/env python3
"""`stepscope export --steps A-B | --time A-B` (issue #29) on a real H200 trace with Python
stack samples, against the whole trace's export of the same format:

  perfetto     the window's events are exactly the whole export's events that overlap the
               steps' span; every B has its E; the attribution track holds those steps only;
               the metadata names the window
  nsys-sqlite  the kernels and API calls are exactly those overlapping the span; each NVTX
               range kept overlaps it; META_DATA_CAPTURE names the window
  nvtxt        step lines of those steps only
  folded       idle (the analysis's steady steps) and all (samples by time) fold less than the
               whole, and something
  sstrace      a trace of its own: the report of the part analyses exactly those steps, with
               the whole's step times and kernel names (string ids kept), says ENV export.part;
               the part of a cut trace has no end (report refuses it, as it refuses its source)
  errors       a step that does not exist, a time with nothing in it, bad and double windows:
               one line, exit 1 or 2, no file
  size         STEPSCOPE_EXPORT_WARN_MB below the export: a warning first whose size is within
               35 % of what was written, and the export still written

Usage: export_window.py STEPSCOPE TRACE WORKDIR
"""
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys

FAILED = []


def check(ok, what):
    print("%s: %s" % ("ok" if ok else "FAIL", what))
    if not ok:
        FAILED.append(what)


def export(ss, trace, out, *args, env=None):
    e = dict(os.environ, STEPSCOPE_PROGRESS="0")
    e.update(env or {})
    p = subprocess.run([ss, "export", trace, "-o", out, "--force", "-q"] + list(args),
                       capture_output=True, text=True, timeout=120, env=e)
    return p.returncode, p.stderr


def perfetto_events(path):
    with open(path) as f:
        d = json.load(f)
    return d["traceEvents"], d.get("metadata", {})


def attribution(events):
    """{step number: (begin us, end us)} from the stepscope attribution track."""
    out = {}
    for e in events:
        if e.get("ph") == "X" and e.get("cat") == "stepscope":
            n = int(re.match(r"step (\d+)", e["name"]).group(1))
            out[n] = (e["ts"], e["ts"] + e.get("dur", 0))
    return out


def key(e):
    return (e.get("ph"), e.get("pid"), e.get("tid"), e.get("ts"), e.get("dur"), e.get("name"))


def balanced(events):
    depth = {}
    for e in sorted((e for e in events if e.get("ph") in "BE"), key=lambda e: e["ts"]):
        k = (e["pid"], e["tid"])
        depth[k] = depth.get(k, 0) + (1 if e["ph"] == "B" else -1)
        if depth[k] < 0:
            return False
    return all(v == 0 for v in depth.values())


def test_perfetto(ss, trace, work, a, b):
    full, win = os.path.join(work, "full.json"), os.path.join(work, "win.json")
    check(export(ss, trace, full, "-f", "perfetto")[0] == 0, "perfetto: whole trace")
    rc, err = export(ss, trace, win, "-f", "perfetto", "--steps", "%d-%d" % (a, b))
    check(rc == 0, "perfetto --steps %d-%d: exit 0 (%s)" % (a, b, err.strip()))
    fe, _ = perfetto_events(full)
    we, meta = perfetto_events(win)
    steps = attribution(fe)
    lo, hi = steps[a][0], steps[b][1]
    # slices of one record each (kernels, copies, API calls): those that overlap the span by
    # more than an end, no more, no fewer (in ns: the JSON's microseconds have 3 decimals)
    def inside(e):
        t0 = round(e["ts"] * 1000)
        t1 = t0 + round(e.get("dur", 0) * 1000)
        lo_ns, hi_ns = round(lo * 1000), round(hi * 1000)
        return t0 < hi_ns and t1 > lo_ns if t1 > t0 else lo_ns <= t0 <= hi_ns
    def record_slice(e):  # not the attribution's, not the Python samples' (made of several)
        return e.get("ph") == "X" and e.get("cat") not in ("stepscope", "python")
    want = sorted(key(e) for e in fe if record_slice(e) and inside(e))
    got = sorted(key(e) for e in we if record_slice(e))
    check(len(got) > 0 and got == want,
          "perfetto: the window's %d slices are the whole export's %d overlapping steps %d-%d"
          % (len(got), len(want), a, b))
    # a Python slice runs from a sample to the next: the samples taken inside the window
    snaps = [e["args"]["snapshot_us"] for e in we if e.get("cat") == "python"]
    check(snaps and all(lo <= t <= hi for t in snaps),
          "perfetto: %d Python slices, their samples inside the window" % len(snaps))
    check(len(we) < len(fe) / 3, "perfetto: %d events of the whole's %d" % (len(we), len(fe)))
    check(balanced(we), "perfetto: every B has its E")
    check(sorted(attribution(we)) == list(range(a, b + 1)),
          "perfetto: attribution of steps %s" % sorted(attribution(we)))
    check(meta.get("window", "").startswith("steps %d-%d (" % (a, b)),
          "perfetto: metadata window %r" % meta.get("window"))


def db_rows(path, sql):
    with sqlite3.connect(path) as db:
        return db.execute(sql).fetchall()


def test_nsys(ss, trace, work, a, b):
    full, win = os.path.join(work, "full.sqlite"), os.path.join(work, "win.sqlite")
    check(export(ss, trace, full, "-f", "nsys-sqlite")[0] == 0, "nsys-sqlite: whole trace")
    rc, err = export(ss, trace, win, "-f", "nsys-sqlite", "--steps", "%d-%d" % (a, b))
    check(rc == 0, "nsys-sqlite --steps: exit 0 (%s)" % err.strip())
    meta = dict(db_rows(win, "SELECT name, value FROM META_DATA_CAPTURE"))
    wdesc = [v for k, v in meta.items() if k.endswith("WINDOW")]
    check(len(wdesc) == 1 and wdesc[0].startswith("steps %d-%d (" % (a, b)),
          "nsys-sqlite: META_DATA_CAPTURE window %r" % wdesc)
    # the span: the window's NVTX step ranges of the stepscope domain (steps a..b)
    rng = db_rows(win, "SELECT min(start), max(end) FROM NVTX_EVENTS WHERE text = 'step'")
    lo, hi = rng[0]
    for table in ("CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_RUNTIME"):
        q = "SELECT start, end FROM %s" % table
        want = sorted(r for r in db_rows(full, q)
                      if (r[0] < hi and r[1] > lo if r[1] > r[0] else lo <= r[0] <= hi))
        got = sorted(db_rows(win, q))
        check(len(got) > 0 and got == want,
              "nsys-sqlite: %s, %d rows = the whole's overlapping the steps" % (table, len(got)))
    bad = db_rows(win, "SELECT count(*) FROM NVTX_EVENTS WHERE end IS NOT NULL AND "
                       "(start >= %d OR end <= %d) AND end > start" % (hi, lo))[0][0]
    check(bad == 0, "nsys-sqlite: every NVTX range overlaps the window (%d do not)" % bad)


def test_nvtxt(ss, trace, work, a, b):
    win = os.path.join(work, "win.nvtxt")
    rc, err = export(ss, trace, win, "-f", "nvtxt", "--steps", "%d-%d" % (a, b))
    check(rc == 0, "nvtxt --steps: exit 0 (%s)" % err.strip())
    with open(win) as f:
        text = f.read()
    named = sorted({int(n) for n in re.findall(r"step (\d+)", text)})
    check(named == list(range(a, b + 1)), "nvtxt: steps named %s" % named)


def folded_total(path):
    with open(path) as f:
        return sum(int(line.rsplit(" ", 1)[1]) for line in f if line.strip())


def test_folded(ss, trace, work, a, b):
    for which, window in (("idle", ["--steps", "%d-%d" % (a, b)]), ("all", ["--time", "4-6"])):
        full, win = os.path.join(work, "full." + which), os.path.join(work, "win." + which)
        check(export(ss, trace, full, "-f", "folded", "--samples", which)[0] == 0,
              "folded %s: whole trace" % which)
        rc, err = export(ss, trace, win, "-f", "folded", "--samples", which, *window)
        check(rc == 0, "folded %s %s: exit 0 (%s)" % (which, " ".join(window), err.strip()))
        t_full, t_win = folded_total(full), folded_total(win)
        check(0 < t_win < t_full, "folded %s: %d us of the whole's %d" % (which, t_win, t_full))
        if which == "all":  # 2 s of samples: at most 2 s per sampled thread
            roots = {line.split(";", 1)[0] for line in open(win) if line.strip()}
            check(t_win <= 2.1e6 * len(roots), "folded all: %d us over %d threads in 2 s"
                  % (t_win, len(roots)))


def report_json(ss, path, *args):
    p = subprocess.run([ss, "report", "--format", "json", "-v", path] + list(args),
                       capture_output=True, text=True, timeout=120)
    return p.returncode, (json.loads(p.stdout) if p.returncode == 0 else None)


def test_sstrace(ss, trace, work, a, b):
    out = os.path.join(work, "part.sstrace")
    rc, err = export(ss, trace, out, "-f", "sstrace", "--steps", "%d-%d" % (a, b))
    check(rc == 0 and os.path.exists(out), "sstrace: written (%s)" % err.strip())
    _, whole = report_json(ss, trace)
    rc, part = report_json(ss, out)
    check(rc == 0 and part is not None, "sstrace: the part reads as a trace")
    if rc or not whole:
        return
    want = {s["number"]: s["end_ns"] - s["begin_ns"] for s in whole["step_list"]
            if a <= s["number"] <= b}
    got = {s["number"]: s["end_ns"] - s["begin_ns"] for s in part["step_list"]}
    check(set(got) <= set(want) and len(got) >= len(want) - 1 and
          all(got[n] == want[n] for n in got if n < b),
          "sstrace: the part's steps are the whole's (%s of %s)" % (sorted(got), sorted(want)))
    names = {k["name"] for k in part.get("top_kernels", [])}
    check(names and names <= {k["name"] for k in whole.get("top_kernels", [])},
          "sstrace: kernel names resolve to the whole's")
    dump = subprocess.run([ss, "dump", "-t", "env", out], capture_output=True, text=True).stdout
    check("export.part" in dump, "sstrace: ENV export.part says which part")
    cut = os.path.join(work, "cut.sstrace")
    with open(trace, "rb") as f, open(cut, "wb") as g:
        g.write(f.read()[: os.path.getsize(trace) * 2 // 3])
    cutpart = os.path.join(work, "cutpart.sstrace")
    rc, err = export(ss, cut, cutpart, "-f", "sstrace")
    rc2, _ = report_json(ss, cutpart) if os.path.exists(cutpart) else (1, None)
    check("truncated" in err and rc2 == 1,
          "sstrace: a cut trace's part is said and has no end (export %d, report %d)" % (rc, rc2))


def test_errors(ss, trace, work):
    out = os.path.join(work, "err.json")
    for args, rc_want, says in ((["--steps", "9999"], 1, "no step numbered 9999"),
                                (["--time", "5000-6000"], 1, "nothing recorded in"),
                                (["--steps", "5-3"], 2, "bad --steps"),
                                (["--time", "x"], 2, "bad --time"),
                                (["--steps", "1-2", "--time", "1-2"], 2, "one --steps or --time")):
        if os.path.exists(out):
            os.unlink(out)
        rc, err = export(ss, trace, out, *args)
        lines = err.strip().splitlines()
        check(rc == rc_want and len(lines) == 1 and says in err and not os.path.exists(out),
              "%s: exit %d, one line with %r, no file (%r)" % (" ".join(args), rc, says, err))


def test_part(ss, trace, work):
    """Steps the trace holds only part of: exported, with one warning naming those it has."""
    out = os.path.join(work, "part.nvtxt")
    rc, err = export(ss, trace, out, "-f", "nvtxt", "--steps", "10-9999")
    m = re.search(r"warning: of steps 10-9999 the trace has 10-(\d+): the export holds those", err)
    check(rc == 0 and m and int(m.group(1)) < 9999 and os.path.exists(out),
          "a part of the steps: exported with the warning (%r)" % err.strip())
    rc, err = export(ss, trace, out, "-f", "nvtxt", "--steps", "10-12")
    check(rc == 0 and "warning" not in err, "the whole window: no warning (%r)" % err.strip())


def test_size_warning(ss, trace, work):
    out = os.path.join(work, "big.json")
    rc, err = export(ss, trace, out, "-f", "perfetto", env={"STEPSCOPE_EXPORT_WARN_MB": "1"})
    m = re.search(r"warning: this perfetto export will be about ([\d.]+) (KiB|MiB|GiB)", err)
    size = os.path.getsize(out) if os.path.exists(out) else 0
    est = float(m.group(1)) * {"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}[m.group(2)] if m \
        else 0
    check(rc == 0 and m and "--steps A-B or --time A-B" in err and
          abs(est - size) <= 0.35 * size,
          "size warning: about %.1f MiB said, %.1f MiB written (%r)" % (est / 2**20, size / 2**20,
                                                                        err.strip()))
    rc, err = export(ss, trace, out, "-f", "perfetto", "--steps", "3-4")
    check(rc == 0 and "warning" not in err, "no warning under 1 GiB (%r)" % err.strip())


def main():
    ss, trace, work = sys.argv[1:4]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    a, b = 10, 12
    test_perfetto(ss, trace, work, a, b)
    test_nsys(ss, trace, work, a, b)
    test_nvtxt(ss, trace, work, a, b)
    test_folded(ss, trace, work, a, b)
    test_sstrace(ss, trace, work, a, b)
    test_errors(ss, trace, work)
    test_part(ss, trace, work)
    test_size_warning(ss, trace, work)
    if FAILED:
        print("%d checks failed" % len(FAILED))
        return 1
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
