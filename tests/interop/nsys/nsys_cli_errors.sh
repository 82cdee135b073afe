#!/usr/bin/env bash
# The CLI on broken nsys databases: `stepscope report` (and export, which reads its input the
# same way) exits 1 with one line on stderr, never a crash (signals, or the sanitizers' exit
# codes 86/87 set below); and --format nsys-sqlite / nvtxt refuse to overwrite nothing partial.
#
#   nsys_cli_errors.sh STEPSCOPE WORKDIR TRACE
set -u
SS=$1 WORK=$2 TRACE=$3
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}exitcode=86"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}halt_on_error=1:exitcode=87"
rm -rf "$WORK" && mkdir -p "$WORK"
fails=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }

"$SS" export "$TRACE" -o "$WORK/good.sqlite" --format nsys-sqlite || fail "export of $TRACE"

# broken copies of the good export, made with Python's sqlite3
python3 - "$WORK" <<'EOF' || fail "making the broken databases"
import shutil, sqlite3, sys, os
w = sys.argv[1]
good = os.path.join(w, "good.sqlite")
def mutate(name, script):
    p = os.path.join(w, name + ".sqlite")
    shutil.copy(good, p)
    db = sqlite3.connect(p)
    db.executescript(script)
    db.commit()
    db.close()
K = "CUPTI_ACTIVITY_KIND_KERNEL"
loosen = "CREATE TABLE t AS SELECT * FROM %s; DROP TABLE %s; ALTER TABLE t RENAME TO %s;" % (K, K, K)
mutate("nokernel", "DROP TABLE %s" % K)
mutate("nullcol", loosen + "UPDATE %s SET end = NULL WHERE rowid = 1" % K)
mutate("textcol", loosen + "UPDATE %s SET streamId = 'x' WHERE rowid = 1" % K)
mutate("negdur", "UPDATE %s SET end = start - 1 WHERE rowid = (SELECT min(rowid) FROM %s)" % (K, K))
data = open(good, "rb").read()
open(os.path.join(w, "truncated.sqlite"), "wb").write(data[: len(data) // 3])
open(os.path.join(w, "empty.sqlite"), "wb").close()
EOF

for bad in nokernel nullcol textcol negdur truncated empty; do
    for verb in report export; do
        args=("$WORK/$bad.sqlite")
        [ "$verb" = export ] && args+=(-o "$WORK/$bad.out.sqlite" --format nsys-sqlite)
        "$SS" "$verb" "${args[@]}" > /dev/null 2> "$WORK/$bad.$verb.err"
        rc=$?
        lines=$(wc -l < "$WORK/$bad.$verb.err")
        if [ $rc -ne 1 ]; then
            fail "$verb $bad: exit $rc (want 1): $(head -3 "$WORK/$bad.$verb.err")"
        elif [ "$lines" -ne 1 ]; then
            fail "$verb $bad: $lines lines on stderr: $(head -3 "$WORK/$bad.$verb.err")"
        else
            echo "ok   $verb $bad: $(cat "$WORK/$bad.$verb.err")"
        fi
        [ -e "$WORK/$bad.out.sqlite" ] && fail "$verb $bad: left an output file"
    done
done
ls "$WORK" | grep -q 'tmp-' && fail "a temporary file was left: $(ls "$WORK" | grep tmp-)"

# an unwritable output: one line, exit 1, nothing left
for fmt in nsys-sqlite nvtxt; do
    "$SS" export "$TRACE" -o "$WORK/no/such/dir/out" --format "$fmt" 2> "$WORK/nodir.err"
    rc=$?
    [ $rc -eq 1 ] && [ "$(wc -l < "$WORK/nodir.err")" -eq 1 ] ||
        fail "export --format $fmt to a missing folder: exit $rc: $(cat "$WORK/nodir.err")"
done
"$SS" export "$TRACE" -o "$WORK/x" --format nsys 2> "$WORK/usage.err"
[ $? -eq 2 ] || fail "unknown format is not a usage error"
echo "$fails failure(s)"
exit $((fails > 0))
