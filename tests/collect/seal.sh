#!/bin/sh
# seal.sh MAP LIB — the collector is sealed: the dynamic symbols libstepscope.so defines
# (nm -D --defined-only) are exactly the entry points its linker version script MAP names under
# "global:" (src/collect/stepscope.map). Anything else exported could clash with the traced
# program's own symbols. LIB "none": the collector was not built (no CUPTI): skipped, exit 77;
# a library named but missing is a failure (the build said it made one).
map=$1 lib=$2
if [ "$lib" = none ]; then
    echo "skipped: libstepscope.so was not built (no CUPTI headers at configure time)"
    exit 77
fi
[ -f "$lib" ] || { echo "FAIL: $lib is not there"; exit 1; }
# the names between "global:" and "local:", comments dropped
want=$(sed -e 's|/\*.*\*/||g' "$map" |
    awk '/global:/ { on = 1; next } /local:/ { on = 0 } on' | tr -d ' \t;' | grep -v '^$' | sort)
# defined dynamic symbols, less the version nodes (type A)
have=$(nm -D --defined-only "$lib" | awk '$2 != "A" { print $3 }' | sed 's/@.*//' | sort)
[ -n "$want" ] || { echo "FAIL: no global: names read from $map"; exit 1; }
if [ "$want" != "$have" ]; then
    echo "FAIL: $lib exports other symbols than $map names"
    echo "--- named in the version script"
    echo "$want"
    echo "--- defined by the library (nm -D --defined-only)"
    echo "$have"
    exit 1
fi
echo "sealed: $(echo "$have" | wc -l) symbols exported, as $map names them: $(echo $have)"
