#!/usr/bin/env python3
"""Export speed of `stepscope export` per format: events (trace records) per second.

  python3 bench/interop/export_bench.py [--stepscope build/stepscope] [--reps 5]
                                        [--trace T ...] [--gen-records N]

By default the largest fixture (by record count) of tests/fixtures. --gen-records N also
makes a synthetic trace of N records with sst-gen (next to the stepscope binary) and times it
too. The formats run interleaved in each repetition (perfetto, nsys-sqlite, nvtxt, then again),
so machine noise falls on all of them alike; printed: median and spread (min..max) of the
wall time of each, and events/s from the median. Output files go to a temporary folder.
"""
import argparse
import glob
import os
import statistics
import subprocess
import sys
import tempfile
import time

FORMATS = ["perfetto", "nsys-sqlite", "nvtxt"]


def records(ss, trace):
    out = subprocess.run([ss, "info", trace], check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        parts = line.split()
        if parts[:1] == ["records"]:
            return int(parts[1])
    raise SystemExit("no record count in `stepscope info %s`" % trace)


def largest_fixture(ss, root):
    pats = ["tests/fixtures/*.sstrace", "tests/fixtures/workloads/traces/*.sstrace",
            "tests/fixtures/workloads/traces/*/*.sstrace"]
    files = [f for p in pats for f in glob.glob(os.path.join(root, p))]
    return max(files, key=lambda f: records(ss, f))


def time_once(ss, trace, fmt, out):
    if os.path.exists(out):
        os.unlink(out)
    t0 = time.perf_counter()
    subprocess.run([ss, "export", trace, "-o", out, "--format", fmt], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t0, os.path.getsize(out)


def bench(ss, trace, reps, work):
    n = records(ss, trace)
    times = {f: [] for f in FORMATS}
    sizes = {}
    for _ in range(reps):
        for fmt in FORMATS:
            t, sizes[fmt] = time_once(ss, trace, fmt, os.path.join(work, "out." + fmt))
            times[fmt].append(t)
    print("%s: %d records, %.1f MiB" % (os.path.relpath(trace), n, os.path.getsize(trace) / 2**20))
    for fmt in FORMATS:
        med = statistics.median(times[fmt])
        print("  %-12s median %8.3f s  (%.3f..%.3f)  %12.0f events/s  output %.1f MiB"
              % (fmt, med, min(times[fmt]), max(times[fmt]), n / med, sizes[fmt] / 2**20))


def main():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap = argparse.ArgumentParser()
    ap.add_argument("--stepscope", default=os.path.join(root, "build", "stepscope"))
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--trace", action="append", default=[])
    ap.add_argument("--gen-records", type=int, default=0)
    a = ap.parse_args()
    if not os.access(a.stepscope, os.X_OK):
        sys.exit("no stepscope binary at %s (build first, or --stepscope PATH)" % a.stepscope)
    traces = a.trace or [largest_fixture(a.stepscope, root)]
    with tempfile.TemporaryDirectory() as work:
        if a.gen_records:
            gen = os.path.join(os.path.dirname(a.stepscope), "sst-gen")
            t = os.path.join(work, "gen.sstrace")
            subprocess.run([gen, "-o", t, "--records", str(a.gen_records), "--zstd", "3"],
                           check=True, stdout=subprocess.DEVNULL)
            traces.append(t)
        print("stepscope export speed, %d interleaved repetitions, %s" % (a.reps, time.strftime("%Y-%m-%d")))
        for t in traces:
            bench(a.stepscope, t, a.reps, work)


if __name__ == "__main__":
    main()
