"""Compares a stepscope trace with an nsys SQLite export of the same program run.

Usage: compare_nsys.py STEPSCOPE_DUMP_JSONL NSYS_SQLITE
Prints kernel count and total kernel time from both and exits 1 when the counts differ or
the totals differ by more than 3% (issue #3's acceptance check).
"""
import json
import sqlite3
import sys


def ours(path):
    n, total = 0, 0
    for line in open(path):
        r = json.loads(line)
        if r.get("type") == "kernel":
            n += 1
            total += r["end"] - r["t"]
    return n, total


def theirs(path):
    db = sqlite3.connect(path)
    n, total = db.execute(
        "SELECT COUNT(*), SUM(end - start) FROM CUPTI_ACTIVITY_KIND_KERNEL").fetchone()
    return n, total or 0


def main():
    (n1, t1), (n2, t2) = ours(sys.argv[1]), theirs(sys.argv[2])
    diff = abs(t1 - t2) / max(t2, 1)
    print("stepscope: %d kernels, %.3f ms; nsys: %d kernels, %.3f ms; time diff %.2f%%"
          % (n1, t1 / 1e6, n2, t2 / 1e6, 100 * diff))
    ok = n1 == n2 and diff <= 0.03
    print("PASS" if ok else "FAIL", "kernel count and total time vs nsys")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
