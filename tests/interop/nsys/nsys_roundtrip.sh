#!/usr/bin/env bash
# Round trip through the nsys schema: for each trace, `stepscope export --format nsys-sqlite`,
# then `stepscope report -v --format json` of the trace and of the SQLite file (imported by
# ssi_nsys_import behind the CLI's input resolution). The two reports must be the same, number
# for number (tolerance: none), except the fields that name the file and its chunks/records
# (records the schema has no table for -- host samples, memory, overhead, capture -- are not
# exported). Summary per trace: steps, median step, the largest category, the top finding.
#
#   nsys_roundtrip.sh STEPSCOPE WORKDIR TRACE...
set -u
SS=$1 WORK=$2
shift 2
rm -rf "$WORK" && mkdir -p "$WORK"
fails=0
for trace in "$@"; do
    name=$(basename "$trace" .sstrace)
    db=$WORK/$name.sqlite
    # a trace that dropped records while recording is damaged (issue #41): accepted here, and
    # its damage must come back from the import as it was (the "damaged" object compared below)
    if ! "$SS" export --accept-damage "$trace" -o "$db" --format nsys-sqlite 2> "$WORK/$name.export.err"; then
        echo "FAIL $name: export: $(cat "$WORK/$name.export.err")"
        fails=$((fails + 1))
        continue
    fi
    "$SS" report --accept-damage -v --format json "$trace" > "$WORK/$name.orig.json" 2> "$WORK/$name.orig.err"
    if ! "$SS" report --accept-damage -v --format json "$db" > "$WORK/$name.rt.json" 2> "$WORK/$name.rt.err"; then
        echo "FAIL $name: report of the export: $(head -1 "$WORK/$name.rt.err")"
        fails=$((fails + 1))
        continue
    fi
    if ! python3 - "$WORK/$name.orig.json" "$WORK/$name.rt.json" "$name" <<'EOF'; then
import json, sys
a, b, name = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3]
IGNORED = {"/file", "/trace/state", "/trace/records", "/trace/damaged/records_read",
           "/trace/damaged/records_expected", "/trace/damaged/chunks_read",
           "/trace/damaged/chunks_expected", "/trace/damaged/read_fraction"}
# host samples are not exported: the environment check that counts DataLoader workers in them
# has nothing to judge in the import
for d in (a, b):
    d["environment"] = [c for c in d.get("environment", []) if c["id"] != "dataloader_workers"]
diffs = []
def walk(x, y, p=""):
    if p in IGNORED:
        return
    if isinstance(x, dict) and isinstance(y, dict):
        for k in sorted(set(x) | set(y)):
            if k not in x or k not in y:
                diffs.append("%s/%s only in one" % (p, k))
            else:
                walk(x[k], y[k], p + "/" + k)
    elif isinstance(x, list) and isinstance(y, list):
        if len(x) != len(y):
            diffs.append("%s: %d vs %d items" % (p, len(x), len(y)))
        for i, (u, v) in enumerate(zip(x, y)):
            walk(u, v, "%s[%d]" % (p, i))
    elif x != y:
        diffs.append("%s: %r vs %r" % (p, x, y))
walk(a, b)
s = b["steps"]
cats = sorted(b.get("categories", []), key=lambda c: -c.get("ms", 0))
top = b["findings"][0]["id"] if b.get("findings") else "none"
print("%s %s: %s steps (%s analysed), median %s ms, largest %s, top finding %s, %d differences"
      % ("PASS" if not diffs else "FAIL", name, s.get("total"), s.get("analysed"),
         s.get("median_ms"), cats[0]["name"] if cats else "-", top, len(diffs)))
for d in diffs[:10]:
    print("   ", d)
sys.exit(1 if diffs else 0)
EOF
        fails=$((fails + 1))
    fi
done
echo "$fails failure(s)"
exit $((fails > 0))
