#!/bin/sh
# run_floor_test.sh FLOOR_PROG FLOOR_LIB FAKE_CUPTI_DIR — bench/overhead/cupti_floor.c's
# CUPTI_FLOOR_ALTERNATE against the fake libcupti: the launch callbacks off in windows 1, 3, 5
# and on in 2, 4, 6 (10 launches: 20 callbacks), and 2 synchronizes counted per window.
set -u
PROG=$1 LIB=$2 FAKE=$3
export LD_LIBRARY_PATH="$FAKE${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" CUPTI_FLOOR_KINDS=callbacks-ts
got=$(CUPTI_FLOOR_ALTERNATE=1 "$PROG" "$LIB" 2>"${TMPDIR:-/tmp}/floor.err.$$" | awk '{ printf "%s=%s ", $2, $4 }')
err=$(cat "${TMPDIR:-/tmp}/floor.err.$$"); rm -f "${TMPDIR:-/tmp}/floor.err.$$"
want="1=0 2=20 3=0 4=20 5=0 6=20 "
[ "$got" = "$want" ] || { echo "FAIL: callbacks per window '$got', want '$want'"; exit 1; }
echo "$err" | grep -q "12 cudaDeviceSynchronize calls" || { echo "FAIL: sync count: $err"; exit 1; }
# without the switch every window has its callbacks
got=$("$PROG" "$LIB" 2>/dev/null | awk '{ printf "%s=%s ", $2, $4 }')
[ "$got" = "1=20 2=20 3=20 4=20 5=20 6=20 " ] || { echo "FAIL: without ALTERNATE: '$got'"; exit 1; }
echo "ok: floor alternate"
