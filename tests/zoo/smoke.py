#!/usr/bin/env python3
"""Runs every Python program of bench/zoo/zoo.py on the CPU (--device cpu --tiny, 2 timed
steps), as the table runs it and with all its planted causes fixed, and checks that its
script accepts every flag its fix table can pass (--help). Used by test_zoo_cpu.sh with the
python it found.

    smoke.py WORKDIR

A run passes with the result line, or with exit 77 for an accepted reason: a package of
`needs` missing, --compile on a torch without torch.compile, --cuda-graph (no CUDA here).
"""
import importlib.util
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bench", "zoo"))
import zoo as Z  # noqa: E402

SMALL = ["--device", "cpu", "--tiny", "--steps", "2", "--warmup", "1"]
failed, passed = [], []


def check(ok, what):
    print("%s: %s" % ("ok" if ok else "FAIL", what), flush=True)
    (passed if ok else failed).append(what)


def may_skip(program, argv):
    """Why a skip of this run is accepted, or None."""
    import torch
    missing = [m for m in program.needs if importlib.util.find_spec(m) is None]
    if missing:
        return "missing " + ", ".join(missing)
    if "--compile" in argv and not hasattr(torch, "compile"):
        return "no torch.compile"
    if "--cuda-graph" in argv:
        return "CUDA graphs"
    return None


def run(program, argv, work, tag):
    script = os.path.join(ROOT, "bench", "zoo", "programs", program.script)
    log = os.path.join(work, "%s-%s.log" % (program.name, tag))
    with open(log, "w") as out:
        rc = subprocess.call([sys.executable, script] + argv + SMALL, stdout=out,
                             stderr=subprocess.STDOUT, timeout=600)
    text = open(log).read()
    why = may_skip(program, argv)
    if rc == 77:
        check(why is not None, "%s %s: skipped (%s)" % (program.name, tag,
                                                        why or text.strip()[-200:]))
        return
    lines = [json.loads(x) for x in text.splitlines() if x.startswith("{") and "ms_per_step" in x]
    ok = rc == 0 and lines and lines[-1]["steps"] == 2 and lines[-1]["device"] == "cpu"
    check(ok, "%s %s: %s" % (program.name, tag, "%.1f ms/step" % lines[-1]["ms_per_step"]
                             if ok else "rc %s: %s" % (rc, text.strip()[-600:])))


def accepts(program, work):
    """The script's --help names every flag of its fix table and plants."""
    script = os.path.join(ROOT, "bench", "zoo", "programs", program.script)
    p = subprocess.run([sys.executable, script, "--help"], capture_output=True, text=True)
    if p.returncode == 77:
        return
    flags = {f for fix in program.fixes.values() if isinstance(fix, list) for a in fix
             for f in a["flags"] if f.startswith("--")}
    flags |= {f for pl in program.plants for f in pl["flags"] if f.startswith("--")}
    missing = sorted(f for f in flags if f not in p.stdout)
    check(not missing, "%s: the script takes every fix flag %s" % (program.name, missing or ""))


def main(argv):
    work = argv[0]
    helped = set()
    for p in Z.PROGRAMS:
        if p.script == "train_cxx":
            print("left out %s: CUDA only (tests/workloads/test_train_cxx.sh builds it)" % p.name)
            continue
        run(p, p.argv, work, "as-planted")
        fixed = Z.merge_flags(p.argv, *[pl["flags"] for pl in p.plants])
        if p.plants:
            run(p, fixed, work, "plants-fixed")
        if p.script not in helped:
            helped.add(p.script)
            accepts(p, work)
    print("%d passed, %d failed" % (len(passed), len(failed)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
