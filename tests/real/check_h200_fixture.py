"""Checks one real H200 trace fixture (tests/fixtures/h200-*.sstrace) through the CLI.

Usage: check_h200_fixture.py STEPSCOPE TRACE KERNELS STEPS
KERNELS: the kernel count Nsight Systems recorded for the same program (tests/fixtures/
h200-logs/*vs-nsys.txt); STEPS: the minimum number of shim step ranges (0: none expected).
The collector must have recorded the same kernels as nsys, in a complete, compressed
trace whose GPU timestamps sit on the host clock (inside the trace's own time span), with
the process, device, environment, API and host-sample records a report needs.
"""
import json
import subprocess
import sys


def run(*args):
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout


def check(ok, what):
    if not ok:
        print("FAIL:", what)
        sys.exit(1)
    print("ok:", what)


def main():
    ss, trace, kernels, steps = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    info = json.loads(run(ss, "info", "--json", trace))
    rec = info["records"]
    check(info["closed"] and not info["truncated"] and info["bad_chunks"] == 0,
          "complete trace (END chunk, no damage)")
    check("cupti" in info["features"] and "zstd" in info["features"], "CUPTI records, zstd")
    check(rec["kernel"] == kernels, "kernels %d == nsys's %d" % (rec["kernel"], kernels))
    check(any(d["name"] == "NVIDIA H200" and d["sm_count"] == 132 for d in info["devices"]),
          "device record of the H200")
    check(rec["api"] >= kernels, "an API record per launch at least")
    check(rec["host_sample"] > 0 and rec["env"] > 0 and rec["process"] == 1,
          "host samples, environment, one process")
    check(rec["step"] >= 2 * steps, "at least %d shim steps (begin+end)" % steps)
    check(info["dropped"] == 0, "nothing dropped")
    first, last = info["time_span_ns"]["first"], info["time_span_ns"]["last"]
    lines = run(ss, "dump", "--json", "--type", "kernel,api", trace).splitlines()
    recs = [json.loads(l) for l in lines]
    ks = [r for r in recs if r["type"] == "kernel"]
    check(all(first <= r["t"] <= r["end"] <= last for r in ks),
          "every kernel inside the trace's span, end >= start")
    corr = {r["corr"] for r in recs if r["type"] == "api"}
    launched = sum(1 for r in ks if r["corr"] in corr)
    check(launched == len(ks), "every kernel has its launching API record (%d/%d)"
          % (launched, len(ks)))


if __name__ == "__main__":
    main()
