#!/usr/bin/env bash
# campaign.sh CARRYDIR OUTDIR SECONDS [TARGET...]
#
# A libFuzzer campaign (issue #7) over the fuzz targets of tests/fuzz/, all at once, each in
# libFuzzer's fork mode (-fork=N): the machine's cores (FUZZ_CORES, default nproc) are split
# across the targets by weight (FUZZ_WEIGHTS="reader=1,cli=3,...", default below: the slow
# targets with the most code get the most cores). Flags as in the 2026-11-29 campaign (docs/reliability.md):
# -max_len per target, -timeout=20 -rss_limit_mb=2048, the dictionaries of cli and kineto;
# plus -ignore_crashes=1 so that one crash does not end a target's run.
#
# CARRYDIR holds what runs, so that no build tree is needed (a clang build with
# -DSTEPSCOPE_FUZZ=ON, its libraries linked statically; its BUILD-INFO.txt says how):
#   bin/fuzz_TARGET or bin/fuzz_TARGET.gz    the libFuzzer binaries (gzip'd ones are unpacked
#                                            into OUTDIR/bin)
#   lib/                                     shared libraries they need, if any (LD_LIBRARY_PATH)
#   seeds/{trace,cli,escape,kineto,nsys}/    seed corpora (trace: reader, analyze and export)
#   regress/TARGET/                          inputs that once crashed (optional)
#   corpus/TARGET/                           a previous campaign's corpus (optional: without
#                                            it, the corpus kept in the repository,
#                                            tests/fuzz/corpus/TARGET/ next to this script)
#   dict/{cli,kineto}.dict
# TARGET: reader analyze cli escape kineto nsys export (default: all seven; commas also separate).
#
# OUTDIR receives, per target: corpus/TARGET/ (the seeds, then everything the run added),
# logs/TARGET.log (libFuzzer's fork-mode parent) and logs/TARGET/job-N.log (each fork job's
# output: linked while the jobs run, since the parent deletes its temporary folder), and
# crashes/TARGET-{crash,leak,timeout,oom,slow-unit}-SHA1 (libFuzzer's artifacts) with the
# logs of the jobs that failed (crashes/TARGET-job-N.log); then summary.json and summary.txt:
# executions (the sum over fork jobs: what the parent merged plus the jobs still running at
# the end, from each job's -print_final_stats output), exec/s, crashes, corpus size and the
# coverage (edges, features) of the parent's last status line.
#
# Time: it ends before SECONDS + 30 s. At SECONDS - 10 every job is told to stop (libFuzzer's
# stop file), so that its parent merges what it found; each parent's -max_total_time ends at
# SECONDS - 6 (a parent looks at the clock only when a job ends); at SECONDS + 12 what is left
# gets SIGTERM, at SECONDS + 17 SIGKILL. A target that fails to start or dies leaves the others
# running. Exit status 0 whatever the fuzzers found (the crashes are results); 2 for a usage
# error.
set -u

ALL_TARGETS="reader analyze cli escape kineto nsys export"
DEFAULT_WEIGHTS="reader=1,escape=1,cli=3,kineto=3,analyze=4,nsys=4,export=3"

usage() {
    echo "usage: bash tests/fuzz/campaign.sh CARRYDIR OUTDIR SECONDS [TARGET...]" >&2
    echo "  TARGET: $ALL_TARGETS (default: all); env FUZZ_CORES, FUZZ_WEIGHTS" >&2
    exit 2
}

now() { date +%s; }

log() { echo "campaign: $*"; }

# ---- per-target settings ----------------------------------------------------------------------

seed_dir_of() {
    case $1 in
    reader | analyze | export) echo trace ;;
    *) echo "$1" ;;
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

dict_of() {
    case $1 in
    cli | kineto) echo "$CARRY/dict/$1.dict" ;;
    esac
}

weight_of() {
    local kv
    for kv in ${WEIGHTS//,/ }; do
        [ "${kv%%=*}" = "$1" ] && echo "${kv#*=}" && return
    done
    echo 1
}

# ---- setup ------------------------------------------------------------------------------------

# The binary of target $1 (unpacked from .gz into OUTDIR/bin when needed); empty if missing.
binary_of() {
    local t=$1
    if [ -x "$CARRY/bin/fuzz_$t" ]; then
        echo "$CARRY/bin/fuzz_$t"
    elif [ -f "$CARRY/bin/fuzz_$t.gz" ] &&
        gzip -dc "$CARRY/bin/fuzz_$t.gz" >"$OUTDIR/bin/fuzz_$t" &&
        chmod +x "$OUTDIR/bin/fuzz_$t"; then
        echo "$OUTDIR/bin/fuzz_$t"
    fi
}

# The corpus a campaign continues from: the carried one, else the one kept in the repository.
start_corpus_of() {
    if [ -d "$CARRY/corpus/$1" ]; then
        echo "$CARRY/corpus/$1"
    else
        echo "$KEPT/$1"
    fi
}

# Fills OUTDIR/corpus/$1 with the seeds, the regression inputs and the start corpus.
seed_corpus() {
    local t=$1 d src
    d="$OUTDIR/corpus/$t"
    mkdir -p "$d"
    for src in "$CARRY/seeds/$(seed_dir_of "$t")" "$CARRY/regress/$t" "$(start_corpus_of "$t")"; do
        [ -d "$src" ] && find "$src" -maxdepth 1 -type f -exec cp -p {} "$d"/ \;
    done
    rm -f "$d"/stamp "$d"/*.stamp
}

# FORKS[t]: the cores split by weight among the targets that have a binary (largest
# remainders), at least one each.
split_cores() {
    local t total=0 w n left=$CORES
    declare -gA FORKS REM
    [ -n "$RUNNABLE" ] || return
    for t in $RUNNABLE; do total=$((total + $(weight_of "$t"))); done
    for t in $RUNNABLE; do
        w=$(weight_of "$t")
        n=$((CORES * w / total))
        [ "$n" -lt 1 ] && n=1
        FORKS[$t]=$n
        REM[$t]=$((CORES * w % total))
        left=$((left - n))
    done
    while [ "$left" -gt 0 ]; do # hand out what rounding left, largest remainder first
        local best="" bestr=-1
        for t in $RUNNABLE; do
            [ "${REM[$t]}" -gt "$bestr" ] && best=$t bestr=${REM[$t]}
        done
        FORKS[$best]=$((FORKS[$best] + 1))
        REM[$best]=-1
        left=$((left - 1))
    done
}

# ---- running ----------------------------------------------------------------------------------

# Starts target $1 in its own session (so that its jobs can be signalled as one group).
start_target() {
    local t=$1 bin=${BINS[$1]:-} max_time dict
    [ -n "$bin" ] || return
    seed_corpus "$t"
    mkdir -p "$OUTDIR/work/$t" "$OUTDIR/logs/$t"
    max_time=$((T0 + SECS - 6 - $(now)))
    [ "$max_time" -lt 5 ] && max_time=5
    dict=$(dict_of "$t")
    local args=(-fork="${FORKS[$t]}" -ignore_crashes=1 -max_total_time="$max_time"
        -max_len="$(max_len_of "$t")" -timeout=20 -rss_limit_mb=2048 -print_final_stats=1
        -artifact_prefix="$OUTDIR/crashes/$t-")
    [ -n "$dict" ] && [ -f "$dict" ] && args+=(-dict="$dict")
    (
        cd "$OUTDIR/work/$t" || exit 1
        export TMPDIR="$OUTDIR/work/$t" FUZZ_CLI_SEED_DIR="$CARRY/seeds/trace"
        echo "$bin ${args[*]} $OUTDIR/corpus/$t" >"$OUTDIR/logs/$t.cmd"
        exec setsid "$bin" "${args[@]}" "$OUTDIR/corpus/$t" >"$OUTDIR/logs/$t.log" 2>&1
    ) &
    PIDS[$t]=$!
    STARTED[$t]=$(now)
    log "$t: -fork=${FORKS[$t]} -max_total_time=$max_time (pid ${PIDS[$t]}), $(count_files "$OUTDIR/corpus/$t" '*') inputs from seeds and $(start_corpus_of "$t")"
}

# The fork-mode parent's temporary folder (it prints it); under the folder the target's
# LLVMFuzzerInitialize chose as TMPDIR, which need not be under OUTDIR.
temp_dir_of() {
    awk '/starting to fuzz in / { d = $NF } END { if (d != "") print d }' "$OUTDIR/logs/$1.log" 2>/dev/null
}

# Hard links to the job logs (TEMPDIR/N.log) of every running parent, taken in TEMPDIR.keep:
# the parent deletes TEMPDIR at its end, and a link must stay on TEMPDIR's file system.
harvest_logs() {
    local t d f j
    for t in $TARGETS; do
        d=$(temp_dir_of "$t")
        if [ -z "$d" ] || [ ! -d "$d" ]; then continue; fi
        [ -f "$OUTDIR/work/$t.keep" ] || { mkdir -p "$d.keep" && echo "$d.keep" >"$OUTDIR/work/$t.keep"; }
        for f in "$d"/[0-9]*.log; do
            [ -f "$f" ] || continue
            j=$(basename "$f" .log)
            [ -e "$d.keep/job-$j.log" ] || ln "$f" "$d.keep/job-$j.log" 2>/dev/null
        done
    done
}

harvester() {
    while :; do
        harvest_logs
        sleep 1
    done
}

# Moves the linked job logs into OUTDIR/logs/TARGET/ once the jobs have ended.
collect_logs() {
    local t k
    for t in $TARGETS; do
        [ -f "$OUTDIR/work/$t.keep" ] || continue
        k=$(cat "$OUTDIR/work/$t.keep")
        [ -d "$k" ] && cp -p "$k"/job-*.log "$OUTDIR/logs/$t/" 2>/dev/null
        case $k in *.dir.keep) rm -rf "$k" ;; esac
        rm -f "$OUTDIR/work/$t.keep"
        # the target's scratch folder, which its parent could not remove while the links were
        # there (fuzz_cli's is TOP/box); rmdir removes only an empty one
        k=$(dirname "$k")
        rmdir "$k" 2>/dev/null && [ "$(basename "$k")" = box ] && rmdir "$(dirname "$k")" 2>/dev/null
    done
}

running() { [ -n "${PIDS[$1]:-}" ] && kill -0 "${PIDS[$1]}" 2>/dev/null; }

any_running() {
    local t
    for t in $TARGETS; do running "$t" && return 0; done
    return 1
}

# libFuzzer's fork mode: a job ends when the stop file in the parent's temporary folder exists.
stop_jobs() {
    local t d
    for t in $TARGETS; do
        running "$t" || continue
        d=$(temp_dir_of "$t")
        [ -n "$d" ] && [ -d "$d" ] && echo 1 >"$d/STOP"
    done
}

signal_all() {
    local t
    for t in $TARGETS; do
        running "$t" && kill "-$1" -- "-${PIDS[$t]}" 2>/dev/null
    done
}

# Waits for the targets, stepping in at SECONDS - 10 (stop file), + 12 (TERM), + 17 (KILL).
supervise() {
    local stopped=0 termed=0 killed=0 t
    while any_running; do
        t=$(now)
        if [ $stopped = 0 ] && [ "$t" -ge $((T0 + SECS - 10)) ]; then
            stop_jobs
            stopped=1
        fi
        if [ $termed = 0 ] && [ "$t" -ge $((T0 + SECS + 12)) ]; then
            log "still running at SECONDS + 12: SIGTERM"
            signal_all TERM
            termed=1
        fi
        if [ $killed = 0 ] && [ "$t" -ge $((T0 + SECS + 17)) ]; then
            log "still running at SECONDS + 17: SIGKILL"
            signal_all KILL
            killed=1
        fi
        [ $killed = 1 ] && [ "$t" -ge $((T0 + SECS + 20)) ] && break
        sleep 1
    done
    for t in $TARGETS; do
        [ -n "${PIDS[$t]:-}" ] || continue
        if running "$t"; then
            echo "did not end" >"$OUTDIR/work/$t.status"
        else
            wait "${PIDS[$t]}" 2>/dev/null
            echo "exit $?" >"$OUTDIR/work/$t.status"
        fi
    done
}

# ---- summary ----------------------------------------------------------------------------------

# The parent's last merge line: "#RUNS: cov: C ft: F corp: K exec/s[:] E oom/timeout/crash:
# O/T/C time: Ss job: J ..." -> "RUNS C F K O T C" (zeros when there is none).
parent_stats() {
    awk '/^#[0-9]+: cov: / { line = $0 }
         END {
             if (line == "") { print "0 0 0 0 0 0 0"; exit }
             n = split(line, f, " ")
             runs = substr(f[1], 2); sub(/:$/, "", runs)
             for (i = 1; i < n; i++) {
                 if (f[i] == "cov:") cov = f[i + 1]
                 if (f[i] == "ft:") ft = f[i + 1]
                 if (f[i] == "corp:") corp = f[i + 1]
                 if (f[i] == "oom/timeout/crash:") { split(f[i + 1], o, "/"); oom = o[1]; to = o[2]; cr = o[3] }
             }
             print runs + 0, cov + 0, ft + 0, corp + 0, oom + 0, to + 0, cr + 0
         }' "$1" 2>/dev/null || echo "0 0 0 0 0 0 0"
}

merged_jobs() {
    awk '/^#[0-9]+: cov: / { for (i = 1; i < NF; i++) if ($i == "job:") print $(i + 1) }' "$1" 2>/dev/null
}

# Executions of one job: its final stats, else its last status line.
job_runs() {
    awk '/^stat::number_of_executed_units:/ { fin = $2 }
         /^#[0-9]+[ \t]/ { last = substr($1, 2) }
         END { print (fin != "" ? fin : (last != "" ? last : 0)) + 0 }' "$1"
}

# "UNMERGED_RUNS ALL_JOB_RUNS JOBS_SEEN": the jobs the parent never merged (still running when it
# stopped), every job log captured, and how many were.
job_totals() {
    local t=$1 f j merged unmerged=0 all=0 n=0 r
    merged=" $(merged_jobs "$OUTDIR/logs/$t.log" | tr '\n' ' ') "
    for f in "$OUTDIR/logs/$t"/job-*.log; do
        [ -f "$f" ] || continue
        j=${f##*/job-}
        j=${j%.log}
        r=$(job_runs "$f")
        all=$((all + r))
        n=$((n + 1))
        case $merged in *" $j "*) ;; *) unmerged=$((unmerged + r)) ;; esac
    done
    echo "$unmerged $all $n"
}

# Copies the logs of failed jobs next to their artifacts.
keep_failed_job_logs() {
    local t=$1 f
    for f in "$OUTDIR/logs/$t"/job-*.log; do
        [ -f "$f" ] || continue
        grep -qE '==[0-9]+==ERROR|runtime error:|ERROR: libFuzzer' "$f" &&
            cp "$f" "$OUTDIR/crashes/$t-${f##*/}"
    done
}

count_files() { find "$1" -maxdepth 1 -type f -name "$2" 2>/dev/null | wc -l; }

# Parent's own wall time ("INFO: exiting: RC time: Ns"), else the time the script saw.
fuzz_seconds() {
    local t=$1 s
    [ -n "${STARTED[$t]:-}" ] || { echo 0; return; }
    s=$(awk '/^INFO: exiting: / { for (i = 1; i < NF; i++) if ($i == "time:") { v = $(i + 1); sub(/s$/, "", v); print v } }' \
        "$OUTDIR/logs/$t.log" 2>/dev/null | tail -n 1)
    [ -n "$s" ] && [ "$s" -gt 0 ] 2>/dev/null && echo "$s" && return
    echo $(($(now) - STARTED[$t]))
}

summarize_target() {
    local t=$1 st="" unm all nj runs secs eps crashes leaks touts ooms slow corp_n corp_kb
    local p_runs p_cov p_ft p_corp p_oom p_to p_cr
    [ -f "$OUTDIR/work/$t.status" ] && st=$(cat "$OUTDIR/work/$t.status")
    read -r p_runs p_cov p_ft p_corp p_oom p_to p_cr <<<"$(parent_stats "$OUTDIR/logs/$t.log")"
    read -r unm all nj <<<"$(job_totals "$t")"
    runs=$((p_runs + unm))
    secs=$(fuzz_seconds "$t")
    eps=0
    [ "$secs" -gt 0 ] 2>/dev/null && eps=$((runs / secs))
    keep_failed_job_logs "$t"
    crashes=$(count_files "$OUTDIR/crashes" "$t-crash-*")
    leaks=$(count_files "$OUTDIR/crashes" "$t-leak-*")
    touts=$(count_files "$OUTDIR/crashes" "$t-timeout-*")
    ooms=$(count_files "$OUTDIR/crashes" "$t-oom-*")
    slow=$(count_files "$OUTDIR/crashes" "$t-slow-unit-*")
    corp_n=$(count_files "$OUTDIR/corpus/$t" "*")
    corp_kb=$(du -sk "$OUTDIR/corpus/$t" 2>/dev/null | awk '{print $1}')
    # one line per target for the text summary, one JSON object for summary.json
    printf '%-8s %5s %10s %8s %7s %6s %6s %5s %5s %5s %5s %7s %9s  %s\n' "$t" "${FORKS[$t]:-0}" \
        "$runs" "$eps" "$secs" "$p_cov" "$p_ft" "$crashes" "$leaks" "$touts" "$ooms" "$corp_n" \
        "${corp_kb:-0}" "$st" >>"$OUTDIR/summary.txt"
    printf '%s    {"target": "%s", "forks": %s, "seconds": %s, "executions": %s, "exec_per_s": %s,
      "executions_merged_by_parent": %s, "executions_unmerged_jobs": %s, "executions_all_job_logs": %s, "job_logs": %s,
      "crashes": %s, "leaks": %s, "timeouts": %s, "ooms": %s, "slow_units": %s,
      "parent_counts": {"oom": %s, "timeout": %s, "crash": %s},
      "coverage": {"edges": %s, "features": %s}, "corpus": {"files": %s, "kib": %s, "parent_count": %s},
      "status": "%s"}' "$SEP" "$t" "${FORKS[$t]:-0}" "$secs" "$runs" "$eps" "$p_runs" "$unm" "$all" \
        "$nj" "$crashes" "$leaks" "$touts" "$ooms" "$slow" "$p_oom" "$p_to" "$p_cr" "$p_cov" \
        "$p_ft" "$corp_n" "${corp_kb:-0}" "$p_corp" "$st" >>"$OUTDIR/summary.json"
    SEP=$',\n'
}

summarize() {
    local t
    SEP=""
    {
        echo "stepscope fuzz campaign: $(date -u +%Y-%m-%dT%H:%M:%SZ), $SECS s, $CORES cores, $(uname -n)"
        echo "flags: -fork=N -ignore_crashes=1 -timeout=20 -rss_limit_mb=2048 -max_len=per target; dicts: cli, kineto"
        printf '%-8s %5s %10s %8s %7s %6s %6s %5s %5s %5s %5s %7s %9s  %s\n' target forks executions \
            exec/s seconds edges feats crash leak tmout oom corpus corp_KiB status
    } >"$OUTDIR/summary.txt"
    printf '{"date": "%s", "seconds": %s, "cores": %s, "weights": "%s", "host": "%s",\n  "targets": [\n' \
        "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$SECS" "$CORES" "$WEIGHTS" "$(uname -n)" >"$OUTDIR/summary.json"
    for t in $TARGETS; do summarize_target "$t"; done
    printf '\n  ]\n}\n' >>"$OUTDIR/summary.json"
    {
        echo "executions: sum over fork jobs (merged by the parent + jobs still running at the end);"
        echo "edges/feats: the parent's last merge line; crash..oom: artifact files in crashes/"
    } >>"$OUTDIR/summary.txt"
}

# ---- main -------------------------------------------------------------------------------------

main() {
    [ $# -ge 3 ] || usage
    CARRY=$(cd "$1" 2>/dev/null && pwd) || { echo "campaign: $1: no such folder" >&2; exit 2; }
    mkdir -p "$2" || exit 2
    OUTDIR=$(cd "$2" && pwd)
    SECS=$3
    case $SECS in '' | *[!0-9]*) usage ;; esac
    [ "$SECS" -ge 20 ] || { echo "campaign: SECONDS must be at least 20" >&2; exit 2; }
    shift 3
    TARGETS=$(echo "${*:-$ALL_TARGETS}" | tr ',' ' ')
    local t
    for t in $TARGETS; do
        case " $ALL_TARGETS " in *" $t "*) ;; *) echo "campaign: unknown target $t" >&2; usage ;; esac
    done
    KEPT=$(cd "$(dirname "$0")" && pwd)/corpus
    T0=$(now)
    CORES=${FUZZ_CORES:-$(nproc)}
    WEIGHTS=${FUZZ_WEIGHTS:-$DEFAULT_WEIGHTS}
    mkdir -p "$OUTDIR/bin" "$OUTDIR/corpus" "$OUTDIR/crashes" "$OUTDIR/logs" "$OUTDIR/work"
    [ -d "$CARRY/lib" ] && export LD_LIBRARY_PATH="$CARRY/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}"
    # no llvm-symbolizer there (no clang): addr2line, if any, names the frames; the offsets
    # (binary+0x...) are printed either way and symbolize later against the same binaries
    command -v llvm-symbolizer >/dev/null 2>&1 ||
        export ASAN_OPTIONS="${ASAN_OPTIONS:-allow_addr2line=1}" UBSAN_OPTIONS="$UBSAN_OPTIONS:allow_addr2line=1"
    declare -gA PIDS STARTED BINS
    RUNNABLE=""
    for t in $TARGETS; do
        BINS[$t]=$(binary_of "$t")
        if [ -n "${BINS[$t]}" ]; then
            RUNNABLE="$RUNNABLE $t"
        else
            log "$t: no fuzz_$t or fuzz_$t.gz in $CARRY/bin: skipped"
            echo "no binary" >"$OUTDIR/work/$t.status"
        fi
    done
    split_cores
    log "$CORES cores, $SECS s, targets: $TARGETS; out: $OUTDIR"
    for t in $TARGETS; do start_target "$t"; done
    harvester &
    local hpid=$!
    supervise
    kill "$hpid" 2>/dev/null
    wait "$hpid" 2>/dev/null
    harvest_logs
    collect_logs
    summarize
    cat "$OUTDIR/summary.txt"
    log "done in $(($(now) - T0)) s"
    exit 0
}

main "$@"
