#!/usr/bin/env python3
"""Cause, not victim, on the allocation-heavy loop recorded on the H200 (issue #28):
bench/workloads/frameworks/alloc_transformer.py with torch.cuda.empty_cache() after every step
(tests/fixtures/h200-1204/alloc/). Its next forward and backward allocate again; a sampler that
lands after the fact would blame them. Gates:

  line    the `alloc` category's first line is the empty_cache() line of the program (found by
          its text), with empty_cache as the library frame beside it
  finding the allocator-churn finding names that line in its evidence and its fix
  fixed   the fixed twin has no allocator-churn finding and no line under empty_cache

    alloc_cause.py STEPSCOPE ROOT GATE      # exit 0 pass, 1 miss
"""
import json
import os
import subprocess
import sys

PROGRAM = "bench/workloads/frameworks/alloc_transformer.py"
FIXTURES = "tests/fixtures/h200-1204/alloc"


def report(bin_, path):
    p = subprocess.run([bin_, "report", "--format", "json", path], capture_output=True, text=True,
                       timeout=120)
    if p.returncode != 0:
        sys.exit("FAIL: report %s: %s" % (path, p.stderr.strip()))
    return json.loads(p.stdout)


def planted_line(root):
    with open(os.path.join(root, PROGRAM)) as f:
        for n, line in enumerate(f, 1):
            if line.strip() == "torch.cuda.empty_cache()":
                return n
    sys.exit("FAIL: no empty_cache() line in %s" % PROGRAM)


def churn(js):
    return next((f for f in js["findings"] if f["id"] == "allocator_churn"), None)


def main():
    bin_, root, gate = sys.argv[1:4]
    line = planted_line(root)
    where = "main (alloc_transformer.py:%d)" % line
    bad = report(bin_, os.path.join(root, FIXTURES, "alloc-bad.sstrace"))
    if gate == "line":
        top = (bad.get("host_hotspots", {}).get("alloc") or [{}])[0]
        lib = (top.get("library_frame") or {}).get("function")
        ok = top.get("line") == line and top.get("file", "").endswith("alloc_transformer.py") \
            and lib == "empty_cache"
        detail = "alloc first: %s:%s beside %s" % (top.get("function"), top.get("line"), lib)
    elif gate == "finding":
        f = churn(bad)
        ok = bool(f) and where in f["evidence"] and where in f["fix"]
        detail = "allocator_churn %s" % ("names " + where if ok else "does not name " + where)
    else:
        fixed = report(bin_, os.path.join(root, FIXTURES, "alloc-fixed.sstrace"))
        libs = [(h.get("library_frame") or {}).get("function")
                for hs in fixed.get("host_hotspots", {}).values() for h in hs]
        ok = churn(fixed) is None and "empty_cache" not in libs
        detail = "fixed twin: churn finding %s, empty_cache lines %d" % (
            bool(churn(fixed)), libs.count("empty_cache"))
    print("%s: %s (%s)" % (gate, "pass" if ok else "miss", detail))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
