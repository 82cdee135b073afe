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


def step_marks(stepscope, trace):
    """[(phase, step, t)] of the trace's step records."""
    dump = subprocess.run([stepscope, "dump", "-t", "step", trace], capture_output=True,
                          text=True, check=True).stdout
    out = []
    for line in dump.splitlines():
        fields = dict(f.split("=", 1) for f in line.split()[1:] if "=" in f)
        out.append((fields.get("phase"), int(fields.get("step", -1)), int(fields["t"])))
    return out


def step_end_ns(stepscope, trace, n):
    """The time (ns, the trace's clock) marked step n ended (the last one when the trace has
    fewer), and the time the next step began (None when none did)."""
    marks = step_marks(stepscope, trace)
    ends = [t for phase, step, t in marks if phase == "end" and step <= n]
    if not ends:
        return None, None
    end = max(ends)
    later = [t for phase, step, t in marks if phase == "begin" and t > end]
    return end, (min(later) if later else None)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("stepscope")
    ap.add_argument("trace")
    ap.add_argument("out")
    ap.add_argument("--steps", type=int, default=20)
    a = ap.parse_args()
    end_ns, next_ns = step_end_ns(a.stepscope, a.trace, a.steps)
    if end_ns is None:
        sys.exit("trim.py: %s marks no step" % a.trace)
    start_ns = header_start_ns(a.stepscope, a.trace)
    # The cut falls between step N's end and the next step's begin: a range that overlaps the
    # part is kept whole, so a step straddling the cut would keep both marks and lose the GPU
    # records after it (a step with 7 of its 811 kernels, 2 % busy, in a 14-step part). The
    # kernels the last steps launched started before the cut and are kept with their ends.
    gap_ns = (next_ns - end_ns) if next_ns else 2000000
    if gap_ns < 2000:
        sys.exit("trim.py: step %d's end and the next begin are %d ns apart: no cut between"
                 % (a.steps, gap_ns))
    t = (end_ns - start_ns + min(gap_ns // 2, 2000000)) / 1e9
    subprocess.run([a.stepscope, "export", "-q", "--force", "-f", "sstrace", "--time",
                    "0-%.6f" % t, "-o", a.out, a.trace], check=True)
    return 0


def header_start_ns(stepscope, trace):
    info = json.loads(subprocess.run([stepscope, "info", "--json", trace], capture_output=True,
                                     text=True, check=True).stdout)
    return int(info["start_mono_ns"])


if __name__ == "__main__":
    sys.exit(main())
