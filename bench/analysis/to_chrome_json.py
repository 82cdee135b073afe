#!/usr/bin/env python3
"""to_chrome_json.py — `stepscope dump --json TRACE` lines (stdin) -> Kineto-style Chrome Trace
JSON (stdout): {"traceEvents":[{"ph":"X","cat":"kernel","name":...,"pid":..,"tid":..,"ts":..,
"dur":..,"args":{...}}, ...]}, the form torch.profiler writes. Every event record becomes one
event: kernels, copies, memsets, runtime/driver API calls, syncs, NVTX push/pop pairs
(user_annotation) and step begin/end pairs (ProfilerStep#N). Strings, environment, process and
host-sample records are not events and are left out. Prints the event count on stderr.
Used by bench_analysis.sh to time json.load of the same events that `stepscope report` reads.
"""
import json
import sys

API_NAMES = {211: "cudaLaunchKernel", 41: "cudaMemcpyAsync", 131: "cudaStreamSynchronize",
             20: "cudaMalloc"}
COPY = {"h2d": "HtoD", "d2h": "DtoH", "d2d": "DtoD", "p2p": "PtoP"}


def us(ns):
    return ns / 1000.0


def main():
    out = sys.stdout
    out.write('{"schemaVersion":1,"deviceProperties":[],"traceEvents":[\n')
    first = True
    n = 0
    stacks = {}
    steps = {}
    pid = 0

    def emit(ev):
        nonlocal first, n
        out.write(("" if first else ",\n") + json.dumps(ev, separators=(",", ":")))
        first = False
        n += 1

    for line in sys.stdin:
        r = json.loads(line)
        t = r.get("type")
        if t == "process":
            pid = r["pid"]
        elif t == "kernel":
            emit({"ph": "X", "cat": "kernel", "name": r["name"], "pid": r["dev"],
                  "tid": r["stream"], "ts": us(r["t"]), "dur": us(r["dur_ns"]),
                  "args": {"device": r["dev"], "stream": r["stream"], "correlation": r["corr"],
                           "registers per thread": r["regs"],
                           "shared memory": r["smem_static"] + r["smem_dynamic"],
                           "grid": r["grid"], "block": r["block"]}})
        elif t in ("memcpy", "memset"):
            name = ("Memcpy %s (%s -> %s)" % (COPY.get(r["kind"], "?"), r["src"].capitalize(),
                                              r["dst"].capitalize()) if t == "memcpy"
                    else "Memset (Device)")
            emit({"ph": "X", "cat": "gpu_" + t, "name": name, "pid": r["dev"], "tid": r["stream"],
                  "ts": us(r["t"]), "dur": us(r["dur_ns"]),
                  "args": {"device": r["dev"], "stream": r["stream"], "correlation": r["corr"],
                           "bytes": r.get("bytes", 0)}})
        elif t == "api":
            emit({"ph": "X", "cat": "cuda_runtime",
                  "name": API_NAMES.get(r["cbid"], "cuda_api_%d" % r["cbid"]), "pid": pid,
                  "tid": r["tid"], "ts": us(r["t"]), "dur": us(r["dur_ns"]),
                  "args": {"cbid": r["cbid"], "correlation": r["corr"]}})
        elif t == "sync":
            emit({"ph": "X", "cat": "cuda_sync", "name": "Stream Sync", "pid": r["dev"],
                  "tid": r["stream"], "ts": us(r["t"]), "dur": us(r["dur_ns"]),
                  "args": {"correlation": r["corr"]}})
        elif t == "nvtx_push":
            stacks.setdefault(r["tid"], []).append((r["t"], r["message"]))
        elif t == "nvtx_pop" and stacks.get(r["tid"]):
            t0, msg = stacks[r["tid"]].pop()
            emit({"ph": "X", "cat": "user_annotation", "name": msg or "", "pid": pid,
                  "tid": r["tid"], "ts": us(t0), "dur": us(r["t"] - t0), "args": {}})
        elif t == "step" and r["phase"] == "begin":
            steps[r["tid"]] = (r["t"], r["step"])
        elif t == "step" and r["phase"] == "end" and r["tid"] in steps:
            t0, k = steps.pop(r["tid"])
            emit({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % k, "pid": pid,
                  "tid": r["tid"], "ts": us(t0), "dur": us(r["t"] - t0), "args": {}})
    out.write("\n]}\n")
    print(n, file=sys.stderr)


if __name__ == "__main__":
    main()
