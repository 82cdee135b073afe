"""What the accuracy scripts share: the report they judge and the verdict's exit code.

The gate scripts (accuracy.py, native.py, host_accuracy.py) take the same command line and
return the same codes, which tests/accuracy/CMakeLists.txt's accuracy_gates() relies on:
0 pass, 1 miss, 77 n/a (ctest skips it visibly); with --known-miss, 0 while the miss lasts
and 1 once it passes.
"""
import json
import subprocess
import sys

N_A = 77


def report(stepscope, trace):
    """The JSON report of one trace (docs/report-json.md), parsed; a report that fails ends
    the script with stepscope's own message. Damage is accepted (two H200 fixtures dropped
    records while recording, issue #41): the gates judge the numbers, tests/damage the damage."""
    p = subprocess.run([stepscope, "report", "--accept-damage", "--format", "json", trace],
                       capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        sys.exit("%s: %s" % (trace, p.stderr.strip()))
    return json.loads(p.stdout)


def verdict(spec, status, detail, expect_miss, pass_list):
    """Prints a gate's result and returns its exit code; pass_list names the CMake list a known
    miss moves to once it passes."""
    print("%s %s: %s" % (status, spec, detail))
    if expect_miss and status == "pass":
        print("this known miss now passes: move it to %s in tests/accuracy/CMakeLists.txt and "
              "out of tests/accuracy/README.md" % pass_list)
    if expect_miss:
        return {"pass": 1, "miss": 0, "n/a": N_A}[status]
    return {"pass": 0, "miss": 1, "n/a": N_A}[status]


def main(argv, one_gate, table, usage):
    """STEPSCOPE INPUT --gate SPEC | --known-miss SPEC | --table."""
    if len(argv) == 4 and argv[2] in ("--gate", "--known-miss"):
        return one_gate(argv[0], argv[1], argv[3], argv[2] == "--known-miss")
    if len(argv) == 3 and argv[2] == "--table":
        return table(argv[0], argv[1])
    sys.stderr.write(usage)
    return 2
