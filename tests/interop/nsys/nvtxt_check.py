#!/usr/bin/env python3
"""The form of `stepscope export --format nvtxt`, checked line by line against NVTXT's grammar.

  nvtxt_check.py STEPSCOPE WORKDIR TRACE...

The grammar, as NVIDIA documents it (the "NVTXT File Extension" page of the NVTX docs) and as
the ImportNvtxt inputs published by NVIDIA's own tools write it: one instruction or comment per
line; '#' starts a comment line; 'Name = value' assigns a variable (a value is an integer --
decimal, or 0x hexadecimal -- or a string); '@Instr, P1, P2...' declares which parameters
'Instr' takes explicitly; 'Instr, v1, v2...' calls it with that many values.

Checked here, beyond the form: every instruction is declared before use and called with the
declared number of values of the right type (times, ids, colours integers; messages and
names quoted strings without a quote inside, valid UTF-8); TimeBase is set before the first
timed instruction; thread ids fit NVTXT's 24 bits; on every thread, times never decrease and
pops never outnumber pushes, and every push is popped by the end; RangeStartEnd has
Start <= End. Then against the trace: one step range per step of `stepscope report`, each
step tiled exactly by its attribution ranges (their lengths are the step's category times),
and as many NVTX pushes and marks as the trace holds.

What this does not check: that ImportNvtxt accepts the file (it is not on the CI or GPU
machines); see docs/interop.md.
"""
import json
import os
import re
import subprocess
import sys

INT = re.compile(r"^(-?[0-9]+|0[xX][0-9A-Fa-f]+)$")
STR = re.compile(r'^"[^"]*"$')
NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
ASSIGN = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.+)$")
PARAMS = {"Time": "int", "Start": "int", "End": "int", "ProcessId": "int", "ThreadId": "int",
          "CategoryId": "int", "Color": "int", "Message": "str", "Name": "str"}
BUILTIN = {"SetFileDisplayName": ["Name"]}
TIMED = {"RangePush", "RangePop", "Marker", "RangeStartEnd"}
TIME_BASES = {"Manual", "Relative", "ClockMonotonicRaw"}
STEPS_TID, ATTR_TID = 0xFFFFF0, 0xFFFFF1


def split_args(s):
    """Comma-separated values; commas inside double quotes do not split."""
    out, cur, quoted = [], "", False
    for ch in s:
        if ch == '"':
            quoted = not quoted
        if ch == "," and not quoted:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    out.append(cur.strip())
    return out


def value(v):
    return int(v, 16) if v.lower().startswith("0x") else int(v)


class Checker:
    def __init__(self, path):
        self.path, self.errors = path, []
        self.macros, self.vars = {}, {}
        self.threads = {}  # (pid, tid) -> [last time, depth]
        self.events = []   # (instr, args dict) of timed instructions, in file order

    def err(self, no, msg):
        self.errors.append("%s:%d: %s" % (self.path, no, msg))

    def macro(self, no, line):
        parts = split_args(line[1:])
        name, params = parts[0], parts[1:]
        if not NAME.match(name) or not params:
            return self.err(no, "bad declaration")
        for p in params:
            if p not in PARAMS:
                self.err(no, "unknown parameter %r" % p)
        if len(set(params)) != len(params):
            self.err(no, "a parameter twice")
        self.macros[name] = params

    def assign(self, no, name, val):
        if not (INT.match(val) or STR.match(val) or NAME.match(val)):
            return self.err(no, "bad value %r" % val)
        if name == "TimeBase" and val not in TIME_BASES:
            self.err(no, "TimeBase %r" % val)
        self.vars[name] = val

    def call(self, no, line):
        parts = split_args(line)
        name, args = parts[0], parts[1:]
        params = self.macros.get(name, BUILTIN.get(name))
        if params is None:
            return self.err(no, "%s used before its @declaration" % name)
        if len(args) != len(params):
            return self.err(no, "%s takes %d values, got %d" % (name, len(params), len(args)))
        got = {}
        for p, a in zip(params, args):
            if PARAMS[p] == "int" and not INT.match(a):
                return self.err(no, "%s: %s=%r is not an integer" % (name, p, a))
            if PARAMS[p] == "str" and not STR.match(a):
                return self.err(no, "%s: %s=%r is not a quoted string" % (name, p, a))
            got[p] = value(a) if PARAMS[p] == "int" else a[1:-1]
        if name in TIMED:
            if "TimeBase" not in self.vars:
                self.err(no, "a timed instruction before TimeBase is set")
            self.timed(no, name, got)

    def timed(self, no, name, a):
        if a["ThreadId"] >= 1 << 24 or a["ThreadId"] < 0:
            self.err(no, "ThreadId %d does not fit 24 bits" % a["ThreadId"])
        self.events.append((name, a))
        if name == "RangeStartEnd":
            if a["Start"] > a["End"]:
                self.err(no, "RangeStartEnd ends before it starts")
            return
        th = self.threads.setdefault((a["ProcessId"], a["ThreadId"]), [0, 0])
        if a["Time"] < th[0]:
            self.err(no, "time goes back on thread %d" % a["ThreadId"])
        th[0] = a["Time"]
        if name == "RangePush":
            th[1] += 1
        elif name == "RangePop":
            if th[1] == 0:
                self.err(no, "pop without a push on thread %d" % a["ThreadId"])
            th[1] = max(0, th[1] - 1)

    def run(self):
        with open(self.path, "rb") as f:
            raw = f.read()
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            return self.err(0, "not UTF-8: %s" % e)
        lines = text.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        first = next((l for l in lines if not l.startswith("#")), "")
        if not first.startswith("SetFileDisplayName"):
            self.err(0, "the first instruction is not SetFileDisplayName")
        for no, line in enumerate(lines, 1):
            if not line.strip():
                self.err(no, "empty line")
            elif line.startswith("#"):
                continue
            elif line.startswith("@"):
                self.macro(no, line)
            elif ASSIGN.match(line) and "," not in line.split("=")[0]:
                m = ASSIGN.match(line)
                self.assign(no, m.group(1), m.group(2).strip())
            else:
                self.call(no, line)
        for (pid, tid), (_, depth) in self.threads.items():
            if depth:
                self.err(len(lines), "%d pushes never popped on thread %d" % (depth, tid))


def run(args):
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout


def against_trace(ss, trace, c):
    """Steps and attribution against the report, NVTX counts against the trace."""
    errs = []
    rep = json.loads(run([ss, "report", "--accept-damage", "-v", "--format", "json", trace]))
    steps = rep.get("step_list") or []
    if rep["steps"]["source"] == "none":
        steps = []
    push = [a for n, a in c.events if n == "RangePush" and a["ThreadId"] == STEPS_TID]
    if len(push) != len(steps):
        errs.append("%d step ranges for %d steps" % (len(push), len(steps)))
    attr = [(n, a) for n, a in c.events if a["ThreadId"] == ATTR_TID]
    i = 0
    for st in steps:
        t = st["begin_ns"]
        cats = [v for v in st["cat_ns"].values() if v]
        for ns in cats:
            if i + 1 >= len(attr) or attr[i][1]["Time"] != t or attr[i + 1][1]["Time"] != t + ns:
                errs.append("step %s: attribution ranges do not tile the step" % st["number"])
                break
            t, i = t + ns, i + 2
        else:
            if t != st["end_ns"]:
                errs.append("step %s: attribution sums to %d ns, step is %d" %
                            (st["number"], t - st["begin_ns"], st["end_ns"] - st["begin_ns"]))
    dump = run([ss, "dump", "--accept-damage", "--json", "-t", "nvtx_push,nvtx_mark", trace]).splitlines()
    want = {"nvtx_push": 0, "nvtx_mark": 0}
    for line in dump:
        want[json.loads(line)["type"]] += 1
    pseudo = (STEPS_TID, ATTR_TID)
    got_push = sum(1 for n, a in c.events if n == "RangePush" and a["ThreadId"] not in pseudo)
    got_mark = sum(1 for n, a in c.events if n == "Marker")
    if got_push != want["nvtx_push"] or got_mark != want["nvtx_mark"]:
        errs.append("NVTX: %d pushes, %d marks written; the trace has %d, %d" %
                    (got_push, got_mark, want["nvtx_push"], want["nvtx_mark"]))
    return errs, len(steps)


def main():
    ss, work, traces = sys.argv[1], sys.argv[2], sys.argv[3:]
    os.makedirs(work, exist_ok=True)
    fails = 0
    for trace in traces:
        name = os.path.basename(trace).rsplit(".", 1)[0]
        out = os.path.join(work, name + ".nvtxt")
        if os.path.exists(out):
            os.unlink(out)
        subprocess.run([ss, "export", "--accept-damage", trace, "-o", out, "--format", "nvtxt"],
                       check=True)
        c = Checker(out)
        c.run()
        errs, nsteps = against_trace(ss, trace, c)
        errs = c.errors + errs
        print("%s %s: %d lines checked, %d steps, %d errors" %
              ("PASS" if not errs else "FAIL", name, sum(1 for _ in open(out)), nsteps, len(errs)))
        for e in errs[:10]:
            print("   ", e)
        fails += bool(errs)
    print("%d failure(s)" % fails)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
