#!/usr/bin/env python3
"""Compares the CSVs of `nsys stats` on a stepscope nsys-sqlite export with the trace itself.

  nsys_compare.py BASE DB DUMP_JSONL

BASE: the --output prefix given to nsys stats (BASE_<report>.csv); DB: the exported database
(only to map each kernel's mangled name, which the trace keeps, to the demangled name nsys's
kernel summary groups by); DUMP_JSONL: `stepscope dump --json -t kernel,memcpy,memset,api,
nvtx_push,nvtx_start TRACE`. Used by bench/interop/nsys_check.sh on the GPU machine.
Prints one PASS/FAIL line per report; exit status 1 when any fails.
"""
import collections
import csv
import glob
import json
import os
import re
import sqlite3
import sys

COPY_LABEL = {"h2d": "Host-to-Device", "d2h": "Device-to-Host", "d2d": "Device-to-Device",
              "h2h": "Host-to-Host", "p2p": "Peer-to-Peer", "h2a": "Host-to-Array",
              "a2h": "Array-to-Host", "other": "Array-to-Array", "unknown": "Unknown"}
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def cbid_names():
    """(domain, cbid) -> name, from the generated table stepscope writes with."""
    text = open(os.path.join(ROOT, "src/trace/sst_cbid_table.h")).read()
    names = {}
    for dom, macro in (("runtime", "SST_CBID_RUNTIME"), ("driver", "SST_CBID_DRIVER")):
        body = text.split("#define %s(X)" % macro)[1].split("#define")[0]
        for name, cbid in re.findall(r'X\((\w+), (\d+)\)', body):
            names[(dom, int(cbid))] = name
    return names


def read_csv(base, report):
    files = sorted(glob.glob("%s_%s*.csv" % (base, report)))
    if not files:
        return None
    with open(files[0], newline="") as f:
        return list(csv.DictReader(f))


def col(row, prefix):
    for k, v in row.items():
        if k and k.startswith(prefix):
            return v
    raise KeyError(prefix)


def num(s):
    return float(s.replace(",", "")) if s not in ("", None) else 0.0


def strip_version(name):
    return re.sub(r"_v\d+$", "", name)


def load(dump):
    t = collections.defaultdict(lambda: [0, 0])
    copies, api = collections.defaultdict(lambda: [0, 0, 0]), collections.Counter()
    nvtx = collections.Counter()
    names = cbid_names()
    for line in open(dump):
        r = json.loads(line)
        d = max(0, r.get("end", 0) - r.get("t", 0))
        if r["type"] == "kernel":
            t[r.get("name") or "<unknown>"][0] += 1
            t[r.get("name") or "<unknown>"][1] += d
        elif r["type"] in ("memcpy", "memset"):
            key = "[CUDA memset]" if r["type"] == "memset" else \
                "[CUDA memcpy %s]" % COPY_LABEL.get(r.get("kind"), "Unknown")
            copies[key][0] += 1
            copies[key][1] += d
            copies[key][2] += r.get("bytes", 0)
        elif r["type"] == "api":
            dom = r.get("domain")
            default = "%s_cbid%d" % ("cuUnknown" if dom == "driver" else "cudaUnknown", r["cbid"])
            api[names.get((dom, r["cbid"]), default)] += 1
        else:
            nvtx[r.get("message") or ""] += 1
    return t, copies, api, nvtx


def check(ok, what, detail):
    print("%s %s%s" % ("PASS" if ok else "FAIL", what, "" if ok else ": " + detail))
    return ok


def kernels(base, db, k):
    rows = read_csv(base, "cuda_gpu_kern_sum")
    if rows is None:
        return check(False, "cuda_gpu_kern_sum", "no CSV")
    dem = dict(sqlite3.connect(db).execute(
        "SELECT m.value, d.value FROM CUPTI_ACTIVITY_KIND_KERNEL AS k JOIN StringIds AS m ON "
        "m.id = k.mangledName JOIN StringIds AS d ON d.id = k.demangledName GROUP BY 1"))
    want = collections.defaultdict(lambda: [0, 0])
    for mangled, (n, ns) in k.items():
        w = want[dem.get(mangled, mangled)]
        w[0] += n
        w[1] += ns
    bad = []
    got = {col(r, "Name"): (int(num(col(r, "Instances"))), num(col(r, "Total Time"))) for r in rows}
    for name, (n, ns) in want.items():
        g = got.get(name)
        if not g or g[0] != n or abs(g[1] - ns) > 0.001 * max(ns, 1):
            bad.append("%s: nsys %s, trace (%d, %d)" % (name[:60], g, n, ns))
    if set(got) - set(want):
        bad.append("names only in nsys: %s" % list(set(got) - set(want))[:3])
    return check(not bad, "cuda_gpu_kern_sum: %d names, %d kernels" %
                 (len(want), sum(v[0] for v in want.values())), "; ".join(bad[:5]))


def memops(base, copies):
    ok = True
    for report, field in (("cuda_gpu_mem_time_sum", "Total Time"), ("cuda_gpu_mem_size_sum", "Total")):
        rows = read_csv(base, report)
        if rows is None and not copies:
            print("PASS %s: no copies, no rows" % report)
            continue
        if rows is None:
            ok &= check(False, report, "no CSV")
            continue
        got = {col(r, "Operation"): (int(num(col(r, "Count"))), num(col(r, field))) for r in rows}
        bad = []
        for op, (n, ns, nbytes) in copies.items():
            g = got.get(op)
            if not g or g[0] != n:
                bad.append("%s: count nsys %s, trace %d" % (op, g and g[0], n))
            elif field == "Total Time" and abs(g[1] - ns) > 0.001 * max(ns, 1):
                bad.append("%s: time nsys %.0f, trace %d" % (op, g[1], ns))
            elif field == "Total" and abs(g[1] * 1e6 - nbytes) > 500 + 1e-6 * nbytes:
                bad.append("%s: %.3f MB in nsys, %d bytes in the trace" % (op, g[1], nbytes))
        if set(got) - set(copies):
            bad.append("only in nsys: %s" % list(set(got) - set(copies)))
        ok &= check(not bad, "%s: %d operations" % (report, sum(v[0] for v in copies.values())),
                    "; ".join(bad[:5]))
    return ok


def api_calls(base, api):
    rows = read_csv(base, "cuda_api_sum")
    if rows is None:
        return check(not api, "cuda_api_sum", "no CSV")
    got = collections.Counter()
    for r in rows:
        got[col(r, "Name")] += int(num(col(r, "Num Calls")))
    want = collections.Counter()
    for name, n in api.items():  # nsys's reports may drop the _v<version> suffix
        want[name if name in got else strip_version(name)] += n
    bad = ["%s: nsys %d, trace %d" % (n, got.get(n, 0), c) for n, c in want.items() if got.get(n) != c]
    bad += ["%s only in nsys" % n for n in set(got) - set(want)]
    return check(not bad, "cuda_api_sum: %d calls, %d names" % (sum(api.values()), len(want)),
                 "; ".join(bad[:5]))


def nvtx_ranges(base, nvtx):
    rows = read_csv(base, "nvtx_sum")
    if rows is None:
        return check(not nvtx, "nvtx_sum", "no CSV")
    total = sum(int(num(col(r, "Instances"))) for r in rows)
    return check(total == sum(nvtx.values()), "nvtx_sum: %d ranges" % total,
                 "trace has %d (%s)" % (sum(nvtx.values()), dict(nvtx.most_common(4))))


def main():
    base, db, dump = sys.argv[1:4]
    k, copies, api, nvtx = load(dump)
    name = os.path.basename(base)
    print("== %s" % name)
    ok = kernels(base, db, k)
    ok &= memops(base, copies)
    ok &= api_calls(base, api)
    ok &= nvtx_ranges(base, nvtx)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
