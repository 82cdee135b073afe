#!/usr/bin/env python3
"""One truth for every view of the host time (issue #28): on each fixture with Python stack
samples, the text report, the JSON report, the HTML flame graph and the folded export name the
same top line per GPU-idle category.

The JSON report is the reference: per category, its first host hotspot (function, file, line).
- text: the first row of each category in the "host time" block names that line;
- folded (`export --format folded`): summing each stack's time on the innermost frame that is
  one of the category's JSON hotspots, that line gets the most;
- HTML: the flame graph has a box of that line.

usage: test_views_agree.py STEPSCOPE FIXTURE[:CATEGORY=FUNCTION]...
(with :CATEGORY=FUNCTION, the JSON's top line of that category must also be in FUNCTION: the
line the fixture was made to name, so that views agreeing on another line fail too)
"""
import json
import os
import re
import subprocess
import sys


def run(args):
    p = subprocess.run(args, capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        sys.exit("FAIL: %s exited %d: %s" % (" ".join(args), p.returncode, p.stderr[-500:]))
    return p.stdout


def label(h):
    return "%s (%s:%d)" % (h["function"], os.path.basename(h["file"]), h["line"])


def text_tops(text):
    """{category: label of its first row} from the text report's host-time block."""
    tops, cat, inside = {}, None, False
    for line in text.splitlines():
        if line.startswith("  host time"):
            inside = True
            continue
        if inside and (not line.strip() or line.startswith("             (")):
            if not line.strip():
                break
            continue
        if not inside:
            continue
        m = re.match(r"  (\S+)?\s+[\d.]+\s+\d+\s+(.*?)(?: -> .*)?$", line)
        if m and m.group(1):
            cat = m.group(1)
            tops.setdefault(cat, m.group(2).strip())
    return tops


def folded_top(folded, cat, hotspots):
    """The hotspot label of cat the folded stacks of cat give the most time."""
    wanted = {label(h) for h in hotspots}
    totals = {}
    for line in folded.splitlines():
        stack, _, value = line.rpartition(" ")
        frames = stack.split(";")
        if frames[0] != cat:
            continue
        for frame in reversed(frames[1:]):  # the innermost first
            m = re.match(r"(.*) \((.*):(\d+)\)$", frame)
            short = m and "%s (%s:%s)" % (m.group(1), os.path.basename(m.group(2)), m.group(3))
            if short in wanted:
                totals[short] = totals.get(short, 0) + int(value)
                break
    return max(totals, key=totals.get) if totals else None


def check_fixture(bin_, fixture, work):
    js = json.loads(run([bin_, "report", "--format", "json", fixture]))
    hot = {c: v for c, v in js.get("host_hotspots", {}).items() if v}
    if not hot:
        sys.exit("FAIL: %s has no host hotspots" % fixture)
    text = text_tops(run([bin_, "report", "-v", fixture]))
    folded = run([bin_, "export", "--format", "folded", "-o", "-", fixture])
    html_path = os.path.join(work, os.path.basename(fixture) + ".html")
    run([bin_, "report", "--format", "html", "--force", "-o", html_path, fixture])
    with open(html_path, encoding="utf-8") as f:
        titles = re.findall(r"<title>([^<]*?): [\d.]+ ms/step", f.read())
    bad = []
    for cat, hs in hot.items():
        want = label(hs[0])
        if text.get(cat, "").replace("&amp;", "&") != want:
            bad.append("%s: text names %r, JSON %r" % (cat, text.get(cat), want))
        got = folded_top(folded, cat, hs)
        idle = cat not in ("compute", "copy")  # folded and flame hold GPU-idle time only
        if idle and got != want:
            bad.append("%s: folded gives most to %r, JSON names %r" % (cat, got, want))
        if idle and not any(t.startswith("%s (" % hs[0]["function"]) and
                            t.endswith(":%d)" % hs[0]["line"]) for t in titles):
            bad.append("%s: no flame box of %r" % (cat, want))
    return bad


def main():
    bin_, fixtures = sys.argv[1], sys.argv[2:]
    work = os.environ.get("STEPSCOPE_TEST_TMP", "/tmp")
    os.makedirs(work, exist_ok=True)
    failures = []
    for arg in fixtures:
        fx, _, expect = arg.partition(":")
        bad = check_fixture(bin_, fx, work)
        if expect:
            cat, _, func = expect.partition("=")
            js = json.loads(run([bin_, "report", "--format", "json", fx]))
            top = (js.get("host_hotspots", {}).get(cat) or [{}])[0].get("function")
            if top != func:
                bad.append("%s: the top line is in %r, the fixture plants %r" % (cat, top, func))
        failures += ["%s: %s" % (os.path.basename(fx), b) for b in bad]
        print("%s: %s" % (fx, "agree" if not bad else "DISAGREE"))
    if failures:
        sys.exit("FAIL:\n  " + "\n  ".join(failures))
    print("ok: %d fixtures, every view names the same top line per category" % len(fixtures))


if __name__ == "__main__":
    main()
