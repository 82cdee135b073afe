#!/usr/bin/env python3
"""html_browser.py CHROMIUM STEPSCOPE FIXTURES WORKDIR MK_HOSTILE SST_GEN

The HTML report in a real browser (issue #22): headless Chromium driven over the DevTools
protocol (--remote-debugging-pipe, stdlib only) loads reports of committed fixtures and of a
hostile trace, and checks that

  - the page loads with no console error, no uncaught exception and its script ran to the end
    (data-ss-ready), nothing in its own error box (#ss-errors);
  - the timeline draws one rect per span of its data (the median step, then the slowest, then
    the last step of its list: any drawn step can be picked);
    wheel zoom narrows the time axis, the fit key restores it;
  - clicking a finding highlights exactly the spans of the categories it prices;
  - a sortable table sorts; the run chart has one stacked path per category in its data;
  - hostile names stay text: no element, attribute or script comes from them, no dialog
    opens, and the tooltip shows the name's characters;
  - a 100-step report stays under 2 MB.

Screenshots of the pages go to WORKDIR; their paths are printed. Exit 77 (SKIP) without
chromium.
"""
import base64
import fcntl
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

CHROMIUM, SS, FIXTURES, WORK, MK_HOSTILE, SST_GEN = sys.argv[1:7]
SKIP = 77
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg, flush=True)


class Browser:
    """One headless Chromium and one page, over the DevTools pipe (fds 3 and 4)."""

    def __init__(self, profile):
        to_r, to_w = os.pipe()
        from_r, from_w = os.pipe()
        hi_r = fcntl.fcntl(to_r, fcntl.F_DUPFD_CLOEXEC, 64)
        hi_w = fcntl.fcntl(from_w, fcntl.F_DUPFD_CLOEXEC, 64)
        for fd in (to_r, from_w):
            os.close(fd)

        def child_fds():
            os.dup2(hi_r, 3)
            os.dup2(hi_w, 4)

        args = [CHROMIUM, "--headless", "--disable-gpu", "--no-sandbox", "--disable-dev-shm-usage", "--remote-debugging-pipe",
                "--user-data-dir=" + profile, "--no-first-run", "--no-default-browser-check",
                "--disable-extensions", "--hide-scrollbars", "--mute-audio", "--allow-file-access-from-files",
                "about:blank"]
        self.proc = subprocess.Popen(args, preexec_fn=child_fds, close_fds=False,
                                     stdout=subprocess.DEVNULL, stderr=open(os.path.join(WORK, "chromium.log"), "ab"))
        os.close(hi_r)
        os.close(hi_w)
        self.w, self.r = to_w, from_r
        self.buf = b""
        self.next_id = 0
        self.events = []
        targets = self.call("Target.getTargets")["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        self.session = self.call("Target.attachToTarget", targetId=page["targetId"], flatten=True)["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            self.call(domain + ".enable", session=True)
        self.call("Page.addScriptToEvaluateOnNewDocument", session=True,
                  source="window.__dialogs = 0; window.alert = window.confirm = window.prompt ="
                         " function () { window.__dialogs++; };")

    def _read(self, deadline):
        while b"\0" not in self.buf:
            if time.time() > deadline:
                raise TimeoutError("no answer from chromium")
            chunk = os.read(self.r, 1 << 20)
            if not chunk:
                raise EOFError("chromium closed the pipe")
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, session=False, timeout=60, **params):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params}
        if session:
            msg["sessionId"] = self.session
        os.write(self.w, json.dumps(msg).encode() + b"\0")
        deadline = time.time() + timeout
        while True:
            m = self._read(deadline)
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise RuntimeError(f"{method}: {m['error']}")
                return m.get("result", {})
            if "method" in m:
                self.events.append(m)

    def wait_event(self, name, timeout=60):
        deadline = time.time() + timeout
        while True:
            for i, m in enumerate(self.events):
                if m["method"] == name:
                    return self.events.pop(i)
            self.events.append(self._read(deadline))

    def js(self, expr):
        r = self.call("Runtime.evaluate", session=True, expression=expr, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in r:
            raise RuntimeError(f"{expr[:60]}...: {r['exceptionDetails'].get('text')}"
                               f" {r['exceptionDetails'].get('exception', {}).get('description', '')}")
        return r["result"].get("value")

    def open(self, path, width=1400, height=900):
        self.call("Emulation.setDeviceMetricsOverride", session=True, width=width, height=height,
                  deviceScaleFactor=1, mobile=False)
        self.events = []
        self.call("Page.navigate", session=True, url="file://" + os.path.abspath(path))
        self.wait_event("Page.loadEventFired")

    def errors(self):
        """Uncaught exceptions, console.error calls and error log entries seen so far."""
        out = []
        for m in self.events:
            p = m.get("params", {})
            if m["method"] == "Runtime.exceptionThrown":
                out.append("exception: " + json.dumps(p.get("exceptionDetails", {}))[:300])
            elif m["method"] == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                out.append("console.error: " + json.dumps(p.get("args", []))[:300])
            elif m["method"] == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
                out.append("log: " + p["entry"].get("text", "")[:300])
        return out

    def click(self, x, y):
        for kind in ("mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", session=True, type=kind, x=x, y=y, button="left", clickCount=1)

    def wheel(self, x, y, dy):
        self.call("Input.dispatchMouseEvent", session=True, type="mouseWheel", x=x, y=y, deltaX=0, deltaY=dy)

    def key(self, text):
        for kind in ("keyDown", "keyUp"):
            self.call("Input.dispatchKeyEvent", session=True, type=kind, key=text, text=text if kind == "keyDown" else "")

    def screenshot(self, path):
        h = self.js("Math.ceil(document.documentElement.scrollHeight)")
        self.call("Emulation.setDeviceMetricsOverride", session=True, width=1400, height=min(h, 12000),
                  deviceScaleFactor=1, mobile=False)
        time.sleep(0.3)  # the charts redraw on resize
        data = self.call("Page.captureScreenshot", session=True, format="png")["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))
        self.call("Emulation.setDeviceMetricsOverride", session=True, width=1400, height=900,
                  deviceScaleFactor=1, mobile=False)
        print("screenshot: " + path, flush=True)

    def close(self):
        try:
            self.call("Browser.close", timeout=10)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def report(trace, out, *extra):
    p = subprocess.run([SS, "report", "--format", "html", "-o", out, *extra, trace], capture_output=True, timeout=120)
    if p.returncode != 0:
        fail(f"report of {trace}: exit {p.returncode}: {p.stderr[-300:]!r}")
    return out


# The page's state, read in one evaluation: the data of the first charted section and what
# its charts drew.
STATE = """(() => {
  const sec = Array.from(document.querySelectorAll('main > section')).find(s => s.querySelector('script.ss-data'));
  const data = sec ? JSON.parse(sec.querySelector('script.ss-data').textContent) : null;
  const tl = sec && sec.querySelector('.ss-tl svg');
  const axis = tl ? Array.from(tl.querySelectorAll('text')).map(t => t.textContent).filter(t => / ms$/.test(t)) : [];
  return {
    ready: document.documentElement.getAttribute('data-ss-ready'),
    errors: (document.getElementById('ss-errors') || {}).textContent || '',
    dialogs: window.__dialogs,
    timelines: data && data.timelines ? data.timelines.map(t => t.spans.length) : [],
    runCats: data && data.run ? data.run.cats.length : -1,
    runPaths: sec ? sec.querySelectorAll('.ss-run path.catpath:not(.warmbar)').length : 0,
    rects: tl ? tl.querySelectorAll('rect.span').length : 0,
    on: tl ? tl.querySelectorAll('rect.span.on').length : 0,
    hl: tl ? tl.classList.contains('hl') : false,
    axis: axis,
  };
})()"""


# Picks the last step of the timeline's list (any drawn step); returns its timeline index.
PICK_LAST = """(() => { const p = document.querySelector('.ss-tl .ss-toolbar select');
  p.value = p.options[p.options.length - 1].value;
  p.dispatchEvent(new Event('change'));
  return Number(p.value); })()"""


def center_of(b, selector):
    r = b.js(f"(() => {{ const e = document.querySelector({json.dumps(selector)}); if (!e) return null;"
             " e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect();"
             " return [r.left + r.width / 2, r.top + r.height / 2]; })()")
    if r is None:
        raise RuntimeError("no element " + selector)
    return r


def check_loaded(b, name):
    s = b.js(STATE)
    if s["ready"] != "1":
        fail(f"{name}: the page's script did not finish (data-ss-ready {s['ready']!r})")
    if s["errors"]:
        fail(f"{name}: page errors: {s['errors'][:400]}")
    for e in b.errors():
        fail(f"{name}: {e}")
    if s["dialogs"]:
        fail(f"{name}: {s['dialogs']} dialog(s) opened")
    return s


def check_timeline(b, name):
    s = b.js(STATE)
    if not s["timelines"]:
        fail(f"{name}: no timeline in the data")
        return s
    if s["rects"] != s["timelines"][0]:
        fail(f"{name}: timeline draws {s['rects']} spans, its data holds {s['timelines'][0]}")
    if s["runPaths"] != s["runCats"]:
        fail(f"{name}: run chart draws {s['runPaths']} category paths for {s['runCats']} categories")
    tip = b.js("""(() => {
      const c = document.querySelector('.ss-run svg > rect:last-of-type'), r = c.getBoundingClientRect();
      c.dispatchEvent(new MouseEvent('mousemove', {bubbles: true, clientX: r.left + 2, clientY: r.top + 9}));
      return document.querySelector('.ss-tip').textContent; })()""")
    if not tip.startswith("step ") or " ms" not in tip:
        fail(f"{name}: the run chart's tooltip of its first step: {tip!r}")
    before = s["axis"]
    x, y = center_of(b, ".ss-tl svg")
    b.wheel(x + 200, y, -600)
    time.sleep(0.1)
    zoomed = b.js(STATE)["axis"]
    if zoomed == before or not zoomed:
        fail(f"{name}: wheel zoom did not change the time axis ({before[:3]} -> {zoomed[:3]})")
    b.js("document.querySelector('.ss-tl').focus()")
    b.key("0")
    if b.js(STATE)["axis"] != before:
        fail(f"{name}: the fit key did not restore the axis")
    if len(s["timelines"]) > 1:
        b.js("document.querySelectorAll('.ss-tl .ss-toolbar button')[1].click()")
        n = b.js(STATE)["rects"]
        if n != s["timelines"][1]:
            fail(f"{name}: slowest step draws {n} spans, its data holds {s['timelines'][1]}")
        last = b.js(PICK_LAST)
        n = b.js(STATE)["rects"]
        if n != s["timelines"][last]:
            fail(f"{name}: the list's last step draws {n} spans, its data holds {s['timelines'][last]}")
        b.js("document.querySelectorAll('.ss-tl .ss-toolbar button')[0].click()")
    return s


def check_finding_link(b, name):
    """The first finding's categories: its click highlights exactly their spans."""
    want = b.js("""(() => {
      const sec = document.querySelector('main > section');
      const row = sec.querySelector('tr.finding');
      if (!row) return null;
      const cats = row.getAttribute('data-cats').split(' ').map(Number);
      const data = JSON.parse(sec.querySelector('script.ss-data').textContent);
      return data.timelines[0].spans.filter(s => cats.includes(s[1])).length;
    })()""")
    if want is None:
        fail(f"{name}: no finding row")
        return
    x, y = center_of(b, "tr.finding")
    b.click(x, y)
    s = b.js(STATE)
    if not s["hl"] or s["on"] != want or want == 0:
        fail(f"{name}: finding click highlights {s['on']} spans (hl {s['hl']}), want {want} > 0")
    b.click(x, y)
    if b.js(STATE)["hl"]:
        fail(f"{name}: a second click did not clear the highlight")


def check_sort(b, name):
    order = b.js("""(() => {
      const t = Array.from(document.querySelectorAll('table.sortable')).find(t =>
        t.tHead && t.tHead.textContent.includes('count'));
      if (!t) return null;
      t.tHead.rows[0].cells[1].click();
      const v = Array.from(t.tBodies[0].rows).map(r => parseFloat(r.cells[1].textContent));
      t.tHead.rows[0].cells[1].click();
      const w = Array.from(t.tBodies[0].rows).map(r => parseFloat(r.cells[1].textContent));
      return [v, w];
    })()""")
    if not order:
        fail(f"{name}: no sortable top-kernels table")
        return
    down, up = order
    if down != sorted(down, reverse=True) or up != sorted(up) or len(down) < 2:
        fail(f"{name}: counts not sorted: {down} then {up}")


def check_hostile(b, path, evil):
    """Nothing the trace says becomes an element, an attribute or a script; names show as text."""
    r = b.js("""(() => {
      const bad = document.querySelectorAll('img, iframe, object, embed, a, link, style:not(head style)');
      const attrs = [];
      for (const e of document.querySelectorAll('*'))
        for (const a of e.attributes)
          if (/^on/i.test(a.name) || /javascript:/i.test(a.value)) attrs.push(e.tagName + ' ' + a.name);
      const scripts = document.querySelectorAll('script');
      const ours = document.querySelectorAll('script.ss-data[type="application/json"]').length;
      const sec = document.querySelector('main > section');
      const data = JSON.parse(sec.querySelector('script.ss-data').textContent);
      const i = data.timelines[0].spans.findIndex(s => s[4] >= 0 && data.names[s[4]].includes('<img'));
      let tipText = null, tipChildren = -1;
      if (i >= 0) {
        const rect = document.querySelectorAll('.ss-tl rect.span')[i];
        const r = rect.getBoundingClientRect();
        rect.dispatchEvent(new MouseEvent('mouseover', {bubbles: true, clientX: r.left + 1, clientY: r.top + 1}));
        const tip = document.querySelector('.ss-tip');
        tipText = tip.textContent;
        tipChildren = tip.querySelectorAll('*:not(b)').length;
      }
      return {bad: bad.length, attrs: attrs, scripts: scripts.length, ours: ours, tipText: tipText,
              tipChildren: tipChildren, names: data.names};
    })()""")
    if r["bad"]:
        fail(f"hostile: {r['bad']} elements made from trace strings")
    if r["attrs"]:
        fail(f"hostile: event-handler or javascript: attributes: {r['attrs'][:5]}")
    if r["scripts"] != r["ours"] + 1:
        fail(f"hostile: {r['scripts']} script elements, want {r['ours']} data documents + the page's script")
    if r["tipText"] is None or evil not in r["tipText"] or r["tipChildren"]:
        fail(f"hostile: tooltip of the hostile kernel: {r['tipText']!r} ({r['tipChildren']} elements)")


def page(b, html, name, shot=True):
    b.open(html)
    s = check_loaded(b, name)
    if shot:
        b.screenshot(os.path.join(WORK, name + ".png"))
    return s


def main():
    if not shutil.which(CHROMIUM) and not os.path.exists(CHROMIUM):
        print("skipped: no chromium")
        return SKIP
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    w0 = report(os.path.join(FIXTURES, "h200-dataloader-w0.sstrace"), os.path.join(WORK, "dataloader-w0.html"))
    lb = report(os.path.join(FIXTURES, "h200-cnn-launchbound.sstrace"), os.path.join(WORK, "cnn-launchbound.html"))
    hostile_trace = os.path.join(WORK, "hostile.sstrace")
    subprocess.run([MK_HOSTILE, hostile_trace], check=True, timeout=60)
    hostile = report(hostile_trace, os.path.join(WORK, "hostile.html"), "-v")
    gen = os.path.join(WORK, "gen100.sstrace")
    subprocess.run([SST_GEN, "-o", gen, "--steps", "100"], check=True,
                   timeout=60, stdout=subprocess.DEVNULL)
    big = report(gen, os.path.join(WORK, "gen100.html"))
    if os.path.getsize(big) > 2 * 1024 * 1024:
        fail(f"a 100-step report is {os.path.getsize(big)} bytes (over 2 MB)")
    with tempfile.TemporaryDirectory() as profile:
        b = Browser(profile)
        try:
            for html, name in ((w0, "dataloader-w0"), (lb, "cnn-launchbound"), (big, "gen100")):
                page(b, html, name)
                check_timeline(b, name)
                check_finding_link(b, name) if name != "gen100" else None
                check_sort(b, name)
                for e in b.errors():
                    fail(f"{name} after interaction: {e}")
            page(b, hostile, "hostile")
            check_hostile(b, hostile, "<img src=x onerror=alert(1)>")
            check_timeline(b, "hostile")
            if b.js("window.__dialogs"):
                fail("hostile: a dialog opened")
        finally:
            b.close()
    if failures:
        return 1
    print("ok: html reports load in chromium, draw their spans, link findings, keep names as text")
    return 0


if __name__ == "__main__":
    sys.exit(main())
