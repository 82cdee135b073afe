#!/usr/bin/env python3
"""What each CUPTI kind costs a real framework program, measured inside one process.

The floor client (bench/overhead/cupti_floor.c, injected) starts with some kinds on, and the
program (bench/workloads/frameworks/harness.py, BENCH_STAIRS) switches more on at fixed step
counts: each stair's ms/step minus the one before is what the kinds it added cost, without the
10-40 % noise between processes of host-bound programs on the GPU machine. Two ladders:

  base   nothing at start, then kernel | memcpy,memset | sync | memory | overhead | callbacks-ts
  api    the collector's per-call API records at start (they take only then), then the same
  kernel none, none, kernel, kernel: kernel tracing alone, e.g. under CUPTI_FLOOR_ATTRS
         (cupti_floor.c), which the floor reads from the environment this script passes on
  light  none, none, callbacks-ts, memcpy,memset, kernel: light mode's parts in its order

Each begins with two stairs of the same kinds: their difference is the ladder's own noise.

    python3 bench/overhead/stairs.py --floor build-gpu/libcupti_floor.so --reps 2 \\
        --program "eager_mlp-bad=python3 bench/workloads/frameworks/eager_mlp.py --steps 160" \\
        --out stairs.json

Prints, per program and ladder, each stair's median over the repetitions and its step over the
stair before (ms and %), and writes every run to --out.
"""
import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys

CLIMB = ["kernel", "memcpy,memset", "sync", "memory", "overhead", "callbacks-ts"]
LADDERS = {
    "base": ("none", ["none", "none"] + CLIMB),
    "api": ("runtime-keep,driver-keep", ["api", "api"] + CLIMB),
    # kernel tracing alone, twice: its cost under CUPTI_FLOOR_ATTRS settings (cupti_floor.c)
    "kernel": ("none", ["none", "none", "kernel", "kernel"]),
    # light mode's parts alone: API callbacks, then copy records, then kernel records
    "light": ("none", ["none", "none", "callbacks-ts", "memcpy,memset", "kernel"]),
    # whether switching a kind off gives its cost back (then sampled windows would be cheap)
    "toggle": ("memcpy,memset,runtime-keep,driver-keep",
               ["api", "api", "kernel", "-kernel", "kernel", "-kernel", "sync", "-sync"]),
}


def result_line(stdout):
    for line in stdout.splitlines():
        if line.startswith("{") and "ms_per_step" in line:
            return json.loads(line)
    return None


def run(floor, argv, ladder):
    start, stairs = LADDERS[ladder]
    env = dict(os.environ, CUDA_INJECTION64_PATH=os.path.abspath(floor),
               CUPTI_FLOOR_KINDS=start, CUPTI_FLOOR_VERBOSE="1", BENCH_STAIRS="|".join(stairs))
    p = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=400)
    res = result_line(p.stdout) if p.returncode == 0 else None
    if not res or "stairs" not in res:
        sys.stderr.write("%s %s failed (rc %d): %s\n" % (argv, ladder, p.returncode,
                                                          p.stderr[-1500:]))
        return None
    if "cupti_floor: kinds %s" % start not in p.stderr:
        sys.stderr.write("%s %s: the floor client did not start (%s)\n" % (argv, ladder,
                                                                           p.stderr[-500:]))
        return None
    for line in p.stderr.splitlines():  # CUPTI_FLOOR_ATTRS: whether each attribute took
        if line.startswith("cupti_floor: attr "):
            sys.stderr.write(line + "\n")
    return res["stairs"]


def summary(runs):
    """[(kinds, median ms, step over the stair before in ms, in %)] over runs of one ladder."""
    rows, prev = [], None
    n = min(len(r) for r in runs)
    for i in range(n):
        ms = statistics.median(r[i]["ms_per_step"] for r in runs)
        d = None if prev is None else ms - prev
        rows.append((runs[0][i]["kinds"], ms, d, None if d is None else 100.0 * d / prev))
        prev = ms
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--floor", required=True)
    ap.add_argument("--program", action="append", default=[], metavar="NAME=COMMAND")
    ap.add_argument("--ladders", default="base,api")
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument("--out")
    args = ap.parse_args()
    out = {}
    for item in args.program:
        name, _, cmd = item.partition("=")
        for rep in range(args.reps):
            for ladder in args.ladders.split(","):
                got = run(args.floor, shlex.split(cmd), ladder)
                out.setdefault(name, {}).setdefault(ladder, []).append(got)
                print("rep %d %s %s: %s" % (rep, name, ladder, got and [
                    round(s["ms_per_step"], 3) for s in got]), flush=True)
        if args.out:
            with open(args.out, "w") as f:
                json.dump(out, f, indent=1)
    for name, ladders in out.items():
        for ladder, runs in ladders.items():
            good = [r for r in runs if r]
            if not good:
                print("%s %s: no run" % (name, ladder))
                continue
            for kinds, ms, d, pct in summary(good):
                print("%-22s %-5s %-26s %8.3f ms %s" % (
                    name, ladder, "+" + kinds, ms,
                    "" if d is None else "%+7.3f ms %+6.1f %%" % (d, pct)))


if __name__ == "__main__":
    main()
