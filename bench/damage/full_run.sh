#!/usr/bin/env bash
# The hostile-input harness's full run (issue #41): every source of tests/damage/harness.py
# ("all": five native traces, two Kineto captures, two nsys exports) and MUTANTS mutants per
# category and source (default 40: about 3 000 mutants, 45 000 runs through every verb and
# format). CI runs the same harness small (ctest damage.harness). Exit 1 on any damaged input
# that a verb passes on silently, a crash or a hang; the counts go to OUT/counts.json.
#
#   bash bench/damage/full_run.sh [BUILD] [OUT] [MUTANTS] [SEED]
#   BASE=/path/to/older/stepscope bash bench/damage/full_run.sh   # the same mutants through an
#                                  older build too, for the before/after table (no accept check)
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build} out=${2:-/tmp/stepscope-damage} n=${3:-40} seed=${4:-41}
jobs=$(nproc 2>/dev/null || echo 2)
mkdir -p "$out"
py=${PYTHON:-python3}
harness() {
    "$py" "$root/tests/damage/harness.py" --stepscope "$1" --rechunk "$build/tests/damage-rechunk" \
        --fixtures "$root/tests/fixtures" --sources all --mutants "$n" --seed "$seed" --jobs "$jobs" \
        --work "$out/work" --json "$2" "${@:3}"
}
if [ -n "${BASE:-}" ]; then
    harness "$BASE" "$out/before.json" --no-accept-check | tee "$out/before.txt"
fi
harness "$build/stepscope" "$out/counts.json" | tee "$out/after.txt"
rc=${PIPESTATUS[0]}
rm -rf "$out/work"
exit "$rc"
