#!/usr/bin/env bash
# run.sh — JSON parsers against Python's json.load and `stepscope import` on one large Kineto
# trace (issue #44, item 5): which parser could make the import 10x json.load.
#
#   bench/interop/json_parsers/run.sh BUILD_DIR [KINETO.json.gz] [SCALE] [REPS]
#
# The capture (default tests/fixtures/h100-1206/kineto/eager_mlp-bad.json.gz) is unpacked and
# its traceEvents repeated SCALE times (default 10; each copy's ts shifted past the last) into
# one document. Probes are built for the parsers whose Debian 12 packages are installed
# (libyajl-dev, libjansson-dev, libjson-c-dev, rapidjson-dev, libsimdjson-dev); each parses
# the document from memory. Runs are interleaved REPS times (default 3); printed per run: time
# and MB/s. json.load reads the file; `stepscope import` reads it and writes the trace (its
# peak RSS from /usr/bin/time). OLD=/path/to/an/older/stepscope times that one too, in the
# same rounds (the import before and after a change).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
B=$(cd "${1:-build}" && pwd)
SRC=${2:-$here/../../../tests/fixtures/h100-1206/kineto/eager_mlp-bad.json.gz}
SCALE=${3:-10} REPS=${4:-3}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
zcat "$SRC" >"$W/one.json"
python3 - "$W/one.json" "$W/big.json" "$SCALE" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ev = d["traceEvents"]
ts = [e["ts"] for e in ev if isinstance(e.get("ts"), (int, float))]
span = max(ts) - min(ts) + 1000
out = []
for k in range(int(sys.argv[3])):
    for e in ev:
        e2 = dict(e)
        if isinstance(e2.get("ts"), (int, float)):
            e2["ts"] += k * span
        out.append(e2)
d["traceEvents"] = out
json.dump(d, open(sys.argv[2], "w"))
PY
probes=()
have() { echo "#include <$1>" | ${CXX:-g++} -x c++ -E - >/dev/null 2>&1; }
cc="${CC:-gcc} -O2 -I$here" cxx="${CXX:-g++} -O2 -std=c++17 -I$here"
have yajl/yajl_parse.h && $cc -o "$W/yajl" "$here/p_yajl.c" -lyajl && probes+=(yajl)
have jansson.h && $cc -o "$W/jansson" "$here/p_jansson.c" -ljansson && probes+=(jansson)
have json-c/json.h && $cc -o "$W/json-c" "$here/p_json-c.c" -ljson-c && probes+=(json-c)
have rapidjson/reader.h && $cxx -o "$W/rapidjson" "$here/p_rapidjson.cc" && probes+=(rapidjson)
have simdjson.h && $cxx -march=native -o "$W/simdjson" "$here/p_simdjson.cc" -lsimdjson && probes+=(simdjson)
echo "# $(date -u +%FT%TZ) $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); $(du -m "$W/big.json" | cut -f1) MB," \
     "$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["traceEvents"]))' "$W/big.json") events"
for _ in $(seq "$REPS"); do
    for p in "${probes[@]}"; do "$W/$p" "$W/big.json"; done
    python3 -c 'import json, os, sys, time
t = time.perf_counter(); json.load(open(sys.argv[1])); d = time.perf_counter() - t
print("python json.load: %.3f s %.0f MB/s" % (d, os.path.getsize(sys.argv[1]) / d / 1e6))' "$W/big.json"
    for bin in "$B/stepscope" ${OLD:+"$OLD"}; do
        t0=$(date +%s%N)
        /usr/bin/time -f %M -o "$W/rss" "$bin" import -q "$W/big.json" -o "$W/big.sstrace" --force
        t1=$(date +%s%N)
        python3 -c 'import os, sys; d = int(sys.argv[2]) / 1e9
print("%s import: %.3f s %.0f MB/s, peak RSS %.1f MB" % (sys.argv[3], d,
      os.path.getsize(sys.argv[1]) / d / 1e6, int(open(sys.argv[4]).read().split()[-1]) / 1e3))' \
            "$W/big.json" $((t1 - t0)) "$bin" "$W/rss"
    done
done
