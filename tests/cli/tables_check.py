#!/usr/bin/env python3
"""tables_check.py STEPSCOPE ROOT: the CLI's tables are whole where the compiler cannot tell.

What a recipe of docs/design.md asks beside the table's row, which builds clean when forgotten:
  verb           every tools/*/cmd_VERB.c is a row of the verb table (`stepscope --help`), and
                 every row has its file (the man page: install.man_help)
  report format  every row of REPORT_FORMATS (the names `report --help` and `diff --help`
                 list) writes a report of one trace, with -v, of a two-rank job, with an
                 unreadable input in it (named in the output), and a diff; every writer of
                 tools/report/ (report_writer_NAME) is a row; the man pages of report and diff
                 take their formats from the rows (@FORMATS@, tools/install/man_page.cmake),
                 and docs/report-json.md describes no format that is not one (a row's words
                 in --help are its description: docs/design.md, "Add a report format")
  export format  every row of SSI_EXPORTERS (`export --help`) is described in docs/export.md
                 or docs/interop.md and named in export's man page (interop.exporters runs
                 every row)
Exit 0, or 1 with one line per gap.
"""
import glob
import os
import re
import subprocess
import sys

FAILS = []


def fail(msg):
    FAILS.append(msg)
    print("FAIL " + msg)


def run(ss, *args):
    p = subprocess.run([ss, *args], capture_output=True)
    return p.returncode, p.stdout


def listed_formats(ss, *verb):
    """The names of the usage line's [--format a|b|c]."""
    out = run(ss, *verb, "--help")[1].decode()
    m = re.search(r"\[--format ([a-z|-]+)\]", out)
    return m.group(1).split("|") if m else []


def check_verbs(ss, root):
    top = run(ss, "--help")[1].decode()
    block = top.split("verbs:\n", 1)[1].split("\n\n", 1)[0]
    listed = {ln.split()[0] for ln in block.splitlines() if ln.strip()}
    files = {os.path.basename(p)[4:-2] for p in glob.glob(os.path.join(root, "tools", "*", "cmd_*.c"))}
    for v in sorted(files - listed):
        fail("tools/*/cmd_%s.c is not a row of the verb table (tools/stepscope.c)" % v)
    for v in sorted(listed - files):
        fail("verb %s has no tools/*/cmd_%s.c" % (v, v))


def man_page(root, verb):
    return open(os.path.join(root, "docs", "man", "stepscope-%s.1.scd" % verb),
                encoding="utf-8").read()


def named(text, word):
    return re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(word), text) is not None


def check_report_format(ss, root, fmt):
    fx = os.path.join(root, "tests", "fixtures")
    one = os.path.join(fx, "synthetic-small.sstrace")
    job = os.path.join(fx, "workloads", "traces", "cnn_dp-none")
    missing = os.path.join(fx, "no-such-trace.sstrace")
    cases = [("one trace", ["report", "-f", fmt, one], 0),
             ("-v", ["report", "-v", "-f", fmt, one], 0),
             ("a two-rank job", ["report", "-f", fmt, job], 0),
             ("an unreadable input", ["report", "-f", fmt, one, missing], 1),
             ("diff", ["diff", "-f", fmt, one, one], 0)]
    for what, args, want in cases:
        rc, out = run(ss, *args)
        if rc != want or not out:
            fail("report format %s, %s: exit %d (want %d), %d bytes" % (fmt, what, rc, want,
                                                                      len(out)))
        elif want == 1 and b"no-such-trace" not in out:
            fail("report format %s: the unreadable input is not named in the report" % fmt)


def check_report_docs(root, formats, doc):
    """Writers without a row, man pages that list formats by hand, stale format docs."""
    for path in sorted(glob.glob(os.path.join(root, "tools", "report", "report_*.c"))):
        for name in re.findall(r"^const struct report_writer report_writer_(\w+)\b",
                               open(path, encoding="utf-8").read(), re.M):
            if name not in formats:
                fail("%s: report_writer_%s is no row of REPORT_FORMATS (report.h)"
                     % (os.path.relpath(path, root), name))
    for verb in ("report", "diff"):
        if "@FORMATS@" not in man_page(root, verb):
            fail("docs/man/stepscope-%s.1.scd lists its formats by hand, not @FORMATS@" % verb)
    for name in re.findall(r"`--format ([a-z-]+)`", doc):
        if name not in formats:
            fail("docs/report-json.md describes --format %s, which is no format" % name)


def check_exports(ss, root):
    docs = "".join(open(os.path.join(root, "docs", d), encoding="utf-8").read()
                   for d in ("export.md", "interop.md"))
    names = listed_formats(ss, "export")
    if not names:
        fail("export --help lists no format")
    for name in names:
        if "`%s`" % name not in docs:
            fail("export format %s is not described in docs/export.md or docs/interop.md" % name)
        if not named(man_page(root, "export"), name):
            fail("export format %s is not in docs/man/stepscope-export.1.scd" % name)


def main():
    ss, root = sys.argv[1], sys.argv[2]
    check_verbs(ss, root)
    formats = listed_formats(ss, "report")
    if not formats or formats != listed_formats(ss, "diff"):
        fail("report and diff list different formats: %s" % formats)
    doc = open(os.path.join(root, "docs", "report-json.md"), encoding="utf-8").read()
    for fmt in formats:
        check_report_format(ss, root, fmt)
    check_report_docs(root, formats, doc)
    check_exports(ss, root)
    print("tables: %d report formats checked, %d gaps" % (len(formats), len(FAILS)))
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
