#!/usr/bin/env python3
"""What launch callbacks cost, inside one process (issue #27).

    python3 bench/overhead/sampled_split.py STEPSCOPE TRACE...

A recording with launch sampling (record --launch-sample N, the default with --capture all)
records kernel launch calls in one step of N and says so in CAPTURE records (what "launches",
reason "sampled"). Per trace this prints the median time of the steps with launch calls and of
the steps between them: the same process, interleaved every N steps, so the host's drift between
processes (10-40 % on the GPU machine) does not enter. Steps before SKIP (warm-up) are left out;
a step counts as sampled when launch calls were on at its middle, as the analysis reads it.
It also prints the paired figure the report gives (recording_cost.launch_calls_ms_per_step, from
the 4th step on): the median of each sampled step less the mean of the unsampled steps beside it,
which cancels the drift inside the process too.
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
    steps = {}
    for step, b in begins.items():
        if step not in ends:
            continue
        mid, state = (b + ends[step]) // 2, True
        for t, v in switches:
            if t > mid:
                break
            state = v
        steps[step] = ((ends[step] - b) / 1e6, state)
    return steps


def split(steps):
    """Sampled and unsampled step times from SKIP on."""
    on = [ms for s, (ms, sampled) in steps.items() if s >= SKIP and sampled]
    off = [ms for s, (ms, sampled) in steps.items() if s >= SKIP and not sampled]
    return on, off


def pairs(steps):
    """Each sampled step (the 4th on) less the mean of the unsampled steps beside it."""
    order = sorted(steps)
    out = []
    for i, s in enumerate(order):
        ms, sampled = steps[s]
        before, after = steps.get(s - 1), steps.get(s + 1)
        if i >= 3 and sampled and before and after and not before[1] and not after[1]:
            out.append(ms - (before[0] + after[0]) / 2)
    return out


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    for trace in sys.argv[2:]:
        steps = step_times(sys.argv[1], trace)
        on, off = split(steps)
        if not on or not off:
            print("%s: no launch sampling (%d steps)" % (trace, len(on) + len(off)))
            continue
        a, b = statistics.median(on), statistics.median(off)
        p = pairs(steps)
        paired = "%+.2f ms over %d" % (statistics.median(p), len(p)) if p else "none"
        print("%s: sampled %d steps %.2f ms, between %d steps %.2f ms, ratio %.3f (%+.2f ms); "
              "paired %s" % (trace, len(on), a, len(off), b, a / b, a - b, paired))


if __name__ == "__main__":
    main()
