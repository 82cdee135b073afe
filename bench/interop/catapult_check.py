#!/usr/bin/env python3
"""Load stepscope's Chrome Trace Event JSON exports in catapult's trace viewer (what chrome://tracing
runs) inside headless chromium, and compare what the viewer's model holds with the file itself.

usage: python3 bench/interop/catapult_check.py EXPORT.json [EXPORT.json ...]
  env CATAPULT (default /tmp/catapult), CHROMIUM (default /usr/bin/chromium)

A one-off verification tool (issue #6, docs/export.md), not a test: it needs Chromium
(`apt-get install chromium`) and a checkout of catapult (github.com/catapult-project/catapult;
run 2026-11-30 on commit 6fd8bbe7, its `tracing`, `third_party` and `common` folders), which the
project does not carry. Exit status 0 when every export loads with no import warning and matches.

Per export: tracing/bin/trace2html EXPORT.json -> EXPORT.html (standalone viewer + the trace), open it
from file:// through the DevTools protocol over --remote-debugging-pipe (fds 3/4, NUL-separated
JSON; stdlib only), wait for the page's own import (trace2html.html: tr.Model +
tr.importer.Import(...).importTracesWithProgressDialog -> g_timelineViewEl.model), then read the
model: importWarnings, processes, threads and slices per thread, flowEvents, counters.
"""
import collections, json, os, select, subprocess, sys, tempfile, time

CATAPULT = os.environ.get("CATAPULT", "/tmp/catapult")
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")


class Browser:
    def __init__(self):
        self.udd = tempfile.mkdtemp(prefix="ss-catapult-")
        rc, self.wc = os.pipe()
        self.rd, we = os.pipe()

        def child():
            os.dup2(rc, 3)
            os.dup2(we, 4)

        self.proc = subprocess.Popen(
            [CHROMIUM, "--headless=new", "--no-sandbox", "--remote-debugging-pipe",
             "--user-data-dir=" + self.udd, "--no-first-run", "--allow-file-access-from-files",
             "about:blank"], preexec_fn=child, pass_fds=(3, 4),
            stdout=subprocess.DEVNULL, stderr=open(os.path.join(self.udd, "stderr"), "w"))
        os.close(rc)
        os.close(we)
        self.buf, self.n, self.events = b"", 0, []

    def _pump(self, deadline):
        if not select.select([self.rd], [], [], max(0, deadline - time.time()))[0]:
            return False
        chunk = os.read(self.rd, 1 << 22)
        if not chunk:
            raise RuntimeError("chromium closed the pipe")
        self.buf += chunk
        return True

    def send(self, method, params=None, session=None, timeout=60):
        self.n += 1
        msg = {"id": self.n, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self.wc, json.dumps(msg).encode() + b"\0")
        end = time.time() + timeout
        while True:
            while b"\0" in self.buf:
                raw, self.buf = self.buf.split(b"\0", 1)
                j = json.loads(raw)
                if j.get("id") == self.n:
                    if "error" in j:
                        raise RuntimeError("%s: %s" % (method, j["error"]))
                    return j["result"]
                if "method" in j:
                    self.events.append(j)
            if not self._pump(end):
                raise TimeoutError(method)

    def open(self, url):
        t = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        s = self.send("Target.attachToTarget", {"targetId": t, "flatten": True})["sessionId"]
        for dom in ("Runtime.enable", "Log.enable", "Page.enable"):
            self.send(dom, session=s)
        self.send("Page.navigate", {"url": url}, session=s)
        return t, s

    def eval(self, s, expr, timeout=120):
        r = self.send("Runtime.evaluate", {"expression": expr, "returnByValue": True,
                                           "awaitPromise": True}, s, timeout)
        if "exceptionDetails" in r:
            raise RuntimeError("page: %s" % json.dumps(r["exceptionDetails"])[:800])
        return r["result"].get("value")

    def console(self, s):
        """console messages, uncaught exceptions and log entries seen so far for session s."""
        out = []
        for e in self.events:
            if e.get("sessionId") != s:
                continue
            p = e.get("params", {})
            if e["method"] == "Runtime.consoleAPICalled":
                out.append("console.%s: %s" % (p["type"], " ".join(
                    str(a.get("value", a.get("description", ""))) for a in p.get("args", []))))
            elif e["method"] == "Runtime.exceptionThrown":
                d = p["exceptionDetails"]
                out.append("exception: %s %s" % (d.get("text"), d.get("exception", {}).get("description", "")))
            elif e["method"] == "Log.entryAdded":
                en = p["entry"]
                out.append("log.%s: %s %s" % (en["level"], en["text"], en.get("url", "")))
        return out

    def close(self):
        self.proc.kill()
        self.proc.wait()


# Runs in the page once the import has finished. Everything read from the tr.Model.
MODEL_STATS_JS = r"""
(() => {
  const m = g_timelineViewEl.model;
  const out = {warnings: [], processes: [], counters: [], flows: m.flowEvents.length,
               bounds_ms: [m.bounds.min, m.bounds.max], numThreads: m.getAllThreads().length,
               kernelThreads: Object.keys(m.kernel.threads || {}).length,
               deviceCounters: Object.keys(m.device.counters || {}).length};
  for (const w of m.importWarnings) out.warnings.push({type: w.type, message: String(w.message)});
  for (const pid of Object.keys(m.processes)) {
    const p = m.processes[pid];
    const po = {pid: p.pid, name: p.name || null, labels: p.labels || [], threads: [],
                asyncSlices: 0, instantEvents: (p.instantEvents || []).length};
    for (const tid of Object.keys(p.threads)) {
      const t = p.threads[tid];
      const sl = t.sliceGroup.slices;
      let zero = 0, maxDepth = 0;
      const depthOf = new Map();
      for (const s of sl) { if (s.duration === 0) zero++; }
      for (const s of sl) {
        let d = 0, q = s.parentSlice; while (q) { d++; q = q.parentSlice; }
        if (d > maxDepth) maxDepth = d;
      }
      const unfinished = sl.filter(s => s.didNotFinish).map(
          s => ({name: s.title, start_ms: s.start, dur_ms: s.duration}));
      po.threads.push({tid: t.tid, name: t.name || null, slices: sl.length, zeroDur: zero, unfinished,
                       maxDepth: maxDepth, async: t.asyncSliceGroup.slices.length,
                       topLevel: sl.filter(s => !s.parentSlice).length});
      po.asyncSlices += t.asyncSliceGroup.slices.length;
    }
    out.processes.push(po);
  }
  for (const c of m.getAllCounters()) {
    out.counters.push({pid: c.parent && c.parent.pid, name: c.name, category: c.category,
                       series: c.series.map(s => s.name), samples: c.numSamples});
  }
  return out;
})()
"""


def file_stats(path):
    """What the JSON file holds, counted the way the Trace Event Format defines it."""
    with open(path) as f:
        doc = json.load(f)
    evs = doc["traceEvents"]
    ph = collections.Counter(e.get("ph") for e in evs)
    pname, tname = {}, {}
    per_thread = collections.Counter()      # X + B/E pairs (+ thread-scope i) per (pid, tid)
    counters = collections.defaultdict(lambda: [0, set()])
    s_ids, f_ids = collections.Counter(), collections.Counter()
    open_be = collections.Counter()
    unmatched_E = []
    for e in evs:
        p, pid, tid = e.get("ph"), e.get("pid"), e.get("tid")
        if p == "M" and e.get("name") == "process_name":
            pname[pid] = e["args"]["name"]
        elif p == "M" and e.get("name") == "thread_name":
            tname[(pid, tid)] = e["args"]["name"]
        elif p == "X":
            per_thread[(pid, tid)] += 1
        elif p == "B":
            open_be[(pid, tid)] += 1
        elif p == "E":
            if open_be[(pid, tid)] > 0:
                open_be[(pid, tid)] -= 1
                per_thread[(pid, tid)] += 1
            else:
                unmatched_E.append(e)
        elif p in ("i", "I") and e.get("s", "t") == "t":
            per_thread[(pid, tid)] += 1
        elif p == "C":
            c = counters[(pid, e.get("name"), e.get("id"))]
            c[0] += 1
            c[1].update(e.get("args", {}).keys())
        elif p == "s":
            s_ids[(e.get("cat"), e.get("id"))] += 1
        elif p == "f":
            f_ids[(e.get("cat"), e.get("id"))] += 1
    # a B never ended is still a slice in the viewer (auto-closed, didNotFinish): count it, list it
    for k, n in open_be.items():
        per_thread[k] += n
    tsv = [(e["ts"], e["ts"] + e.get("dur", 0)) for e in evs if "ts" in e]
    span_ms = (max(b for _, b in tsv) - min(a for a, _ in tsv)) / 1000.0 if tsv else 0.0
    paired = sum(min(n, f_ids[k]) for k, n in s_ids.items())
    return {"events": len(evs), "ph": dict(sorted(ph.items())), "process_names": pname,
            "thread_names": tname, "per_thread": per_thread, "unclosed_B": {k: n for k, n in open_be.items() if n},
            "unmatched_E": unmatched_E,
            "counters": {k: (v[0], sorted(v[1])) for k, v in counters.items()},
            "flow_pairs": paired, "span_ms": span_ms, "metadata": doc.get("metadata"), "evs": evs}


def build_html(src):
    out = os.path.join(CATAPULT, "out", os.path.basename(src).rsplit(".", 1)[0] + ".html")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    subprocess.run([sys.executable, os.path.join(CATAPULT, "tracing/bin/trace2html"), src,
                    "--output", out, "--quiet"], check=True)
    return out


def load_in_viewer(br, html, timeout=600):
    t, s = br.open("file://" + html)
    end, state = time.time() + timeout, None
    t0 = time.time()
    while time.time() < end:
        time.sleep(1)
        state = br.eval(s, "(() => { if (typeof tr === 'undefined') return 'no-tr';"
                           " const o = document.querySelector('tr-ui-b-overlay');"
                           " if (o && o.title === 'Import error') return 'error: ' + o.textContent;"
                           " return (typeof g_timelineViewEl !== 'undefined' && g_timelineViewEl.model)"
                           " ? 'loaded' : 'importing'; })()")
        if state == "loaded" or (state or "").startswith("error"):
            break
    load_s = time.time() - t0
    stats = br.eval(s, MODEL_STATS_JS) if state == "loaded" else None
    console = br.console(s)
    br.send("Target.closeTarget", {"targetId": t})
    return state, load_s, stats, console


def compare(name, fs, vs):
    print("== %s" % name)
    print("file: %d events, ph %s, metadata trace-state=%s" % (
        fs["events"], fs["ph"], (fs["metadata"] or {}).get("trace-state")))
    vproc = {p["pid"]: p for p in vs["processes"]}
    print("viewer: %d processes, %d threads, %d flow events, %d counters, bounds %.3f..%.3f ms" % (
        len(vproc), vs["numThreads"], vs["flows"], len(vs["counters"]), *vs["bounds_ms"]))
    ok = abs((vs["bounds_ms"][1] - vs["bounds_ms"][0]) - fs["span_ms"]) < 1e-3
    print("  time span: file %.3f ms (first ts .. last ts+dur) | viewer %.3f ms%s" % (
        fs["span_ms"], vs["bounds_ms"][1] - vs["bounds_ms"][0], "" if ok else "   <-- MISMATCH"))
    fpids = set(fs["process_names"]) | {k[0] for k in fs["per_thread"]}
    for pid in sorted(fpids | set(vproc)):
        vp = vproc.get(pid)
        fname = fs["process_names"].get(pid)
        vname = vp and vp["name"]
        flag = "" if vp and vname == fname else "   <-- MISMATCH"
        ok &= not flag
        print("  process %d: file name %r | viewer name %r%s" % (pid, fname, vname, flag))
        vthreads = {t["tid"]: t for t in (vp["threads"] if vp else [])}
        ftids = {k[1] for k in list(fs["thread_names"]) + list(fs["per_thread"]) if k[0] == pid}
        for tid in sorted(ftids | set(vthreads)):
            vt = vthreads.get(tid)
            fn, fc = fs["thread_names"].get((pid, tid)), fs["per_thread"].get((pid, tid), 0)
            vn, vc = (vt["name"], vt["slices"]) if vt else (None, None)
            flag = "" if vt and vn == fn and vc == fc else "   <-- MISMATCH"
            if not vt and fc == 0:
                flag = "   (named in file, no slices; viewer has no thread)"
            else:
                ok &= not flag
            extra = " depth<=%d zero-dur=%d async=%d" % (vt["maxDepth"], vt["zeroDur"], vt["async"]) if vt else ""
            print("    tid %d: name %r/%r slices file %d | viewer %s%s%s" % (tid, fn, vn, fc, vc, extra, flag))
            if fs["unclosed_B"].get((pid, tid)):
                print("      file: %d B without E" % fs["unclosed_B"][(pid, tid)])
            for u in (vt or {}).get("unfinished", []):
                print("      viewer: didNotFinish slice %r start %.3f ms dur %.3f ms" % (u["name"], u["start_ms"], u["dur_ms"]))
    if fs["unmatched_E"]:
        print("  file: %d E without B, first %s" % (len(fs["unmatched_E"]), fs["unmatched_E"][0]))
    fc_total = sum(n for n, _ in fs["counters"].values())
    print("  counters in file: %s" % {"%s/%s" % (k[0], k[1]): v for k, v in fs["counters"].items()})
    print("  counters in viewer: %s" % [(c["pid"], c["name"], c["series"], c["samples"]) for c in vs["counters"]])
    vsamples = sum(c["samples"] for c in vs["counters"])
    flag = "" if vsamples == fc_total else "   <-- MISMATCH"
    ok &= not flag
    print("  counter samples: file %d C events | viewer %d samples%s" % (fc_total, vsamples, flag))
    flag = "" if vs["flows"] == fs["flow_pairs"] else "   <-- MISMATCH"
    ok &= not flag
    print("  flows: file %d s, %d f, %d s/f pairs by (cat,id) | viewer flowEvents %d%s" % (
        fs["ph"].get("s", 0), fs["ph"].get("f", 0), fs["flow_pairs"], vs["flows"], flag))
    w = collections.Counter((x["type"], x["message"]) for x in vs["warnings"])
    print("  import warnings: %d" % len(vs["warnings"]))
    for (ty, msg), n in w.most_common():
        print("    %dx [%s] %s" % (n, ty, msg[:300]))
    return ok


def main(paths):
    br = Browser()
    ver = br.send("Browser.getVersion")["product"]
    commit = subprocess.run(["git", "--git-dir=/work/.mirror/catapult-project+catapult/repo", "log",
                             "-1", "--format=%H"], capture_output=True, text=True).stdout.strip()
    print("chromium %s, catapult %s" % (ver, commit))
    all_ok = True
    try:
        for p in paths:
            html = build_html(p)
            state, load_s, vs, console = load_in_viewer(br, html)
            print("-- %s: trace2html %s (%.1f MB); page state %r after %.1f s" % (
                p, html, os.path.getsize(html) / 1e6, state, load_s))
            for line in console:
                print("   page: " + line[:400])
            if state != "loaded":
                all_ok = False
                continue
            all_ok &= compare(p, file_stats(p), vs)
    finally:
        br.close()
    print("RESULT:", "all exports match" if all_ok else "differences found (see MISMATCH)")
    return 0 if all_ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
