#!/bin/sh
# run_noload_test.sh STEPSCOPE CC WORKDIR — a collector that cannot load (issue #29): record
# says why (the library the loader missed, where it looked, another CUDA's CUPTI found there),
# exits 1 and does not run the program; doctor's collector check says the same.
set -u
BIN=$1 CC=$2 W=$3
rm -rf "$W" && mkdir -p "$W/link" "$W/other" || exit 1
fail() { echo "FAIL: $*"; cat "$W/err" 2>/dev/null; exit 1; }
cd "$W" || exit 1
echo 'int cupti_stub(void) { return 0; }' >stub.c
echo 'int cupti_stub(void); int InitializeInjection(void) { return cupti_stub(); }' >coll.c
# a stand-in collector needing a CUPTI that is not there (libcupti.so.99), and another CUDA's
"$CC" -shared -fPIC -o link/libcupti.so.99 -Wl,-soname,libcupti.so.99 stub.c &&
    "$CC" -shared -fPIC -o libcoll.so coll.c -Llink -l:libcupti.so.99 &&
    cp link/libcupti.so.99 other/libcupti.so.12 || fail "building the stand-in"
STEPSCOPE_LIB=$W/libcoll.so LD_LIBRARY_PATH=$W/other "$BIN" record -o out -- touch ran \
    >/dev/null 2>err
rc=$?
[ $rc = 1 ] || fail "record: exit $rc, want 1"
[ ! -e ran ] || fail "the program ran"
[ "$(wc -l <err)" = 1 ] || fail "not one line"
grep -q "libcupti.so.99: cannot open shared object file" err || fail "the missing library not named"
grep -q "LD_LIBRARY_PATH=$W/other" err || fail "where it looked not said"
grep -q "found $W/other/libcupti.so.12: a CUPTI of another CUDA version" err ||
    fail "the other CUDA's CUPTI not named"
STEPSCOPE_LIB=$W/libcoll.so "$BIN" doctor --format json >doctor.json 2>err
grep -q '"id": *"collector"' doctor.json && grep -q 'libcupti.so.99' doctor.json ||
    fail "doctor: no failing collector check: $(head -c 1500 doctor.json)"
echo "ok: a collector that cannot load is said, the program not run"
