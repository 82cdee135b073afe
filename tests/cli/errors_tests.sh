#!/usr/bin/env bash
# Temporary files and error messages (issue #41). One case per ctest test:
#   errors_tests.sh CASE STEPSCOPE FIXTURES WORKDIR
#   temp_sweep      leftovers of dead processes removed from $TMPDIR and an output's folder;
#                   live owners, young files, links, other names and old-style names kept
#   temp_killed     SIGKILL during a stream export and a stdin spool: the leftovers carry the
#                   pid, and the next run that makes a temporary file there removes them
#   temp_name_max   output names of up to NAME_MAX bytes (ASCII and UTF-8) are written; one
#                   byte more is refused as "file name too long"
#   xfsz            past `ulimit -f`: one line, exit 1 (no death by SIGXFSZ), no temporary
#                   file left; a program under `record` still gets SIGXFSZ as without it
#   names_output    a full disk names the file that failed: the output when writing, $TMPDIR
#                   for a spool or a temporary import, never the input
#   errno_words     EMFILE, ENAMETOOLONG, ENOMEM said as such, not "input/output error"
#   every_exit      every verb x input x condition (full $TMPDIR, full output folder, file
#                   size limit, few descriptors, little memory): a non-zero exit always comes
#                   with a "stepscope VERB:" line, never a signal
# Full disks are tmpfs mounts in a private mount namespace (unshare -m); where that is not
# allowed those parts say "skipped" and the rest runs.
set -u
CASE=$1 SS=$2 FX=$3 WORK=$4
rm -rf "$WORK" && mkdir -p "$WORK/tmp" && cd "$WORK" || exit 1
export TMPDIR=$WORK/tmp
T0=$FX/synthetic-small.sstrace
KIN=$FX/workloads/kineto/mlp-sync.json.gz
NSYS=$FX/workloads/nsys/mlp-sync.sqlite.xz
DEAD=999999999 # above any pid_max (4194304): no such process, ever
LIMIT=30       # seconds any one command may take
# bash code that closes every descriptor above 2 (ctest and make may leave some open): then
# `ulimit -n N` leaves N-3 for stepscope, its loader included
CLOSE_FDS='for f in /proc/$$/fd/*; do n=${f##*/}; [ "$n" -gt 2 ] && [ -e "$f" ] && eval "exec $n>&-"; done;'

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
# with_full_disk SCRIPT: runs bash -c SCRIPT in a private mount namespace where $WORK/full is a
# full 256 KiB tmpfs (SS, T0, KIN, NSYS, WORK, LIMIT are exported to it); 77 when no such
# namespace or mount can be made here
with_full_disk() {
    mkdir -p "$WORK/full"
    export SS T0 KIN NSYS WORK LIMIT
    unshare -m bash -c 'mount -t tmpfs -o size=256k tmpfs "$WORK/full" 2>/dev/null || exit 77
        dd if=/dev/zero of="$WORK/full/fill" bs=4k 2>/dev/null; eval "$1"' _ "$1"
}

# The least `ulimit -v` (KiB) under which stepscope starts at all (its libraries mapped): then
# reading a trace runs out of memory. Fails under a sanitizer's reserved shadow memory.
mem_floor() {
    local v
    for v in $(seq 4000 1000 40000); do
        (ulimit -v "$v"; "$SS" --version >/dev/null 2>&1) && { echo "$v"; return 0; }
    done
    return 1
}

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

case_xfsz() {
    local v
    for v in "export -o x.json $T0" "report -f html -o r.html $T0" "dump $T0" \
             "import -o k.sstrace $KIN" "export -f nsys-sqlite -o x.sqlite $T0"; do
        run 1 "$v" bash -c "ulimit -f 16; exec '$SS' $v >dump.out"
        one_line "$v"; said "$v" "[Ff]ile too large"
    done
    run 1 "a stdin spool" bash -c "ulimit -f 16; cat '$T0' '$T0' | '$SS' info -"
    one_line "spool"; said "spool" "file too large: over the size limit of ulimit -f"
    said "spool" "^stepscope info: $TMPDIR: "
    no_temps "ulimit -f"
    [ -e "$(dirname "$SS")/libstepscope.so" ] || { echo "record part skipped: no collector"; return; }
    # exec resets a caught signal: the program gets SIGXFSZ's default (head dies of it: 153)
    run 0 "record" bash -c "ulimit -f 16; '$SS' record -q -o rec -- sh -c 'head -c 100000 /dev/zero >big; echo \$?' || [ \$? = 3 ]"
    [ "$(cat out)" = 153 ] || fail "the program under record did not get SIGXFSZ: '$(cat out)'"
}

case_names_output() {
    local script rc
    script='f=$WORK/full
        for fmt in perfetto nsys-sqlite nvtxt; do
            "$SS" export -f $fmt -o "$f/out.x" "$T0" 2>err.$fmt; echo "$?" >rc.$fmt
        done
        "$SS" import -o "$f/k.sstrace" "$KIN" 2>err.import; echo $? >rc.import
        cat "$T0" | TMPDIR=$f "$SS" info - >/dev/null 2>err.spool; echo $? >rc.spool
        TMPDIR=$f "$SS" info "$KIN" >/dev/null 2>err.kin; echo $? >rc.kin
        TMPDIR=$f "$SS" report "$NSYS" >/dev/null 2>err.xz; echo $? >rc.xz'
    with_full_disk "$script"
    rc=$?
    [ $rc = 77 ] && { echo "skipped: no tmpfs in a private mount namespace here"; exit 77; }
    local k
    for k in perfetto nsys-sqlite nvtxt import; do
        [ "$(cat rc.$k)" = 1 ] || fail "$k: exit $(cat rc.$k)"
        cp err.$k err; one_line "$k"
        said "$k" "^stepscope [a-z]*: $WORK/full/[a-z.]*: cannot write the \(export\|trace\): "
        said "$k" "\(space\|full\)"
    done
    for k in spool kin xz; do
        [ "$(cat rc.$k)" = 1 ] || fail "$k: exit $(cat rc.$k)"
        cp err.$k err; one_line "$k"
        said "$k" "^stepscope [a-z]*: $WORK/full: cannot .*: no space left on device$"
    done
}

case_errno_words() {
    local long
    long=$(name 300)
    run 1 "a long input name" "$SS" info "$long.sstrace"
    one_line "long name"; said "long name" ": file name too long$"
    run 1 "a long input folder" "$SS" report "$long/t.sstrace"
    said "long folder" ": file name too long$"
    run 1 "few descriptors, a compressed input" bash -c "$CLOSE_FDS ulimit -n 4; exec '$SS' info '$KIN'"
    one_line "few descriptors"; said "few descriptors" "^stepscope info: $KIN: .*too many open files$"
    run 1 "few descriptors, an output" bash -c "$CLOSE_FDS ulimit -n 4; exec '$SS' export -o x.json '$T0'"
    one_line "few descriptors, output"; said "few descriptors, output" "^stepscope export: x.json: .*Too many open files$"
    local base
    if base=$(mem_floor); then
        run 1 "little memory" bash -c "ulimit -v $base; exec '$SS' report '$FX/h200-dataloader-w0.sstrace'"
        one_line "little memory"; said "little memory" ": out of memory$"
    else
        echo "memory part skipped: stepscope does not start under ulimit -v (a sanitizer build)"
    fi
}

# One command of the matrix: a non-zero exit must come with a "stepscope VERB:" line and no
# signal may end it. Prints the failures.
check_one() {
    local label=$1 rc
    shift
    timeout "$LIMIT" "$@" >/dev/null 2>e1
    rc=$?
    echo >>"$WORK/runs"
    if [ $rc -ge 124 ]; then echo "$label: exit $rc (killed or hung): $(head -c 300 e1)"
    elif [ $rc -ne 0 ] && ! grep -q '^stepscope [a-z]*: ' e1; then
        echo "$label: exit $rc without a message: $(head -c 300 e1)"
    fi
}

# The verbs, each reading $in and writing under $out (for import/export).
matrix_cmds() {
    local in=$1 out=$2
    printf '%s\n' "info $in" "dump $in" "report $in" "report -f html -o $out/r.html $in" \
        "diff $in $T0" "export -o $out/p.json --force $in" \
        "export -f nsys-sqlite -o $out/n.sqlite --force $in" \
        "export -f nvtxt -o $out/n.nvtxt --force $in"
}

matrix() {
    local cond=$1 out=$2 wrap=$3 in c
    for in in "$T0" "$KIN" "$NSYS" -; do
        while read -r c; do
            if [ "$in" = - ]; then
                check_one "[$cond] cat T0 | $c" bash -c "$wrap; cat '$T0' | exec '$SS' $c"
            else
                check_one "[$cond] $c" bash -c "$wrap; exec '$SS' $c"
            fi
        done < <(matrix_cmds "$in" "$out")
        check_one "[$cond] import $in" bash -c "$wrap; exec '$SS' import --force -o '$out/i.sstrace' $in <'$KIN'"
    done
}

case_every_exit() {
    mkdir -p o
    local bad mem=: base
    base=$(mem_floor) && mem="ulimit -v $((base + 2000))"
    bad=$( matrix plain o :
           matrix fsize o "ulimit -f 8"
           matrix fds o "$CLOSE_FDS ulimit -n 5"
           [ "$mem" = : ] || matrix memory o "$mem" )
    [ -z "$bad" ] || fail "$(echo "$bad" | head -20)"
    local script
    script="$(declare -f check_one matrix_cmds matrix)
        matrix full_tmpdir o 'export TMPDIR=\$WORK/full'
        matrix full_output \$WORK/full :"
    bad=$(with_full_disk "$script")
    [ $? = 77 ] && echo "full-disk part skipped: no tmpfs in a private mount namespace here"
    [ -z "$bad" ] || fail "$(echo "$bad" | head -20)"
    echo "$(wc -l <"$WORK/runs") runs, each non-zero exit said why"
}

"case_$CASE" || exit 1
echo "ok [$CASE]"
