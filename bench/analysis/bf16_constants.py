#!/usr/bin/env python3
"""bf16_constants.py STEPSCOPE FIXTURES — the numbers behind no_mixed_precision's small-GEMM
model (src/analysis/ssa_findings.c: SSA_BF16_GEMM_MIN_US, SSA_AUTOCAST_CASTS_PER_GEMM/_CONV),
from the committed recordings (`stepscope dump --json -t kernel`):

  1. per recording with bf16 tensor-core GEMM kernels, the median duration of its shortest
     one (by median): no bf16 GEMM kernel runs under ~3 us;
  2. copy kernels per GEMM kernel of the pairs that differ only in autocast: the planted
     mlp_big-fp32 / mlp_big-none (linear layers), the zoo's tune ResNet-18s (convolutions).
"""
import collections
import glob
import json
import os
import re
import statistics
import subprocess
import sys

TC = re.compile(r"nvjet|bf16|_h_|f16|hmma|wgmma|tensorop", re.I)
GEMM = re.compile(r"gemm|nvjet|xmma", re.I)


def kernels(ss, trace):
    out = subprocess.run([ss, "dump", "--json", "-t", "kernel", "--accept-damage", trace],
                         capture_output=True, text=True).stdout
    by = collections.defaultdict(list)
    for line in out.splitlines():
        k = json.loads(line)
        by[k["name"]].append(k["dur_ns"] / 1e3)
    return by


def shortest_tc_gemm(by):
    meds = [statistics.median(v) for n, v in by.items()
            if GEMM.search(n) and TC.search(n) and "splitK" not in n]
    return min(meds) if meds else None


def copies_per_gemm(by):
    copies = sum(len(v) for n, v in by.items() if "copy_kernel" in n)
    gemms = sum(len(v) for n, v in by.items()
                if GEMM.search(n) and "splitK" not in n and "elementwise" not in n)
    return copies / gemms if gemms else 0


def main():
    ss, fx = sys.argv[1], sys.argv[2]
    mins = {}
    for t in sorted(glob.glob(os.path.join(fx, "**", "*.sstrace"), recursive=True)):
        m = shortest_tc_gemm(kernels(ss, t))
        if m is not None:
            mins[os.path.relpath(t, fx)] = m
    v = sorted(mins.values())
    q = statistics.quantiles(v, n=4)
    print("shortest bf16 GEMM kernel (median), %d recordings: min %.1f, quartiles %.1f %.1f %.1f, "
          "max %.1f us" % (len(v), v[0], q[0], q[1], q[2], v[-1]))
    for name in ("workloads/traces/mlp_big-fp32.sstrace", "workloads/traces/mlp_big-none.sstrace",
                 "zoo/traces/tv_resnet18_item_fp32-before.sstrace",
                 "zoo/traces/tv_resnet18_pageable-before.sstrace"):
        print("copy kernels per GEMM kernel, %s: %.2f" % (
            name, copies_per_gemm(kernels(ss, os.path.join(fx, name)))))


if __name__ == "__main__":
    main()
