#!/usr/bin/env bash
# keep_corpus.sh OUTDIR [TARGET...]
#
# Merges what a campaign found (OUTDIR/corpus/TARGET/, as tests/fuzz/campaign.sh or any
# libFuzzer run leaves it) into the corpus kept in the repository, tests/fuzz/corpus/TARGET/,
# with libFuzzer's -merge=1: into a folder that holds the target's seeds, whose coverage
# therefore counts as had already, so the result is a small set of inputs (smallest first,
# named by their SHA1 as libFuzzer names them) that adds to the seeds every feature the kept
# corpus and the new one reach; the seeds themselves are then taken out again (every user of
# the kept corpus reads the seeds too, and the build makes them). Features: for cli and escape
# (inputs of a few bytes) libFuzzer's full ones, edges with their hit-count buckets; for the
# targets whose inputs are traces, JSON or databases of up to 16-64 KiB, the edges alone
# (-use_counters=0): after the first 25 minutes of local runs the full features kept 11 MB of
# them, the edges 2.9 MB; the hit counts come back in the first minutes of a campaign.
# The kept folder is replaced only when the merge succeeded.
# Prints, per target, the inputs and KiB before and after, then the total (the corpus is
# committed: keep it to a few MB). TARGET: reader analyze cli escape kineto nsys export (default: those
# OUTDIR/corpus has). The fuzz binaries: $FUZZ_BIN_DIR/fuzz_TARGET (default build-fuzz, the
# clang build of .ci/run; a campaign's carried bin/ works too); the seeds: $FUZZ_SEEDS_DIR/
# {trace,cli,escape,kineto,nsys} (default: build-fuzz's, and tests/fuzz/seeds/kineto; a
# carry's seeds/ works too). -max_len as in campaign.sh.
# Then: git add tests/fuzz/corpus && git commit.
set -u
here=$(cd "$(dirname "$0")" && pwd)
kept_root=$here/corpus
bin_dir=$(cd "${FUZZ_BIN_DIR:-$here/../../build-fuzz}" 2>/dev/null && pwd) || bin_dir=${FUZZ_BIN_DIR:-build-fuzz}
seeds_root=$(cd "${FUZZ_SEEDS_DIR:-$bin_dir/tests/fuzz/seeds}" 2>/dev/null && pwd) || seeds_root=
# fuzz_cli's sandbox traces, where a carried binary cannot find its build's seed folder
[ -n "$seeds_root" ] && export FUZZ_CLI_SEED_DIR=${FUZZ_CLI_SEED_DIR:-$seeds_root/trace}

usage() {
    echo "usage: bash tests/fuzz/keep_corpus.sh OUTDIR [TARGET...]  (env FUZZ_BIN_DIR)" >&2
    exit 2
}

# Edges alone for the targets with large inputs (see above).
counters_of() {
    case $1 in
    cli | escape) echo 1 ;;
    *) echo 0 ;;
    esac
}

max_len_of() {
    case $1 in
    cli) echo 2048 ;;
    escape) echo 4096 ;;
    kineto) echo 65536 ;;
    *) echo 16384 ;;
    esac
}

kib_of() { du -sk --apparent-size "$1" 2>/dev/null | cut -f1; } # what git stores, unpacked

# The seed folder of target $1 (as campaign.sh's seed_dir_of), empty when there is none.
seeds_of() {
    local d
    case $1 in
    reader | analyze | export) d=trace ;;
    *) d=$1 ;;
    esac
    if [ -n "$seeds_root" ] && [ -d "$seeds_root/$d" ]; then
        echo "$seeds_root/$d"
    elif [ -d "$here/seeds/$d" ]; then
        echo "$here/seeds/$d"
    fi
}

size_of() { echo "$(find "$1" -type f 2>/dev/null | wc -l) $(kib_of "$1")"; } # "FILES KIB"

# Merges OUTDIR/corpus/$1 and the kept corpus into a fresh folder, which then replaces it.
# Absolute paths only: fuzz_cli changes to its sandbox folder before libFuzzer reads them.
keep_target() {
    local t=$1 new=$2/corpus/$1 kept=$kept_root/$1 bin=$bin_dir/fuzz_$1 tmp before after seeds
    [ -x "$bin" ] || { echo "keep_corpus: $t: no $bin (build-fuzz: see .ci/run)" >&2; return 1; }
    [ -d "$new" ] || { echo "keep_corpus: $t: no $new" >&2; return 1; }
    mkdir -p "$kept"
    before=$(size_of "$kept")
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/keep-corpus-$t-XXXXXX") || return 1
    seeds=$(seeds_of "$t")
    [ -n "$seeds" ] || echo "keep_corpus: $t: no seeds found: the kept corpus will hold what they cover" >&2
    [ -n "$seeds" ] && find "$seeds" -maxdepth 1 -type f ! -name '*stamp' -exec cp {} "$tmp"/ \;
    if ! (cd "$tmp" && "$bin" -merge=1 -use_counters="$(counters_of "$t")" -max_len="$(max_len_of "$t")" -timeout=20 \
        -rss_limit_mb=2048 "$tmp" "$kept" "$new" >"$tmp.log" 2>&1); then
        tail -n 20 "$tmp.log" >&2
        echo "keep_corpus: $t: the merge failed (log $tmp.log); $kept unchanged" >&2
        rm -rf "$tmp"
        return 1
    fi
    [ -n "$seeds" ] && (cd "$seeds" && find . -maxdepth 1 -type f -exec rm -f "$tmp"/{} \;)
    rm -rf "$kept" && mv "$tmp" "$kept" && rm -f "$tmp.log"
    after=$(size_of "$kept")
    printf '%-8s %6s files %7s KiB -> %6s files %7s KiB  (merged %s files)\n' "$t" \
        ${before} ${after} "$(find "$new" -maxdepth 1 -type f | wc -l)"
}

main() {
    [ $# -ge 1 ] && [ -d "$1" ] || usage
    local out t rc=0 targets files kib
    out=$(cd "$1" && pwd)
    shift
    targets=${*:-$(ls "$out/corpus" 2>/dev/null)}
    [ -n "$targets" ] || usage
    for t in $targets; do keep_target "$t" "$out" || rc=1; done
    read -r files kib <<<"$(size_of "$kept_root")"
    echo "kept corpus: $files files, $kib KiB in tests/fuzz/corpus"
    [ "$kib" -le 4096 ] ||
        echo "keep_corpus: warning: the kept corpus is over 4 MiB: minimise (a smaller -max_len) or leave a target out" >&2
    return $rc
}

main "$@"
