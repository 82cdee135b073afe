#!/usr/bin/env python3
"""stepscope side by side with the peers that read the same torch.profiler (Kineto) traces —
HTA (holistictraceanalysis: temporal and idle-time breakdown) and torch-tb-profiler (step
breakdown, recommendations) — on the same files, in one run (issue #6).

For each Kineto file and each tool, in a fresh process (the order rotated per repetition):
wall time and peak RSS to a result (`/usr/bin/time`), and the numbers the tools share:

  gpu_idle_pct   GPU idle share of the analysed time (stepscope: 100 - GPU busy over the
                 analysed steps; HTA: temporal breakdown idle %; tb-profiler: 1 - kernel,
                 memcpy and memset time over the step time)
  kernel_ms      kernel time per step (stepscope: sum of kernel time by class per step; HTA:
                 sum of kernel time over the trace / ProfilerStep count; tb: Kernel cost)
  memcpy_ms      copy time per step (stepscope: copy time not hidden under kernels; tb: its
                 Memcpy role, also exclusive; HTA: MEMORY kernels' time)
  dataloader_pct DataLoader share of the step (stepscope: the data category; tb: DataLoader)
  advice         the top finding / recommendation, shortened

Peers run from a Python that has them (--peers-python; e.g. a venv with
`pip install HolisticTraceAnalysis torch-tb-profiler`). Usage:

    python3 bench/interop/peers.py --stepscope build/stepscope \\
        --peers-python /tmp/peers/bin/python --reps 3 tests/fixtures/workloads/kineto/*.json.gz
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

HTA_SNIPPET = r"""
import json, sys, os, io, contextlib
buf = io.StringIO()
with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
    from hta.trace_analysis import TraceAnalysis
    a = TraceAnalysis(trace_dir=sys.argv[1])
    tb = a.get_temporal_breakdown(visualize=False)
    kb = a.get_gpu_kernel_breakdown(visualize=False)
    # one symbol per step number (the CPU range and its GPU annotation share it)
    names = a.t.symbol_table.get_sym_table()
    steps = len({str(n) for n in names if str(n).startswith("ProfilerStep#")})
row = tb.iloc[0]
types = kb[0]
kernel_us = float(types.loc[types["kernel_type"] == "COMPUTATION", "sum"].sum()) \
    if "sum" in types else float("nan")
memory_us = float(types.loc[types["kernel_type"] == "MEMORY", "sum"].sum()) \
    if "sum" in types else float("nan")
print(json.dumps({"gpu_idle_pct": float(row["idle_time_pctg"]),
                  "kernel_ms": kernel_us / 1000 / max(steps, 1),
                  "memcpy_ms": memory_us / 1000 / max(steps, 1),
                  "dataloader_pct": None, "steps": steps,
                  "advice": "temporal breakdown: idle %.0f %%" % row["idle_time_pctg"]}))
"""

TB_SNIPPET = r"""
import json, sys, io, contextlib, tempfile
buf = io.StringIO()
with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
    from torch_tb_profiler.profiler.data import RunProfileData
    p = RunProfileData.parse("w", "s", sys.argv[1], tempfile.mkdtemp())
    p.process()
    p.analyze()
# costs: Kernel, Memcpy, Memset, Communication, Runtime, DataLoader, CpuOp, Other, Total (us)
c = p.avg_costs.costs
total = c[8] or 1.0
print(json.dumps({"gpu_idle_pct": 100.0 * (1 - (c[0] + c[1] + c[2]) / total),
                  "kernel_ms": c[0] / 1000, "memcpy_ms": c[1] / 1000,
                  "dataloader_pct": 100.0 * c[5] / total, "steps": len(p.steps_costs),
                  "advice": (p.recommendations or [""])[0][:90]}))
"""


def timed(cmd):
    """(stdout, wall s, peak RSS MiB) of cmd under /usr/bin/time."""
    fd, tfile = tempfile.mkstemp()
    os.close(fd)
    try:
        p = subprocess.run(["/usr/bin/time", "-f", "%e %M", "-o", tfile] + cmd,
                           capture_output=True, text=True, timeout=1800)
        wall, rss = open(tfile).read().split()[-2:]
        if p.returncode != 0:
            raise RuntimeError("%s: exit %d: %s" % (cmd[0], p.returncode, p.stderr[-500:]))
        return p.stdout, float(wall), int(rss) / 1024.0
    finally:
        os.unlink(tfile)


def stepscope_run(args, path):
    out, wall, rss = timed([args.stepscope, "report", "--format", "json", path])
    d = json.loads(out)
    cats = {c["name"]: c for c in d["categories"]}
    kernel_ms = sum(k["kernel_ms_per_step"] for k in d["kernel_classes"])
    copy_ms = sum(c["ms_per_step"] for n, c in cats.items() if n.startswith("copy."))
    top = d["findings"][0] if d["findings"] else None
    return {"gpu_idle_pct": 100.0 - d["gpu_busy_pct"], "kernel_ms": kernel_ms,
            "memcpy_ms": copy_ms, "dataloader_pct": cats.get("data", {}).get("pct", 0.0),
            "steps": d["steps"]["analysed"],
            "advice": ("%s %.1f ms/step" % (top["id"], top["saving_ms_per_step"])) if top
            else "no finding"}, wall, rss


def peer_run(args, snippet, arg):
    out, wall, rss = timed([args.peers_python, "-c", snippet, arg])
    return json.loads(out.strip().splitlines()[-1]), wall, rss


def one(args, tool, path, scratch):
    if tool == "stepscope":
        return stepscope_run(args, path)
    if tool == "hta":
        # HTA reads a folder of rank traces
        d = os.path.join(scratch, "hta")
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        shutil.copy(path, d)
        return peer_run(args, HTA_SNIPPET, d)
    return peer_run(args, TB_SNIPPET, path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--stepscope", required=True)
    ap.add_argument("--peers-python", required=True)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--out", help="write the results as JSON here")
    ap.add_argument("traces", nargs="+")
    args = ap.parse_args()
    tools = ["stepscope", "hta", "tb"]
    results = {}
    scratch = tempfile.mkdtemp(prefix="peers-")
    for path in args.traces:
        name = os.path.basename(path)
        runs = {t: [] for t in tools}
        for rep in range(args.reps):
            order = tools[rep % 3:] + tools[:rep % 3]
            for t in order:
                try:
                    runs[t].append(one(args, t, path, scratch))
                except Exception as exc:  # noqa: BLE001 - a peer failing is a result too
                    runs[t].append(({"error": str(exc)[:200]}, None, None))
        results[name] = {}
        for t in tools:
            good = [r for r in runs[t] if r[1] is not None]
            res = good[-1][0] if good else runs[t][-1][0]
            res["wall_s"] = statistics.median(r[1] for r in good) if good else None
            res["wall_s_range"] = [min(r[1] for r in good), max(r[1] for r in good)] if good \
                else None
            res["peak_rss_mib"] = max(r[2] for r in good) if good else None
            results[name][t] = res
    shutil.rmtree(scratch, ignore_errors=True)
    print("| trace | tool | wall s (median, min–max) | peak RSS MiB | GPU idle % | kernel ms/step "
          "| copy ms/step | DataLoader % | top advice |")
    print("|---|---|---|---|---|---|---|---|---|")
    fmt = lambda v, f="%.2f": "–" if v is None else f % v  # noqa: E731
    for name, per in results.items():
        for t, r in per.items():
            if "error" in r:
                print("| %s | %s | failed: %s |||||||" % (name, t, r["error"][:80]))
                continue
            rng = r["wall_s_range"]
            print("| %s | %s | %s (%s–%s) | %s | %s | %s | %s | %s | %s |" % (
                name, t, fmt(r["wall_s"]), fmt(rng[0]), fmt(rng[1]), fmt(r["peak_rss_mib"], "%.0f"),
                fmt(r["gpu_idle_pct"], "%.1f"), fmt(r["kernel_ms"]), fmt(r["memcpy_ms"]),
                fmt(r["dataloader_pct"], "%.1f"), r["advice"]))
    if args.out:
        with open(args.out, "w") as f:
            json.dump(results, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
