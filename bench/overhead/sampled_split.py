#!/usr/bin/env python3
"""What launch callbacks cost, inside one process (issue #27).

    python3 bench/overhead/sampled_split.py STEPSCOPE TRACE...

A recording with launch sampling (record --launch-sample N, the default with --capture all)
records kernel launch calls in one step of N and says so in CAPTURE records (what "launches",
reason "sampled"). Per trace this prints the median time of the steps with launch calls and of
the steps between them: the same process, interleaved every N steps, so the host's drift between
processes (10-40 % on the GPU machine) does not enter. Steps before SKIP (warm-up) are left out;
a step counts as sampled when launch calls were on at its middle, as the analysis reads it.
"""
import json
import statistics
import subprocess
import sys

SKIP = 10


def step_times(stepscope, trace):
    out = subprocess.run([stepscope, "dump", "--json", "-t", "step,capture", trace],
                         capture_output=True, text=True, check=True).stdout
    begins, ends, switches = {}, {}, []
    for line in out.splitlines():
        r = json.loads(line)
        if r["type"] == "capture" and "launches" in str(r.get("what")):
            switches.append((r["t"], r["state"] == "on"))
        elif r["type"] == "step" and r.get("phase") in ("begin", "end"):
            (begins if r["phase"] == "begin" else ends)[r["step"]] = r["t"]
    switches.sort()
    on, off = [], []
    for step, b in begins.items():
        if step < SKIP or step not in ends:
            continue
        mid, state = (b + ends[step]) // 2, True
        for t, v in switches:
            if t > mid:
                break
            state = v
        (on if state else off).append((ends[step] - b) / 1e6)
    return on, off


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    for trace in sys.argv[2:]:
        on, off = step_times(sys.argv[1], trace)
        if not on or not off:
            print("%s: no launch sampling (%d steps)" % (trace, len(on) + len(off)))
            continue
        a, b = statistics.median(on), statistics.median(off)
        print("%s: sampled %d steps %.2f ms, between %d steps %.2f ms, ratio %.3f (%+.2f ms)"
              % (trace, len(on), a, len(off), b, a / b, a - b))


if __name__ == "__main__":
    main()
