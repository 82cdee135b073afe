#!/usr/bin/env python3
"""recipe_importer.py STEPSCOPE_RECIPE STEPSCOPE ROOT WORK: docs/design.md's recipe "Add an
importer", followed (recipe_importer.c is its step 1's file, CMake's SSI_TEST_IMPORTERS its step
2's row), then every claim of the recipe checked on stepscope-recipe-importer, the CLI with that
row:

  the recipe   its heading says at most 3 files and its steps name them; they are what a new
               row needs: a file the build's glob of src/interop/ takes, the header whose
               SSI_IMPORTERS holds the rows, the docs file cli.tables reads the importers from
  the row      import --help lists it with its file names; import names its output after the
               input less the row's suffix; the sniff finds the format in a file, on stdin,
               inside gzip; report reads the capture directly; the "not a ..." message names it
  step 3       cli.tables' check of importers fails on the docs as they are (no row for the
               test's format) and passes once its row is in docs/interop.md's table
and the product's table (STEPSCOPE) has no such row. Exit 0, or 1 with one line per failure.
"""
import fnmatch
import glob
import gzip
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
import tables_check  # noqa: E402

FAILS = []
CSV = "kernel,start_ns,end_ns\nmy_kernel,1000,2000\nmy_kernel,3000,4500\nother_kernel,5000,9000\n"


def fail(msg):
    FAILS.append(msg)
    print("FAIL " + msg)


def run(*args, stdin=None):
    p = subprocess.run(args, capture_output=True, input=stdin)
    return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")


def recipe_steps(root):
    """(files the heading says, [the path of each numbered step]) of "Add an importer"."""
    design = open(os.path.join(root, "docs", "design.md"), encoding="utf-8").read()
    m = re.search(r"^### Add an importer \((\d+) files?\)\n(.*?)(?=^### |\Z)", design, re.M | re.S)
    if not m:
        return 0, []
    return int(m.group(1)), re.findall(r"^\d+\. `([^`]+)`", m.group(2), re.M)


def what_a_row_needs(root):
    """The places the build and the checks look for a new importer: the glob of src/interop's
    sources, the header that defines SSI_IMPORTERS, the docs file cli.tables reads."""
    cmake = open(os.path.join(root, "src", "interop", "CMakeLists.txt"), encoding="utf-8").read()
    pattern = re.search(r"file\(GLOB \w+ (?:CONFIGURE_DEPENDS )?\$\{CMAKE_CURRENT_SOURCE_DIR\}/(\S+)\)",
                        cmake)
    header = [os.path.relpath(h, root) for h in glob.glob(os.path.join(root, "src", "interop", "*.h"))
              if "#define SSI_IMPORTERS(" in open(h, encoding="utf-8").read()]
    return ("src/interop/" + pattern.group(1) if pattern else None, header,
            tables_check.IMPORTERS_DOC)


def check_recipe(root):
    files, steps = recipe_steps(root)
    if not 1 <= files <= 3 or len(steps) != files:
        fail("docs/design.md, Add an importer: the heading says %d files, the steps name %d "
             "(at most 3)" % (files, len(steps)))
    source_glob, header, doc = what_a_row_needs(root)
    want = [lambda p: source_glob and fnmatch.fnmatch(p, source_glob), lambda p: [p] == header,
            lambda p: p == doc]
    names = ["a source the build's glob takes (%s)" % source_glob,
             "the header of SSI_IMPORTERS (%s)" % header, "the docs of cli.tables (%s)" % doc]
    for i, (ok, name) in enumerate(zip(want, names)):
        got = steps[i] if i < len(steps) else None
        if not got or not ok(got):
            fail("docs/design.md, Add an importer, step %d: %s, want %s" % (i + 1, got, name))


def check_row(ss, work):
    rows = tables_check.listed_importers(ss)
    if rows.get("recipe") != [".recipe.csv", ".csv"]:
        fail("import --help: the row recipe with its files, got %s" % rows.get("recipe"))
    cap = os.path.join(work, "k.recipe.csv")
    open(cap, "w").write(CSV)
    rc, out, err = run(ss, "import", "-q", cap)
    trace = os.path.join(work, "k.sstrace")
    if rc or not os.path.exists(trace):
        fail("import %s: exit %d, no k.sstrace beside it: %s" % (cap, rc, err.strip()))
    def kernels(path, stdin=None):
        return re.search(r"kernel\s+(\d+)", run(ss, "info", path, stdin=stdin)[1])

    got = kernels(trace)
    if not got or got.group(1) != "3":
        fail("info of the import: want 3 kernels, got %s" % (got and got.group(1)))
    stdin = kernels("-", stdin=CSV.encode())
    if not stdin or stdin.group(1) != "3":
        fail("info - (the capture on stdin): the spool's sniff did not take it")
    gz = cap + ".gz"
    with gzip.open(gz, "wt") as f:
        f.write(CSV)
    packed = kernels(gz)
    if not packed or packed.group(1) != "3":
        fail("info of the gzipped capture: not decompressed and imported")
    rc, out, err = run(ss, "report", cap)
    if rc != 0 or not out:
        fail("report %s: exit %d: %s" % (cap, rc, err.strip()))
    other = os.path.join(work, "x.txt")
    open(other, "w").write("hello\n")
    err = run(ss, "import", other)[2]
    if "recipe kernel CSV" not in err:
        fail("import of a file of no format: the message does not name the row: %s" % err.strip())


def check_docs_step(ss, root, work):
    """cli.tables' check of the importers: a gap on the docs as they are, none with the row."""
    p = subprocess.run([sys.executable, tables_check.__file__, "--imports-only", ss, root],
                       capture_output=True, text=True)
    if p.returncode == 0 or "importer recipe has no row" not in p.stdout:
        fail("cli.tables did not miss the recipe's docs row: %s" % p.stdout.strip())
    fake = os.path.join(work, "root")
    os.makedirs(os.path.join(fake, "docs"), exist_ok=True)
    doc = open(os.path.join(root, tables_check.IMPORTERS_DOC), encoding="utf-8").read()
    row = "| `recipe` | the recipe test's CSV of kernels | `.recipe.csv` `.csv` | tests |\n"
    table_end = re.search(r"## Importers\n.*?\n\|[^\n]*\n(?=\n)", doc, re.S)
    if not table_end:
        fail("docs/interop.md has no table of importers to add the row to")
        return
    doc = doc[:table_end.end()] + row + doc[table_end.end():]
    open(os.path.join(fake, tables_check.IMPORTERS_DOC), "w", encoding="utf-8").write(doc)
    p = subprocess.run([sys.executable, tables_check.__file__, "--imports-only", ss, fake],
                       capture_output=True, text=True)
    if p.returncode != 0:
        fail("cli.tables with the recipe's docs row: %s" % p.stdout.strip())


def main():
    recipe_ss, product, root, work = sys.argv[1:5]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    check_recipe(root)
    check_row(recipe_ss, work)
    check_docs_step(recipe_ss, root, work)
    if "recipe" in tables_check.listed_importers(product):
        fail("the product's importer table has the test's row")
    print("recipe_importer: %d failures" % len(FAILS))
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
