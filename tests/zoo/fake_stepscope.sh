#!/bin/bash
# A stand-in for `stepscope` in the zoo's CPU tests: `record -o DIR -- CMD...` runs CMD (no
# collector: there is no GPU) and puts the trace $FAKE_TRACE into DIR as the recording; every
# other verb goes to the real CLI, $REAL_STEPSCOPE.
set -u
if [ "${1:-}" = record ]; then
  shift
  dir=""
  while [ $# -gt 0 ] && [ "$1" != -- ]; do
    [ "$1" = -o ] && { dir=$2; shift; }
    shift
  done
  shift
  "$@"
  rc=$?
  mkdir -p "$dir" && cp "$FAKE_TRACE" "$dir/fake-$$.sstrace"
  exit $rc
fi
exec "$REAL_STEPSCOPE" "$@"
