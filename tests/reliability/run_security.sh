#!/usr/bin/env bash
# run_security.sh CASE STEPSCOPE REL_PROG MK_EVIL WORKDIR PYTHON FIXTURE
# The security rows of docs/reliability.md:
#   perms        traces 0600 in a folder 0700 whatever the umask, with and without `record`
#   outdir_long  a STEPSCOPE_OUTPUT_DIR longer than PATH_MAX whose first 4095 bytes (what the
#                collector kept of it before the settings table: it keeps it whole now) name
#                another, existing folder: nothing is written there (the folder and the trace
#                path exceed PATH_MAX), it is said once, the program runs unchanged
#   outputs      every output format of a hostile trace is inert (check_outputs.py)
set -u
CASE=$1 BIN=$2 PROG=$3 MKEVIL=$4 W=$5 PY=$6 FIXTURE=$7
rm -rf "$W" && mkdir -p "$W" || exit 1
fail() { echo "FAIL [$CASE]: $*"; [ -s "$W/err" ] && sed 's/^/  stderr: /' "$W/err"; exit 1; }
LIB=$(dirname "$BIN")/libstepscope.so

case $CASE in
perms)
    umask 000 # the most permissive umask: the modes must not depend on it
    "$BIN" record -q -o "$W/out" -- "$PROG" threads64 >/dev/null 2>"$W/err" || fail "record exit $?"
    [ "$(stat -c %a "$W/out")" = 700 ] || fail "output folder mode $(stat -c %a "$W/out")"
    for t in "$W"/out/*.sstrace; do
        [ "$(stat -c %a "$t")" = 600 ] || fail "$t: mode $(stat -c %a "$t")"
    done
    # injected without `record`, into an existing folder: the trace is 0600 all the same
    mkdir -p "$W/plain" && chmod 755 "$W/plain"
    NVTX_INJECTION64_PATH=$LIB STEPSCOPE_OUTPUT_DIR="$W/plain" "$PROG" threads64 >/dev/null 2>"$W/err" ||
        fail "injected run exit $?"
    n=0
    for t in "$W"/plain/*.sstrace; do
        [ "$(stat -c %a "$t")" = 600 ] || fail "$t: mode $(stat -c %a "$t")"
        n=$((n + 1))
    done
    [ $n = 1 ] || fail "$n traces in the injected run's folder"
    ;;
outdir_long)
    # A path of 4200 bytes whose first 4095 bytes name an existing folder.
    mkdir -p "$W/target"
    long="$W/target"
    while [ ${#long} -lt 4095 ]; do long="$long/"; done
    long="${long:0:4095}" # ends in slashes: still the folder $W/target
    [ -d "$long" ] || fail "test setup: $long is not a folder"
    long="${long}$(printf 'x%.0s' $(seq 105))"
    NVTX_INJECTION64_PATH=$LIB STEPSCOPE_OUTPUT_DIR="$long" "$PROG" threads64 >"$W/out" 2>"$W/err"
    rc=$?
    [ $rc = 0 ] || fail "the program's exit status changed to $rc"
    [ "$(cat "$W/out")" = "threads ok: 64" ] || fail "the program's stdout changed"
    ls "$W/target" | grep -q . && fail "a trace was written into the prefix folder"
    [ "$(grep -c '^stepscope: ' "$W/err")" = 1 ] || fail "not said once"
    grep -q "cannot create a trace" "$W/err" || fail "no message about the trace"
    ;;
outputs)
    "$MKEVIL" "$W/evil.sstrace" "$W/strings.json" || fail "mk-evil"
    "$PY" "$(dirname "$0")/check_outputs.py" "$BIN" "$W/evil.sstrace" "$W/strings.json" \
        "$FIXTURE" "$W" || fail "an output is not inert (above)"
    ;;
*)
    fail "unknown case"
    ;;
esac
echo "ok: $CASE"
