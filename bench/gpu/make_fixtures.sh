#!/usr/bin/env bash
# Records the collector's real-trace fixtures on the H200 (issue #3) and checks each against
# Nsight Systems on the same program: same kernel count, total kernel time within 3%.
#
#   bash bench/gpu/make_fixtures.sh DEST     (from the repository root, after a build-gpu build)
#
# Writes DEST/h200-cnn-launchbound.sstrace (small CNN, launch-bound, Python shim steps),
# DEST/h200-gpubound-bf16.sstrace (large bf16 MLP), their `stepscope info` output and the
# nsys comparison; tests/fixtures/README.md lists the files. Needs Nsight Systems ($NSYS, else
# nsys on PATH).
set -u
DEST=${1:?destination folder}
ROOT=$PWD
PY=${PY:-/opt/torch/.venv/bin/python3}
SS=$ROOT/build-gpu/stepscope
NSYS=${NSYS:-$(command -v nsys)}
mkdir -p "$DEST"
fails=0

record_one() { # name workload steps
    local name=$1 w=$2 steps=$3 tmp=/tmp/fx-$1
    rm -rf "$tmp" "$tmp.nsys-rep" "$tmp.sqlite"
    "$SS" record -o "$tmp" -- "$PY" bench/overhead/models.py --workload "$w" \
        --steps "$steps" --warmup 3 > "$DEST/$name.record.log" 2>&1
    local trace; trace=$(ls "$tmp"/*.sstrace | head -1)
    cp "$trace" "$DEST/$name.sstrace"
    "$SS" info "$DEST/$name.sstrace" > "$DEST/$name.info.txt" 2>&1
    "$SS" dump --json "$DEST/$name.sstrace" > "$tmp.jsonl"
    "$NSYS" profile -t cuda,nvtx --sample=none --cpuctxsw=none --force-overwrite=true \
        -o "$tmp" "$PY" bench/overhead/models.py --workload "$w" --steps "$steps" --warmup 3 \
        > "$DEST/$name.nsys.log" 2>&1
    "$NSYS" export --type sqlite --force-overwrite=true -o "$tmp.sqlite" "$tmp.nsys-rep" \
        >> "$DEST/$name.nsys.log" 2>&1
    python3 bench/gpu/compare_nsys.py "$tmp.jsonl" "$tmp.sqlite" | tee "$DEST/$name.vs-nsys.txt" ||
        fails=$((fails + 1))
}

record_one h200-cnn-launchbound cnn 30
record_one h200-gpubound-bf16 gpu 6
exit $((fails > 0))
