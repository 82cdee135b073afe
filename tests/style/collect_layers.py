#!/usr/bin/env python3
"""collect_layers.py ROOT — the collector's layers (src/collect/, issue #42): the top (ssc_core.c:
start, the CUDA entry point, fork, signals, exit; ssc_window.c: the capture window) is called by
no file below it, which reaches it only through ssc_top (ssc_config.h), and the bottom
(ssc_config.c: settings, state, services) calls no other file of the collector.

Fails, one line each, when a file below the top includes ssc_lifecycle.h or names a function
the top defines, or when the bottom includes another collector header than its own or names a
function another collector file defines. Functions are the non-static definitions of each file
(a name and its parameters on one line, its body's brace on the next: the project's style);
comments and strings are left out before looking for calls.
"""
import os
import re
import sys

TOP = ("ssc_core.c", "ssc_window.c")
TOP_HEADER = "collect/ssc_lifecycle.h"
BOTTOM = "ssc_config.c"
DEFINITION = re.compile(r"^(?!static\b)[A-Za-z_][\w \*]*?\b(\w+)\([^;{]*\)\s*\n\{", re.M)
COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
STRING = re.compile(r'"(?:\\.|[^"\\\n])*"')


def code_of(text):
    return STRING.sub('""', COMMENT.sub(" ", text))


def main():
    folder = os.path.join(sys.argv[1], "src", "collect")
    files = {n: open(os.path.join(folder, n)).read() for n in sorted(os.listdir(folder))
             if n.endswith(".c")}
    defined = {n: set(DEFINITION.findall(t)) for n, t in files.items()}
    top = set().union(*(defined.get(n, set()) for n in TOP))
    errors = []
    if "ssc_core_ensure" not in top or "ssc_window_step_begin" not in top:
        errors.append("the top's functions were not found (%s)" % sorted(top))
    for name, text in files.items():
        code = code_of(text)
        called = set(re.findall(r"\b(\w+)\s*\(", code))
        if name not in TOP:
            if TOP_HEADER in text:
                errors.append("%s includes %s, the top's header" % (name, TOP_HEADER))
            for fn in sorted(called & top):
                errors.append("%s calls %s of the top: report through ssc_top" % (name, fn))
        if name == BOTTOM:
            for inc in re.findall(r'#include "(collect/[^"]+)"', text):
                if inc != "collect/ssc_config.h":
                    errors.append("%s (the bottom) includes %s" % (name, inc))
            others = set().union(*(d for n, d in defined.items() if n != BOTTOM))
            for fn in sorted(called & others):
                errors.append("%s (the bottom) calls %s of another collector file" % (name, fn))
    for e in errors:
        print("FAIL: " + e)
    print("collector layers: %d files, %d functions of the top, %d problems"
          % (len(files), len(top), len(errors)))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
