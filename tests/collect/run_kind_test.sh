#!/bin/sh
# run_kind_test.sh STEPSCOPE WORKDIR KIND=PROGRAM...
# Each program recorded (`nvtx_prog steps`) must leave ENV program.kind = KIND in its trace.
set -u
BIN=$1 W=$2
shift 2
rm -rf "$W" && mkdir -p "$W" || exit 1
n=0
for pair in "$@"; do
    want=${pair%%=*} prog=${pair#*=} n=$((n + 1))
    out="$W/$n-$want"
    "$BIN" record -q -o "$out" -- "$prog" steps >/dev/null 2>"$W/err" || {
        echo "FAIL: record $prog: $(cat "$W/err")"; exit 1; }
    got=$("$BIN" dump --format json -t env "$out"/*.sstrace |
          sed -n 's/.*"key":"program.kind","value":"\([a-z]*\)".*/\1/p')
    [ "$got" = "$want" ] || { echo "FAIL: $prog: program.kind '$got', want '$want'"; exit 1; }
    echo "ok: $(basename "$prog") is $got"
done
