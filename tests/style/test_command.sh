#!/bin/sh
# test_command.sh SOURCE_DIR — the README's "Run all tests" command is the one .ci/run runs
# (one command, run in parallel: ctest alone runs the suite one test at a time, 20+ minutes on
# 2 cores; issue #41).
set -u
src=$1
cmd=$(sed -n '/^Run all tests/,/^```$/{/^ctest /p}' "$src/README.md")
[ -n "$cmd" ] || { echo "FAIL: no ctest command under 'Run all tests' in README.md"; exit 1; }
grep -qxF -- "$cmd" "$src/.ci/run" || { echo "FAIL: .ci/run does not run the README's '$cmd'"; exit 1; }
case $cmd in *" -j"*) ;; *) echo "FAIL: '$cmd' runs the tests one at a time (no -j)"; exit 1 ;; esac
echo "ok: $cmd"
