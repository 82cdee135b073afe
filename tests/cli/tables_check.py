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
  importer       every row of SSI_IMPORTERS (`import --help`) has its row in docs/interop.md's
                 table of importers, with the same file names, and that table has no other
                 row
Exit 0, or 1 with one line per gap. With --imports-only, only the importers (the recipe's own
test, interop.recipe_importer, runs it on a CLI with one more row).
"""
import glob
import os
import re
import subprocess
import sys

FAILS = []
IMPORTERS_DOC = os.path.join("docs", "interop.md")  # its "## Importers" table: a row each


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


def listed_importers(ss):
    """{name: [suffix, ...]} of `import --help`'s rows: '  NAME  help...', then its lines, the
    last one 'files: SUFFIX ...'."""
    out = run(ss, "import", "--help")[1].decode()
    rows, name = {}, None
    for line in out.split("\n\n", 2)[1].splitlines():
        m = re.match(r"  ([a-z][a-z0-9_-]*) ", line)
        if m:
            name = m.group(1)
            rows[name] = []
        f = re.match(r"\s+files: (.*)", line)
        if f and name:
            rows[name] = f.group(1).split()
    return rows


def documented_importers(root):
    """{name: text of its row} of docs/interop.md's table of importers."""
    doc = open(os.path.join(root, IMPORTERS_DOC), encoding="utf-8").read()
    part = doc.split("## Importers", 1)[1].split("\n## ", 1)[0] if "## Importers" in doc else ""
    return {m.group(1): m.group(0) for m in re.finditer(r"^\| `([a-z][a-z0-9_-]*)` \|.*$", part,
                                                         re.M)}


def check_imports(ss, root):
    rows, docs = listed_importers(ss), documented_importers(root)
    if not rows:
        fail("import --help lists no importer")
    for name, suffixes in rows.items():
        if name not in docs:
            fail("importer %s has no row in docs/interop.md's table of importers" % name)
            continue
        for suffix in suffixes:
            if "`%s`" % suffix not in docs[name]:
                fail("importer %s: file name %s is not in its row of docs/interop.md" %
                     (name, suffix))
    for name in sorted(set(docs) - set(rows)):
        fail("docs/interop.md's table of importers has %s, which import --help does not list"
             % name)
    return len(rows)


def main():
    if sys.argv[1] == "--imports-only":
        n = check_imports(sys.argv[2], sys.argv[3])
        print("tables: %d importers checked, %d gaps" % (n, len(FAILS)))
        return 1 if FAILS else 0
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
    check_imports(ss, root)
    print("tables: %d report formats checked, %d gaps" % (len(formats), len(FAILS)))
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
