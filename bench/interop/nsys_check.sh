#!/usr/bin/env bash
# ON THE GPU MACHINE (Nsight Systems there): checks stepscope's nsys SQLite export with the real
# `nsys stats` and `nsys analyze`, and the nsys SQLite import on a real nsys capture.
#
#   bash bench/interop/nsys_check.sh OUTDIR        (from the repository root)
#
# Needs: Nsight Systems ($NSYS, else nsys on PATH), a stepscope build in build-gpu/ (made here when missing: needs libsqlite3-dev, zlib),
# python3 with its sqlite3 module, and for part 3 torch at $PY.
#
# 1. Every fixture (tests/fixtures/h200-*.sstrace, tests/fixtures/workloads/traces/*.sstrace;
#    override with FIXTURES="a.sstrace b.sstrace") is exported with --format nsys-sqlite, then
#    `nsys stats --report cuda_gpu_kern_sum,cuda_api_sum,cuda_gpu_mem_time_sum,
#    cuda_gpu_mem_size_sum,nvtx_sum --format csv` and `nsys analyze` run on the file. The CSVs
#    are compared with the trace itself (`stepscope dump --json`): kernel instances exact and
#    time per kernel name within 0.1 %, copy and memset counts exact, bytes exact up to the
#    report's MB rounding, CUDA API calls per name exact, NVTX range instances exact.
# 2. If `nsys stats` refuses a file, the real export's META_DATA_EXPORT rows are copied into
#    it and stats retried, to tell whether the schema version key is what it checks.
# 3. A real capture: nsys profiles a small CNN (bench/overhead/models.py) with stepscope's
#    Python shim markers active, exports SQLite; its enum tables and CREATE TABLE statements are
#    diffed against stepscope's, its CUDA API names checked against stepscope's table, its
#    globalTid layout printed, and `stepscope report` runs on it (steps from the NVTX markers).
# 4. If ImportNvtxt is found next to nsys, an NVTXT export is converted with it.
# Prints PASS / FAIL / INFO / SKIP lines; everything (CSVs, logs, databases) stays in OUTDIR.
set -u
OUT=${1:?usage: bash bench/interop/nsys_check.sh OUTDIR}
ROOT=$PWD
[ -f "$ROOT/bench/interop/nsys_check.sh" ] || { echo "run from the repository root"; exit 2; }
SS=${SS:-$ROOT/build-gpu/stepscope}
PY=${PY:-/opt/torch/.venv/bin/python3}
mkdir -p "$OUT" || exit 2
OUT=$(cd "$OUT" && pwd)
rm -f "$OUT/stats-refused.txt"
fails=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }

NSYS=${NSYS:-$(command -v nsys)}
if [ -z "${NSYS:-}" ] || [ ! -x "$NSYS" ]; then
    echo "FAIL NSYS='${NSYS:-}' is not an executable (set NSYS, or put nsys on PATH)"
    exit 1
fi
"$NSYS" --version > "$OUT/nsys-version.txt" 2>&1 || { echo "FAIL $NSYS --version"; exit 1; }
echo "INFO $(head -1 "$OUT/nsys-version.txt")"
command -v python3 > /dev/null && python3 -c "import sqlite3" 2> /dev/null ||
    { echo "FAIL python3 with sqlite3 is needed"; exit 1; }

if [ ! -x "$SS" ]; then
    echo "INFO building stepscope in build-gpu (log: $OUT/build.log)"
    { cmake -B "$ROOT/build-gpu" -S "$ROOT" && cmake --build "$ROOT/build-gpu" -j 16; } \
        > "$OUT/build.log" 2>&1 || { echo "FAIL build (see $OUT/build.log)"; exit 1; }
fi

REPORTS=cuda_gpu_kern_sum,cuda_api_sum,cuda_gpu_mem_time_sum,cuda_gpu_mem_size_sum,nvtx_sum
stats() { # db base -> base_<report>.csv
    timeout 300 "$NSYS" stats --report "$REPORTS" --format csv --force-overwrite=true \
        --output "$2" "$1" > "$2.stats.log" 2>&1
}

# ---- 1 and 2: the fixtures through nsys stats / analyze ---------------------------------------
FIXTURES=${FIXTURES:-$(ls "$ROOT"/tests/fixtures/h200-*.sstrace "$ROOT"/tests/fixtures/workloads/traces/*.sstrace)}
for trace in $FIXTURES; do
    name=$(basename "$trace" .sstrace)
    db=$OUT/$name.sqlite
    rm -f "$db"
    if ! "$SS" export "$trace" -o "$db" --format nsys-sqlite 2> "$OUT/$name.export.err"; then
        fail "$name: stepscope export: $(head -1 "$OUT/$name.export.err")"
        continue
    fi
    "$SS" dump --json -t kernel,memcpy,memset,api,nvtx_push,nvtx_start "$trace" > "$OUT/$name.dump.jsonl"
    stats "$db" "$OUT/$name"
    rc=$?
    if [ $rc -ne 0 ]; then
        fail "$name: nsys stats exit $rc ($(grep -m1 -iE 'error|not' "$OUT/$name.stats.log"))"
        echo "$name" >> "$OUT/stats-refused.txt"
    else
        python3 "$ROOT/bench/interop/nsys_compare.py" "$OUT/$name" "$db" "$OUT/$name.dump.jsonl" ||
            fails=$((fails + 1))
    fi
    timeout 300 "$NSYS" analyze "$db" > "$OUT/$name.analyze.txt" 2>&1
    rc=$?
    if [ $rc -ne 0 ] || grep -q "Traceback" "$OUT/$name.analyze.txt"; then
        fail "$name: nsys analyze exit $rc ($(grep -m1 -iE 'error|traceback' "$OUT/$name.analyze.txt"))"
    else
        echo "PASS $name: nsys analyze ran ($(grep -c '' "$OUT/$name.analyze.txt") lines)"
    fi
done

# ---- 3: a real nsys capture -------------------------------------------------------------------
REAL=$OUT/real-cnn
if [ -x "$PY" ]; then
    rm -f "$REAL.nsys-rep" "$REAL.sqlite"
    MARKERS=$ROOT/build-gpu/libstepscope_markers.so
    PYTHONPATH=$ROOT/python${PYTHONPATH:+:$PYTHONPATH} STEPSCOPE_MARKERS_LIB=$MARKERS \
        timeout 300 "$NSYS" profile -t cuda,nvtx --sample=none --cpuctxsw=none --force-overwrite=true \
        -o "$REAL" "$PY" "$ROOT/bench/overhead/models.py" --workload cnn --steps 20 --warmup 3 \
        > "$REAL.profile.log" 2>&1 || fail "real capture: nsys profile (see $REAL.profile.log)"
    timeout 300 "$NSYS" export --type sqlite --force-overwrite=true -o "$REAL.sqlite" \
        "$REAL.nsys-rep" > "$REAL.export.log" 2>&1 || fail "real capture: nsys export"
else
    echo "SKIP real capture: no python with torch at $PY"
fi
if [ -s "$REAL.sqlite" ]; then
    first=$(echo $FIXTURES | awk '{print $1}')
    python3 "$ROOT/bench/interop/nsys_schema_diff.py" "$REAL.sqlite" "$OUT/$(basename "$first" .sstrace).sqlite" \
        "$ROOT/src/trace/sst_cbid_table.h" | tee "$OUT/real-vs-stepscope.txt"
    grep -q '^FAIL' "$OUT/real-vs-stepscope.txt" && fails=$((fails + 1))
    if "$SS" report "$REAL.sqlite" > "$OUT/real-report.txt" 2>&1 &&
        "$SS" report --format json "$REAL.sqlite" > "$OUT/real-report.json" 2>> "$OUT/real-report.err"; then
        echo "PASS real capture: stepscope report ran: $(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); s=d['steps']; print('%s steps from %s, median %s ms, top finding %s' % (s.get('total'), s.get('source'), s.get('median_ms'), (d.get('findings') or [{'id': 'none'}])[0]['id']))" "$OUT/real-report.json")"
    else
        fail "real capture: stepscope report: $(head -2 "$OUT/real-report.txt")"
    fi
    # the import of stepscope's own export of the import gives the same report
    "$SS" import "$REAL.sqlite" -o "$REAL.sstrace" > /dev/null 2>&1 &&
        "$SS" export "$REAL.sstrace" -o "$REAL.again.sqlite" --format nsys-sqlite &&
        "$SS" report --format json "$REAL.again.sqlite" > "$OUT/real-again.json" 2>/dev/null &&
        python3 - "$OUT/real-report.json" "$OUT/real-again.json" <<'EOF' || fails=$((fails + 1))
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
keys = ["steps", "categories", "findings"]
same = all(a.get(k) == b.get(k) for k in keys)
print(("PASS" if same else "FAIL") + " real capture: import -> export -> import keeps the report (%s)" % ", ".join(keys))
sys.exit(0 if same else 1)
EOF
    # part 2: does nsys stats want the real META_DATA_EXPORT rows?
    if [ -s "$OUT/stats-refused.txt" ]; then
        n=$(head -1 "$OUT/stats-refused.txt")
        cp "$OUT/$n.sqlite" "$OUT/$n.meta.sqlite"
        python3 - "$REAL.sqlite" "$OUT/$n.meta.sqlite" <<'EOF'
import sqlite3, sys
rows = sqlite3.connect(sys.argv[1]).execute("SELECT name, value FROM META_DATA_EXPORT").fetchall()
db = sqlite3.connect(sys.argv[2])
db.execute("DELETE FROM META_DATA_EXPORT")
db.executemany("INSERT INTO META_DATA_EXPORT VALUES (?, ?)", rows)
db.commit()
print("INFO real META_DATA_EXPORT:", rows)
EOF
        if stats "$OUT/$n.meta.sqlite" "$OUT/$n.meta"; then
            echo "INFO nsys stats accepts $n with the real META_DATA_EXPORT rows: write them (src/interop/ssi_nsys_export.c export_meta)"
        else
            echo "INFO nsys stats still refuses $n with the real META_DATA_EXPORT rows: $(grep -m1 -iE 'error' "$OUT/$n.meta.stats.log")"
        fi
    fi
fi

# ---- 4: NVTXT through ImportNvtxt, when it is there -------------------------------------------
IMP=$( (command -v ImportNvtxt; ls "$(dirname "$NSYS")"/ImportNvtxt "$(dirname "$NSYS")"/../*/ImportNvtxt) 2>/dev/null | head -1)
first=$(echo $FIXTURES | awk '{print $1}')
"$SS" export "$first" -o "$OUT/first.nvtxt" --format nvtxt || fail "nvtxt export of $first"
if [ -n "$IMP" ] && [ -x "$IMP" ]; then
    if timeout 120 "$IMP" --cmd create --nvtxt "$OUT/first.nvtxt" -o "$OUT/first-nvtxt.nsys-rep" \
        > "$OUT/importnvtxt.log" 2>&1; then
        echo "PASS ImportNvtxt --cmd create accepted the NVTXT ($IMP)"
    else
        fail "ImportNvtxt refused the NVTXT (see $OUT/importnvtxt.log)"
    fi
else
    echo "SKIP ImportNvtxt not found next to $NSYS: the NVTXT's form is checked by ctest only"
fi

echo "$fails failure(s); outputs in $OUT"
exit $((fails > 0))
