#!/usr/bin/env bash
# Temporary files (issue #41). One case per ctest test:
#   errors_tests.sh CASE STEPSCOPE FIXTURES WORKDIR
#   temp_sweep      leftovers of dead processes removed from $TMPDIR and an output's folder;
#                   live owners, young files, links, other names and old-style names kept
#   temp_killed     SIGKILL during a stream export and a stdin spool: the leftovers carry the
#                   pid, and the next run that makes a temporary file there removes them
#   temp_name_max   output names of up to NAME_MAX bytes (ASCII and UTF-8) are written; one
#                   byte more is refused as "file name too long"
set -u
CASE=$1 SS=$2 FX=$3 WORK=$4
rm -rf "$WORK" && mkdir -p "$WORK/tmp" && cd "$WORK" || exit 1
export TMPDIR=$WORK/tmp
T0=$FX/synthetic-small.sstrace
KIN=$FX/workloads/kineto/mlp-sync.json.gz
NSYS=$FX/workloads/nsys/mlp-sync.sqlite.xz
DEAD=999999999 # above any pid_max (4194304): no such process, ever
LIMIT=30       # seconds any one command may take
fail() { echo "FAIL [$CASE]: $*" >&2; exit 1; }
# run EXPECTED_RC LABEL CMD...: stdout to ./out, stderr to ./err
run() {
    local want=$1 label=$2
    shift 2
    timeout "$LIMIT" "$@" >out 2>err
    rc=$?
    [ "$rc" -ne 124 ] || fail "$label: hung"
    [ "$rc" -eq "$want" ] || fail "$label: exit $rc, want $want: $(head -c 600 err)"
}
said() { grep -q -- "$2" err || fail "$1: stderr lacks '$2': $(head -c 600 err)"; }
one_line() { [ "$(grep -vc '^wrote ' err)" = 1 ] || fail "$1: not one line: $(head -c 600 err)"; }
temps_in() { find "$@" \( -name '*stepscope-*pid*' -o -name 'stepscope-*' \) -type f 2>/dev/null | head -3; }
no_temps() { local left; left=$(temps_in "$WORK"); [ -z "$left" ] || fail "$1: temporary files left: $left"; }
old() { touch -h -d '-5 minutes' "$@"; }
case_temp_sweep() {
    mkdir -p o
    local mine=$$ t
    for d in "$TMPDIR" o; do
        touch "$d/stepscope-in-pid$DEAD-AbC123" "$d/.x.json.stepscope-pid$DEAD-dEf456" \
              "$d/stepscope-in-pid$mine-GhI789" "$d/stepscope-import-pid$DEAD-young1" \
              "$d/stepscope-in-XyZ123" "$d/stepscope-notes-$DEAD-AbC123" "$d/kept.txt"
        mkdir "$d/stepscope-in-pid$DEAD-aDir12"
        ln -s "$WORK/kept.txt" "$d/stepscope-in-pid$DEAD-aLink1"
        old "$d"/stepscope-in-* "$d"/.x.json.* "$d"/stepscope-notes-* "$d/kept.txt"
    done
    echo keep >"$WORK/kept.txt"
    run 0 "export beside" "$SS" export -q -o o/t.json "$T0"
    run 0 "a stdin spool" sh -c "cat '$T0' | '$SS' info - >/dev/null"
    for d in "$TMPDIR" o; do
        for gone in "stepscope-in-pid$DEAD-AbC123" ".x.json.stepscope-pid$DEAD-dEf456"; do
            [ ! -e "$d/$gone" ] || fail "$d/$gone: a dead process's leftover was kept"
        done
        for t in "stepscope-in-pid$mine-GhI789" "stepscope-import-pid$DEAD-young1" \
                 "stepscope-in-XyZ123" "stepscope-notes-$DEAD-AbC123" kept.txt \
                 "stepscope-in-pid$DEAD-aDir12" "stepscope-in-pid$DEAD-aLink1"; do
            [ -e "$d/$t" ] || [ -L "$d/$t" ] || fail "$d/$t was removed (live owner, young, not ours, a folder or a link)"
        done
    done
    [ "$(cat "$WORK/kept.txt")" = keep ] || fail "a link's target was touched"
}

# wait_for GLOB: until a file matches (5 s at most); its name in $found
wait_for() {
    local i
    for i in $(seq 50); do
        found=$(compgen -G "$1" | head -1)
        [ -n "$found" ] && return 0
        sleep 0.1
    done
    fail "no file matching $1 appeared"
}

case_temp_killed() {
    mkfifo slow
    exec 7<>slow # a reader that never reads: the copy into the FIFO blocks
    "$SS" export -o slow "$T0" 2>/dev/null &
    local pid=$!
    wait_for "$TMPDIR/stepscope-out-pid$pid-*"
    sleep 0.3
    kill -KILL $pid; wait $pid 2>/dev/null; exec 7>&-
    [ -e "$found" ] || fail "SIGKILL left nothing to sweep (the case tests nothing)"
    local out_left=$found
    mkfifo feed
    (head -c 100 "$T0"; exec sleep 20) >feed & # a stream that stops after its head
    local feeder=$!
    "$SS" info - <feed >/dev/null 2>&1 &
    local spid=$!
    wait_for "$TMPDIR/stepscope-in-pid$spid-*"
    local spool=$found
    kill -KILL $spid; wait $spid 2>/dev/null
    kill $feeder; wait $feeder 2>/dev/null
    old "$out_left" "$spool"
    run 0 "the next spool" sh -c "cat '$T0' | '$SS' info - >/dev/null"
    [ ! -e "$out_left" ] || fail "the killed export's $out_left is still there"
    [ ! -e "$spool" ] || fail "the killed spool's $spool is still there"
}

# name N [CHAR]: a file name of N bytes: CHAR repeated (a multi-byte CHAR: as many whole ones
# as fit), 'a's to the byte
name() {
    local n=$1 c=${2:-a} w s
    w=$(printf %s "$c" | wc -c)
    s=$(printf "%$((n / w))s" "" | sed "s/ /$c/g")
    while [ "$(printf %s "$s" | wc -c)" -lt "$n" ]; do s=${s}a; done
    printf %s "$s"
}

case_temp_name_max() {
    local max n f
    max=$(getconf NAME_MAX .)
    for n in $((max - 20)) $((max - 1)) "$max"; do
        f=$(name "$n")
        run 0 "export -o ($n bytes)" "$SS" export -q -o "$f" "$T0"
        [ -s "$f" ] || fail "$n bytes: nothing written"
        run 0 "report -o ($n bytes)" "$SS" report -q --force -o "$f" "$T0"
        run 0 "import -o ($n bytes)" "$SS" import -q --force -o "$f" "$KIN"
        rm -f "$f"
    done
    f=$(name "$max" "é")
    run 0 "UTF-8, $max bytes" "$SS" export -q -o "$f" "$T0"
    [ -s "$f" ] || fail "UTF-8 name: nothing written"
    f=$(name $((max + 1)))
    run 1 "$((max + 1)) bytes" "$SS" export -o "$f" "$T0"
    one_line "too long"; said "too long" "File name too long"
    no_temps "NAME_MAX"
}

"case_$CASE" || exit 1
echo "ok [$CASE]"
