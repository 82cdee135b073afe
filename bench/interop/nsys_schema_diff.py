#!/usr/bin/env python3
"""A real `nsys export --type sqlite` file against stepscope's nsys-sqlite export.

  nsys_schema_diff.py REAL.sqlite OURS.sqlite src/trace/sst_cbid_table.h

FAIL lines: a table both files have whose CREATE TABLE differs; an enum row stepscope writes
whose name or label differs from nsys's for the same id; a CUDA API name nsys wrote that
stepscope's CUPTI name table does not have (its import would not know the call). INFO lines:
what was assumed and can now be read off a real file: META_DATA_EXPORT, the globalTid layout,
the time base, the NVTX event types present, one kernel's three names.
Used by bench/interop/nsys_check.sh on the GPU machine.
"""
import re
import sqlite3
import sys


def norm(sql):
    return re.sub(r"\s+", " ", sql or "").strip()


def main():
    real, ours = sqlite3.connect(sys.argv[1]), sqlite3.connect(sys.argv[2])
    table = open(sys.argv[3]).read()
    known = set(re.findall(r'X\((\w+), \d+\)', table))
    fails = 0

    def fail(msg):
        nonlocal fails
        fails += 1
        print("FAIL " + msg)

    rs = dict(real.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table'"))
    os_ = dict(ours.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table'"))
    for name in sorted(set(rs) & set(os_)):
        if norm(rs[name]) != norm(os_[name]):
            fail("schema of %s differs from the real export" % name)
    print("INFO %d tables in both, %d only in the real export, %d only in stepscope's: %s"
          % (len(set(rs) & set(os_)), len(set(rs) - set(os_)), len(set(os_) - set(rs)),
             sorted(set(os_) - set(rs))[:8]))
    for name in sorted(t for t in os_ if t.startswith("ENUM_") and t in rs):
        theirs = {i: (n, l) for i, n, l in real.execute("SELECT id, name, label FROM %s" % name)}
        for i, n, l in ours.execute("SELECT id, name, label FROM %s" % name):
            if i in theirs and theirs[i] != (n, l):
                fail("%s id %d: stepscope (%s, %s), nsys %s" % (name, i, n, l, theirs[i]))
            elif i not in theirs:
                print("INFO %s id %d (%s) is not in the real export's table" % (name, i, n))
    if "CUPTI_ACTIVITY_KIND_RUNTIME" in rs:
        names = [r[0] for r in real.execute(
            "SELECT DISTINCT s.value FROM CUPTI_ACTIVITY_KIND_RUNTIME AS r JOIN StringIds AS s "
            "ON s.id = r.nameId")]
        unknown = [n for n in names if n not in known]
        if unknown:
            fail("CUDA API names stepscope's table lacks: %s" % unknown[:10])
        print("INFO %d CUDA API names in the real export, e.g. %s" % (len(names), names[:4]))
        for g, in real.execute("SELECT globalTid FROM CUPTI_ACTIVITY_KIND_RUNTIME LIMIT 1"):
            print("INFO globalTid %#x: hw/vm bits %#x, pid %d, tid %d"
                  % (g, g >> 48, (g >> 24) & 0xFFFFFF, g & 0xFFFFFF))
    for row in real.execute("SELECT pid, globalPid, name FROM PROCESSES"):
        print("INFO process %s globalPid %#x %s" % (row[0], row[1] or 0, row[2]))
    print("INFO META_DATA_EXPORT: %s" % real.execute("SELECT name, value FROM META_DATA_EXPORT").fetchall())
    for q in ("SELECT startTime, stopTime FROM ANALYSIS_DETAILS",
              "SELECT min(start) FROM CUPTI_ACTIVITY_KIND_KERNEL",
              "SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME"):
        try:
            print("INFO %s -> %s" % (q, real.execute(q).fetchall()))
        except sqlite3.Error as e:
            print("INFO %s -> %s" % (q, e))
    if "NVTX_EVENTS" in rs:
        print("INFO NVTX eventTypes: %s" % real.execute(
            "SELECT eventType, count(*), count(text), count(textId), count(domainId) FROM "
            "NVTX_EVENTS GROUP BY 1").fetchall())
    try:
        for row in real.execute(
                "SELECT s.value, d.value, m.value FROM CUPTI_ACTIVITY_KIND_KERNEL AS k JOIN "
                "StringIds AS s ON s.id = k.shortName JOIN StringIds AS d ON d.id = "
                "k.demangledName LEFT JOIN StringIds AS m ON m.id = k.mangledName LIMIT 3"):
            print("INFO a kernel's names: short %r, demangled %r, mangled %r"
                  % tuple((v or "")[:120] for v in row))
    except sqlite3.Error as e:
        print("INFO kernel names: %s" % e)
    print("%s schema/enums/API names against the real export (%d problems)" % ("PASS" if not fails else "FAIL", fails))
    sys.exit(1 if fails else 0)


if __name__ == "__main__":
    main()
