#!/usr/bin/env bash
# CLI tests for `stepscope` (verb dispatch, info, dump). One case per ctest test:
#   cli_tests.sh CASE STEPSCOPE MKTRACE WORKDIR
# Traces come from test-cli-mktrace, which also writes what it put in them
# (TRACE.expect.json); the cases compare the CLI's output with that.
set -u
CASE=$1
SS=$2
MK=$3
WORK=$4
# the trace format's spec, whose table of record types info's keys must follow
SPEC=$(cd "$(dirname "$0")/../../docs" && pwd)/trace-format.md
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || exit 1
# Under -DSTEPSCOPE_SANITIZE=ON a sanitizer report must not pass for "exit 1, cannot read":
# give the sanitizers their own exit status, and run() also looks for their reports.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}exitcode=86"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}halt_on_error=1:exitcode=87"

fail() {
    echo "FAIL [$CASE]: $*" >&2
    exit 1
}
# run CMD...: stdout to ./out, stderr to ./err, exit status in $rc.
run() {
    "$@" >out 2>err
    rc=$?
    if grep -qE 'Sanitizer|runtime error:' err; then fail "sanitizer report from: $*: $(head -c 2000 err)"; fi
    [ "$rc" -lt 128 ] || fail "killed by signal $((rc - 128)): $*"
}
expect_rc() {
    [ "$rc" = "$1" ] || fail "expected exit $1, got $rc from: $2; stderr: $(head -c 600 err)"
}
# The error contract: exactly one line on stderr, naming the verb.
expect_one_error_line() {
    [ "$(wc -l <err)" = 1 ] || fail "expected one stderr line from: $1; got: $(head -c 600 err)"
    grep -q "^stepscope" err || fail "error line does not start with 'stepscope': $(cat err)"
}
expect_out() { grep -qF -- "$1" out || fail "stdout lacks '$1': $(head -c 1500 out)"; }
expect_err() { grep -qF -- "$1" err || fail "stderr lacks '$1': $(head -c 600 err)"; }
mk() { "$MK" "$1" "$2" "$2.expect.json" >/dev/null || fail "test-cli-mktrace $1 failed"; }

# Python does the JSON checks (python3 is available wherever the suite runs).
pycheck() {
    python3 -c "$1" "${@:2}" || fail "python check failed"
}

case_help() {
    for a in --help -h help; do
        run "$SS" $a
        expect_rc 0 "stepscope $a"
        expect_out "usage: stepscope VERB"
        expect_out "  info "
        expect_out "  dump "
    done
    # Only verbs that exist are listed: every listed verb must answer --help.
    for v in $(sed -n 's/^  \([a-z]*\) .*/\1/p' out); do
        run "$SS" "$v" --help
        expect_rc 0 "stepscope $v --help"
        expect_out "usage: stepscope $v"
    done
    run "$SS" help dump
    expect_rc 0 "stepscope help dump"
    expect_out "usage: stepscope dump"
}

case_version() {
    run "$SS" --version
    expect_rc 0 "stepscope --version"
    grep -qE '^stepscope [0-9]+\.[0-9]+\.[0-9]+ \(trace format v[0-9]+\)$' out ||
        fail "bad version line: $(cat out)"
    [ "$(wc -l <out)" = 1 ] || fail "version is not one line"
}

case_unknown_verb() {
    run "$SS" frobnicate x
    expect_rc 2 "stepscope frobnicate"
    expect_one_error_line "stepscope frobnicate"
    expect_err "unknown verb 'frobnicate'"
    expect_err "stepscope --help"
    [ ! -s out ] || fail "stdout not empty"
    # A hostile verb name comes back escaped, still on one line.
    run "$SS" $'bad\x1b[31m\nverb'
    expect_rc 2 "stepscope <escape>"
    expect_one_error_line "stepscope <escape>"
    ! grep -q $'\x1b' err || fail "raw ESC in the error"
}

case_no_args() {
    run "$SS"
    expect_rc 2 "stepscope"
    expect_err "usage: stepscope VERB"
}

case_usage_errors() {
    local -a cmds=(
        "info" "info --bogus x.sst" "info -x x.sst"
        "dump" "dump a.sst b.sst" "dump --limit abc x.sst" "dump --limit -1 x.sst"
        "dump --type nosuch x.sst" "dump --type , x.sst" "dump -t" "dump --limit"
        "dump --json=1 x.sst")
    for c in "${cmds[@]}"; do
        # shellcheck disable=SC2086
        run "$SS" $c
        expect_rc 2 "stepscope $c"
        expect_one_error_line "stepscope $c"
        expect_err "stepscope ${c%% *}: "
        expect_err "--help"
    done
    run "$SS" dump --type kernel,nosuch x.sst
    expect_err "unknown record kind 'nosuch'"
}

# Compares `info --json` of TRACE with what test-cli-mktrace wrote into it.
check_info_json() {
    pycheck '
import json, sys
info = json.load(open(sys.argv[1])); exp = json.load(open(sys.argv[2]))
assert info["records"] == exp["records"], (info["records"], exp["records"])
assert info["records_total"] == sum(exp["records"].values())
assert info["time_span_ns"]["first"] == exp["first"], info["time_span_ns"]
assert info["time_span_ns"]["last"] == exp["last"], info["time_span_ns"]
assert info["dropped"] == exp["dropped_cupti"] + exp["dropped_host_buffer"]
assert info["dropped_by_source"] == {"cupti": exp["dropped_cupti"],
                                     "host_buffer": exp["dropped_host_buffer"]}
assert info["unknown_records"] == 0 and info["bad_chunks"] == 0
assert info["closed"] is True and info["truncated"] is False
assert info["end"]["records"] == info["records_total"] and info["end"]["dropped"] == info["dropped"]
assert len(info["processes"]) == 1 and info["processes"][0]["pid"] == 4242
assert info["processes"][0]["rank"] == 0 and info["processes"][0]["world_size"] == 2
assert [d["device"] for d in info["devices"]] == [0, 1]
assert [n["level"] for n in info["notices"]] == ["info", "warn"]
assert info["format_version"] == 5 and info["min_reader_version"] == 1
assert info["producer_pid"] == 4242 and info["clock"] == "synthetic"
' "$1" "$2"
}

# The "normal" trace holds 15 dropped records: damage (issue #41), which info says and, without
# --accept-damage, exits 1 on (info_text checks that side).
case_info_counts() {
    mk normal t.sst
    run "$SS" info --json --accept-damage t.sst
    expect_rc 0 "info --json --accept-damage"
    check_info_json out t.sst.expect.json
    pycheck 'import json,sys; d=json.load(open(sys.argv[1])); assert d["processes"][0]["hostname"] == "node-01"
assert d["compression_ratio"] is None and "zstd" not in d["features"]
assert d["damaged"] is True and d["damage"]["dropped"] == 15 and d["damage"]["lost"] == 0' out
}

case_info_text() {
    mk normal t.sst
    run "$SS" info t.sst
    expect_rc 1 "info (15 records dropped)"
    expect_one_error_line "info (dropped)"
    expect_err "stepscope info: t.sst: damaged input (dropped: 15 records dropped while recording)"
    expect_err "--accept-damage"
    run "$SS" info --accept-damage t.sst
    expect_rc 0 "info --accept-damage"
    expect_one_error_line "info --accept-damage" # still said, once
    expect_err "warning: damaged input (dropped: 15"
    expect_out "state        closed, 10 chunks; DAMAGED: dropped: 15 records dropped while recording"
    expect_out "    kernel       600"
    expect_out "    memcpy       60"
    expect_out "  records      1390"
    expect_out "  dropped      15 (host_buffer 7, cupti 8); END chunk counts 15"
    expect_out 'host "node-01" cmdline "python train.py --epochs 1"'
    expect_out "  devices      2"
    expect_out "    warn memory_cap: \"forward\""
    expect_out "  time span    1000000000 .. 1007001091 ns (7.00ms)"
    ! grep -q "were read" out || fail "a clean file reports lost records"
}

case_info_json_keys() {
    mk normal t.sst
    run "$SS" info --json --accept-damage t.sst
    expect_rc 0 "info --json"
    python3 -m json.tool out >/dev/null || fail "info --json is not JSON"
    pycheck '
import json, sys
d = json.load(open(sys.argv[1]))
need = ["format_version", "min_reader_version", "records", "unknown_records", "dropped",
        "dropped_by_source", "truncated", "closed", "bad_chunks", "time_span_ns", "processes",
        "devices", "notices", "chunks", "state", "features", "clock", "producer_pid",
        "damaged", "damage"]
missing = [k for k in need if k not in d]
assert not missing, missing
# every record kind of the spec (docs/trace-format.md, the table under "| type | name | size",
# rows "| 6 | `kernel` | 72 | ..."), in order
import re
table = open(sys.argv[2]).read().split("| type | name | size |")[1].split("\n\n")[0]
rows = re.findall(r"^\| (\d+) \| `(\w+)` \|", table, re.M)
kinds = [name for _, name in sorted(rows, key=lambda r: int(r[0]))]
assert len(kinds) >= 28 and "kernel" in kinds, kinds
assert list(d["records"].keys()) == kinds, list(d["records"].keys())
assert set(d["time_span_ns"]) >= {"first", "last"}
# the damage model: every kind of the table in the spec under "### Damage", in order
dt = open(sys.argv[2]).read().split("| kind | name | what is counted |")[1].split("\n\n")[0]
dkinds = [n for _, n in sorted(re.findall(r"^\| (\d+) \| `(\w+)` \|", dt, re.M), key=lambda r: int(r[0]))]
assert list(d["damage"].keys()) == dkinds + ["said"], (list(d["damage"].keys()), dkinds)
' out "$SPEC"
}

case_info_zstd() {
    mk zstd z.sst
    run "$SS" info --json --accept-damage z.sst
    expect_rc 0 "info --json (zstd)"
    check_info_json out z.sst.expect.json
    pycheck 'import json,sys; d=json.load(open(sys.argv[1]))
assert "zstd" in d["features"] and d["compression_ratio"] > 1.5, d["compression_ratio"]' out
    run "$SS" info --accept-damage z.sst
    expect_out "(zstd, "
}

case_info_multi() {
    mk normal a.sst
    mk zstd b.sst
    run "$SS" info --accept-damage a.sst b.sst
    expect_rc 0 "info a b"
    [ "$(grep -c '^  state        closed' out)" = 2 ] || fail "expected two blocks"
    grep -qx "a.sst" out && grep -qx "b.sst" out || fail "block titles missing"
    [ "$(grep -c 'warning: damaged input' err)" = 2 ] || fail "each damaged input said once: $(cat err)"
    run "$SS" info --json --accept-damage a.sst b.sst
    expect_rc 0 "info --json a b"
    pycheck 'import json,sys; d=json.load(open(sys.argv[1]))
assert isinstance(d, list) and [x["file"] for x in d] == ["a.sst", "b.sst"]' out
    run "$SS" info --json --accept-damage a.sst missing.sst b.sst
    expect_rc 1 "info --json a missing b"
    [ "$(grep -vc 'warning: damaged input' err)" = 1 ] || fail "one error line: $(cat err)"
    expect_err "stepscope info: missing.sst: no such file or directory"
    pycheck 'import json,sys; d=json.load(open(sys.argv[1]))
assert len(d) == 3 and "error" in d[1] and d[2]["records"]["kernel"] == 600' out
}

case_info_unclosed() {
    mk unclosed u.sst
    run "$SS" info u.sst
    expect_rc 1 "info (unclosed)"
    expect_out "state        truncated after chunk"
    expect_err "has no end: it stops after chunk"
    run "$SS" info --json --accept-damage u.sst
    expect_rc 0 "info --json (unclosed)"
    pycheck 'import json,sys; d=json.load(open(sys.argv[1])); e=json.load(open(sys.argv[2]))
assert d["truncated"] is True and d["closed"] is False and d["end"] is None
assert d["records"] == e["records"]' out u.sst.expect.json
}

# Counts the kinds of the dump lines (first word) and compares with the expectations.
check_dump_kinds() {
    pycheck '
import json, sys, collections
exp = json.load(open(sys.argv[2]))["records"]
got = collections.Counter(line.split(" ", 1)[0] for line in open(sys.argv[1], encoding="utf-8"))
want = {k: v for k, v in exp.items() if v}
assert dict(got) == want, (dict(got), want)
' "$1" "$2"
}

case_dump_counts() {
    mk normal t.sst
    run "$SS" dump t.sst
    expect_rc 1 "dump (15 records dropped)"
    expect_one_error_line "dump"
    expect_err "damaged input (dropped: 15"
    run "$SS" dump --accept-damage t.sst
    expect_rc 0 "dump --accept-damage"
    expect_one_error_line "dump --accept-damage"
    check_dump_kinds out t.sst.expect.json
    expect_out 'kernel      t=1000003000 dur=5.0us dev=0 stream=7 corr=1 grid=(128,1,1) block=(256,1,1) regs=32'
    expect_out 'name="nvjet_hsh_128x256_64x4_2x1_v_bz_coopA_NTT"'
    expect_out 'memcpy      t=1000001100 dur=800ns kind=h2d src=pageable dst=device bytes=1048576'
    expect_out 'dropped     t=1007001010 source=cupti of=kernel count=5'
    expect_out 'nvtx_mark   t=1007001006 tid=4242 payload_type=f64 payload=1.5'
}

case_dump_filter() {
    mk normal t.sst
    run "$SS" dump --accept-damage --type kernel,memcpy t.sst
    expect_rc 0 "dump --type kernel,memcpy"
    [ "$(wc -l <out)" = 660 ] || fail "expected 660 lines, got $(wc -l <out)"
    ! grep -vqE '^(kernel|memcpy) ' out || fail "other kinds in a filtered dump"
    run "$SS" dump -n 5 t.sst
    [ "$(wc -l <out)" = 5 ] || fail "--limit 5 gave $(wc -l <out) lines"
    run "$SS" dump --accept-damage --limit 0 t.sst
    expect_rc 0 "dump --limit 0"
    [ ! -s out ] || fail "--limit 0 printed records"
    run "$SS" dump t.sst -t notice --limit=1
    [ "$(wc -l <out)" = 1 ] && grep -q '^notice ' out || fail "--type notice --limit 1: $(cat out)"
}

case_dump_json() {
    mk normal t.sst
    run "$SS" dump --json --accept-damage t.sst
    expect_rc 0 "dump --json"
    pycheck '
import json, sys, collections
exp = json.load(open(sys.argv[2]))["records"]
recs = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8")]
got = collections.Counter(r["type"] for r in recs)
assert dict(got) == {k: v for k, v in exp.items() if v}, dict(got)
k = next(r for r in recs if r["type"] == "kernel")
assert k["grid"] == [128, 1, 1] and k["block"] == [256, 1, 1] and k["dur_ns"] == 5000, k
assert k["name"] == "nvjet_hsh_128x256_64x4_2x1_v_bz_coopA_NTT" and k["flags"] == "graph"
m = next(r for r in recs if r["type"] == "memcpy")
assert m["kind"] == "h2d" and m["src"] == "pageable" and m["bytes"] == 1048576, m
p = next(r for r in recs if r["type"] == "nvtx_pop")
assert p["message"] is None
' out t.sst.expect.json
}

case_truncated() {
    mk normal t.sst
    local size half
    size=$(stat -c %s t.sst)
    half=$((size / 2))
    head -c "$half" t.sst >cut.sst
    run "$SS" info cut.sst
    expect_rc 1 "info (cut)"
    expect_out "state        truncated after chunk"
    expect_one_error_line "info (cut)"
    run "$SS" info --json --accept-damage cut.sst
    pycheck 'import json,sys; d=json.load(open(sys.argv[1]))
assert d["truncated"] is True and d["closed"] is False and 0 < d["records_total"] < 1390
assert d["truncated_at"] <= d["file_bytes"]' out
    run "$SS" dump cut.sst
    expect_rc 1 "dump (cut)"
    expect_one_error_line "dump (cut)"
    expect_err "stepscope dump: cut.sst: incomplete input (truncated: the trace has no end: it stops after chunk"
    # Cut everywhere (every 611 bytes): a clean answer each time, never a crash.
    for ((n = 0; n < size; n += 611)); do
        head -c "$n" t.sst >c.sst
        run "$SS" info c.sst
        expect_rc 1 "info of a $n-byte cut" # cut: never exit 0 without --accept-damage
        expect_one_error_line "info c.sst ($n)"
        run "$SS" dump --json c.sst
        [ "$rc" = 0 ] || [ "$rc" = 1 ] || fail "dump of a $n-byte cut exited $rc"
    done
}

case_corrupted() {
    mk normal t.sst
    cp t.sst bad.sst
    printf 'XXXXXXXXXXXXXXXX' | dd of=bad.sst bs=1 seek=30000 conv=notrunc status=none
    run "$SS" info --json bad.sst
    expect_rc 1 "info (corrupted)"
    run "$SS" info --json --accept-damage bad.sst
    expect_rc 0 "info --accept-damage (corrupted)"
    pycheck 'import json,sys; d=json.load(open(sys.argv[1]))
assert d["bad_chunks"] == 1 and len(d["problems"]) == 1 and d["closed"] is True
assert d["problems"][0]["offset"] < 30000 and 0 < d["records_total"] < 1390' out
    run "$SS" info bad.sst
    expect_out "damaged region skipped"
    expect_out "were read"
    run "$SS" dump bad.sst
    expect_rc 1 "dump (corrupted)"
    [ "$(wc -l <err)" = 2 ] || fail "dump (corrupted): the chunk skipped, then the damage: $(cat err)"
    expect_err "skipped"
    expect_err "damaged input (corrupt: 1 damaged region skipped"
    [ "$(wc -l <out)" -gt 1000 ] || fail "dump stopped at the damage"
    # Damage at many places: never a crash, exit 0 or 1 only.
    local size
    size=$(stat -c %s t.sst)
    for ((off = 0; off < size; off += 1999)); do
        cp t.sst d.sst
        printf '\xff\x00\x13\x37' | dd of=d.sst bs=1 seek="$off" conv=notrunc status=none
        run "$SS" info --json d.sst
        expect_rc 1 "info with damage at $off" # damaged: never exit 0 without --accept-damage
        if [ -s out ]; then python3 -m json.tool out >/dev/null || fail "bad JSON ($off)"; fi
        run "$SS" dump d.sst
        expect_rc 1 "dump with damage at $off"
    done
}

case_bad_files() {
    python3 -c 'import random; random.seed(7); open("random.bin","wb").write(bytes(random.randrange(256) for _ in range(8192)))'
    : >empty.sst
    mkdir adir
    echo "hello, not a trace" >text.txt
    printf '\x89SSTRACE' >magic_only.sst
    head -c 4096 /dev/zero >zeros.bin
    cp random.bin $'evil\x1b[31m\nname.bin'
    for v in info dump; do
        for f in random.bin empty.sst adir missing.sst text.txt magic_only.sst zeros.bin; do
            run "$SS" $v "$f"
            expect_rc 1 "$v $f"
            expect_one_error_line "$v $f"
            expect_err "stepscope $v: $f: "
            [ ! -s out ] || fail "$v $f wrote to stdout"
        done
        run "$SS" $v random.bin
        expect_err "stepscope $v: random.bin: not a stepscope trace (bad magic)"
        run "$SS" $v empty.sst
        expect_err "file is empty"
        run "$SS" $v adir
        expect_err "is a directory"
        run "$SS" $v $'evil\x1b[31m\nname.bin'
        expect_rc 1 "$v <hostile name>"
        expect_one_error_line "$v <hostile name>"
        expect_err 'evil\x1b[31m\nname.bin: not a stepscope trace'
    done
}

# Output must not hold raw control bytes (other than newlines), invalid UTF-8, C1 controls
# or bidi overrides: checks the file in $1.
check_clean_output() {
    pycheck '
import sys, re
raw = open(sys.argv[1], "rb").read()
text = raw.decode("utf-8")  # raises on invalid UTF-8
bad = re.findall("[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u2028\u2029]", text)
assert not bad, bad[:5]
' "$1"
}

case_hostile_dump() {
    mk hostile h.sst
    run "$SS" dump --accept-damage h.sst
    expect_rc 0 "dump (hostile)"
    check_clean_output out
    check_dump_kinds out h.sst.expect.json # also proves no string added a line
    expect_out 'name="k\"q\"\\b\nnew\x1b[31mRED\x1b[0m\r"'
    expect_out 'host="h\xff\xfe\xc0\xafost"'
    expect_out 'cmdline="python \u{202e}txt.py \u{0085} \x07bell\ttab 🚀"'
    expect_out 'message="msg\x00after\x1b]0;title\x07"'
    run "$SS" dump --json --accept-damage h.sst
    expect_rc 0 "dump --json (hostile)"
    check_clean_output out
    pycheck '
import json, sys
exp = json.load(open(sys.argv[2]))
dec = lambda k: bytes.fromhex(exp[k]).decode("utf-8", "replace")
recs = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8")]
k = next(r for r in recs if r["type"] == "kernel")
assert k["name"] == dec("name_hex"), k["name"]
p = next(r for r in recs if r["type"] == "process")
assert p["host"] == dec("host_hex") and p["cmdline"] == dec("cmd_hex"), p
assert "\ufffd" in p["host"]
n = next(r for r in recs if r["type"] == "notice")
assert n["message"] == dec("msg_hex") and "\x00" in n["message"]
' out h.sst.expect.json
}

case_hostile_info_json() {
    mk hostile h.sst
    run "$SS" info --json --accept-damage h.sst
    expect_rc 0 "info --json (hostile)"
    check_clean_output out
    python3 -m json.tool out >/dev/null || fail "info --json (hostile) is not JSON"
    pycheck '
import json, sys
exp = json.load(open(sys.argv[2]))
dec = lambda k: bytes.fromhex(exp[k]).decode("utf-8", "replace")
d = json.load(open(sys.argv[1]))
assert d["processes"][0]["hostname"] == dec("host_hex")
assert d["processes"][0]["cmdline"] == dec("cmd_hex")
assert d["devices"][0]["name"] == dec("name_hex")
assert d["notices"][1]["message"] == dec("msg_hex")
assert d["records"] == exp["records"]
' out h.sst.expect.json
    run "$SS" info --accept-damage h.sst
    expect_rc 0 "info (hostile)"
    check_clean_output out
    expect_out 'host "h\xff\xfe\xc0\xafost"'
}

# Odd values: dump shows every record the file holds, those with impossible times too (two
# kernels that end before they start), and says them as damage (issue #41); info, like every
# analysis, leaves them out and counts them.
case_odd_values() {
    mk odd o.sst
    run "$SS" dump o.sst
    expect_rc 1 "dump (odd)"
    expect_err "inconsistent: 2 records with impossible values dropped"
    run "$SS" dump --accept-damage o.sst
    expect_rc 0 "dump (odd)"
    expect_out "dur=-1.0us"
    expect_out "flags=graph|0x8000 name=<string 9999>"
    expect_out "kind=unknown(200) src=unknown(201) dst=pinned"
    expect_out "payload_type=f64 payload=nan"
    expect_out "payload_type=unknown(99) payload=0xdeadbeef"
    expect_out "notice      size=40 t=0 level=unknown(9) code=unknown(999) message=<string 12345>"
    run "$SS" dump --json --accept-damage o.sst
    expect_rc 0 "dump --json (odd)"
    pycheck '
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
k = recs[0]
assert k["name"] is None and k["dur_ns"] == -1000, k
assert recs[1]["dur_ns"] == -2**63, recs[1]
assert recs[3]["payload"] is None  # NaN has no JSON spelling
' out
    run "$SS" info --json --accept-damage o.sst
    expect_rc 0 "info --json (odd)"
    pycheck '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["dropped"] == 2**64 - 1, d["dropped"]  # saturated, not wrapped
assert d["dropped_by_source"] == {"unknown(77)": 2**64 - 1}
assert d["notices"][0]["level"] == "unknown(9)" and d["notices"][0]["message"] is None
# the two kernels that end before they start (at 0 and 2**64 - 1) are left out, and counted
assert d["time_span_ns"] == {"first": 0, "last": 0, "duration": 0}, d["time_span_ns"]
assert d["damage"]["inconsistent"] == 2 and d["records"]["kernel"] == 0
' out
}

# Compressed inputs (issue #29): a trace and an nsys export compressed with gzip, xz or zstd
# read as if given plainly (the same report); what is not readable named with its compression.
case_compressed() {
    mk normal t.sst
    run "$SS" info --accept-damage t.sst
    expect_rc 0 "info plain"
    sed 1d out >plain.txt
    gzip -c t.sst >t.sst.gz && xz -c t.sst >t.sst.xz || fail "gzip/xz"
    local formats="gz xz"
    if command -v zstd >/dev/null; then zstd -q -c t.sst >t.sst.zst && formats="$formats zst"; fi
    for z in $formats; do
        run "$SS" info --accept-damage "t.sst.$z"
        expect_rc 0 "info t.sst.$z"
        sed 1d out | cmp -s - plain.txt || fail "info of t.sst.$z differs from the plain trace's"
    done
    echo "not a trace" | xz >junk.xz
    run "$SS" info junk.xz
    expect_rc 1 "info junk.xz"
    expect_one_error_line "info junk.xz"
    expect_err "is xz-compressed, and what it holds is no stepscope trace"
    head -c 200 t.sst.gz >cut.gz
    run "$SS" report cut.gz
    expect_rc 1 "report cut.gz"
    expect_one_error_line "report cut.gz"
    expect_err "is gzip-compressed and cut short"
    [ -z "$(ls "${TMPDIR:-/tmp}" | grep "stepscope-unpacked-" | head -1)" ] ||
        echo "note: temporary files of other runs in ${TMPDIR:-/tmp}" >&2
}

# Steps the analysis cannot take for training steps (issue #39): said in the report, in every
# format, never an analysis presented as done.
case_bad_steps() {
    mk outside o.sst
    run "$SS" report o.sst
    expect_rc 0 "report (GPU work outside the steps)"
    tr -s ' \n' ' ' <out >flat
    grep -qF "the marked steps hold no GPU work while 20 GPU operations ran outside them" flat ||
        fail "no line on steps without GPU work: $(head -c 1500 out)"
    run "$SS" report -f md o.sst
    expect_out "the step markers do not wrap the training step"
    mk unalike u.sst
    run "$SS" report u.sst
    expect_rc 0 "report (unalike steps)"
    tr -s ' \n' ' ' <out >flat
    grep -qF "step times vary 60x (p10 1.00 ms, p90 60.00 ms): the steps are not alike" flat ||
        fail "no line on unalike steps: $(head -c 1500 out)"
    mk normal n.sst
    run "$SS" report n.sst
    ! grep -q "not alike\|do not wrap" out || fail "a normal trace gets the line: $(cat out)"
}

declare -F "case_$CASE" >/dev/null || fail "no such case"
"case_$CASE"
echo "ok [$CASE]"
