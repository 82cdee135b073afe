#!/usr/bin/env python3
"""fn_length.py CTAGS ROOT [MAX] — no C function in ROOT/src and ROOT/tools is longer than MAX
lines (default 60: the project's guide), counted from the line of its name to its closing brace.

Functions are found by Universal Ctags (its JSON output, with each function's end line), not by
a parser of our own. Prints the count, the median and the longest; fails listing every function
over MAX. Exits 77 ("skipped: ...") when CTAGS is not Universal Ctags with JSON output."""
import json
import os
import statistics
import subprocess
import sys


def sources(root):
    for top in ("src", "tools"):
        for d, _, files in os.walk(os.path.join(root, top)):
            for f in sorted(files):
                if f.endswith((".c", ".h")):
                    yield os.path.join(d, f)


def functions(ctags, paths):
    """(lines, path, name, first line) of every function definition, from ctags."""
    cmd = [ctags, "--output-format=json", "--fields=+ne", "--kinds-C=f", "--languages=C",
           "--language-force=C", "-o", "-"] + paths
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    found = []
    for line in out.splitlines():
        tag = json.loads(line)
        if tag.get("_type") != "tag" or tag.get("kind") != "function":
            continue
        if "end" not in tag:
            sys.exit("FAIL: ctags gave no end line for %s in %s" % (tag["name"], tag["path"]))
        found.append((tag["end"] - tag["line"] + 1, tag["path"], tag["name"], tag["line"]))
    return found


def main():
    ctags, root = sys.argv[1], sys.argv[2]
    limit = int(sys.argv[3]) if len(sys.argv) > 3 else 60
    try:
        version = subprocess.run([ctags, "--version"], capture_output=True, text=True).stdout
    except OSError:
        version = ""
    if "Universal Ctags" not in version or "+json" not in version:
        print("skipped: Universal Ctags with JSON output not found (apt-get install universal-ctags)")
        return 77
    fns = functions(ctags, sorted(sources(root)))
    if len(fns) < 100:
        print("FAIL: only %d functions found: ctags did not parse the sources" % len(fns))
        return 1
    fns.sort()
    rel = lambda p: os.path.relpath(p, root)
    print("%d functions in src/ and tools/: median %g lines, longest %d (%s:%d %s)"
          % (len(fns), statistics.median(n for n, _, _, _ in fns), fns[-1][0], rel(fns[-1][1]),
             fns[-1][3], fns[-1][2]))
    long_ones = [f for f in fns if f[0] > limit]
    for n, path, name, line in long_ones:
        print("FAIL: %s:%d %s is %d lines (at most %d)" % (rel(path), line, name, n, limit))
    return 1 if long_ones else 0


if __name__ == "__main__":
    sys.exit(main())
