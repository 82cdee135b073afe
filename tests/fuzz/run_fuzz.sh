#!/bin/sh
# run_fuzz.sh FUZZER WORKDIR SECONDS [LIBFUZZER_FLAGS...] [CORPUS_DIRS...]
# One short libFuzzer run for ctest (label fuzz): a fresh working corpus in WORKDIR (new
# inputs land there; the CORPUS_DIRS — seeds, the kept corpus tests/fuzz/corpus/TARGET,
# regression inputs — are only read, libFuzzer writes to its first folder alone), then every
# input of those folders, then mutations until SECONDS have passed. Fails when the target crashes, leaks, times out
# or runs out of memory; the input that did it is left in WORKDIR/artifacts/.
set -u
bin=$1 work=$2 secs=$3
shift 3
rm -rf "$work" && mkdir -p "$work/corpus" "$work/artifacts" || exit 1
"$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$work/artifacts/" "$work/corpus" "$@" >"$work/log" 2>&1 &&
    tail -n 15 "$work/log" && exit 0
rc=$?
tail -n 60 "$work/log"
echo "FAIL: $(basename "$bin") exited $rc; inputs: $(ls "$work/artifacts")"
exit 1
