#!/usr/bin/env python3
"""Cuts a zoo recording down to its first marked steps, for the committed fixtures: the part
from the recording's start to the end of marked step --steps (default 20), written with
`stepscope export --format sstrace --time 0-T` (records byte for byte, ENV export.part), so
the baseline steps (3-7) and the first recorded ones stay and the part's report prices the same
findings from fewer steps.

    trim.py STEPSCOPE TRACE OUT [--steps N]
"""
import argparse
import json
import subprocess
import sys


def step_end_ns(stepscope, trace, n):
    """The time (ns, the trace's clock) marked step n ended (the last one when the trace has
    fewer)."""
    dump = subprocess.run([stepscope, "dump", "-t", "step", trace], capture_output=True,
                          text=True, check=True).stdout
    ends = []
    for line in dump.splitlines():
        fields = dict(f.split("=", 1) for f in line.split()[1:] if "=" in f)
        if fields.get("phase") == "end" and int(fields.get("step", -1)) <= n:
            ends.append(int(fields["t"]))
    return max(ends) if ends else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("stepscope")
    ap.add_argument("trace")
    ap.add_argument("out")
    ap.add_argument("--steps", type=int, default=20)
    a = ap.parse_args()
    end_ns = step_end_ns(a.stepscope, a.trace, a.steps)
    if end_ns is None:
        sys.exit("trim.py: %s marks no step" % a.trace)
    start_ns = header_start_ns(a.stepscope, a.trace)
    t = (end_ns - start_ns) / 1e9 + 0.002  # the GPU work of the last step, briefly
    subprocess.run([a.stepscope, "export", "-q", "--force", "-f", "sstrace", "--time",
                    "0-%.6f" % t, "-o", a.out, a.trace], check=True)
    return 0


def header_start_ns(stepscope, trace):
    info = json.loads(subprocess.run([stepscope, "info", "--json", trace], capture_output=True,
                                     text=True, check=True).stdout)
    return int(info["start_mono_ns"])


if __name__ == "__main__":
    sys.exit(main())
