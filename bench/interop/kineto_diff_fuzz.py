#!/usr/bin/env python3
"""kineto_diff_fuzz.py — two `stepscope import`s of the same mutated Kineto captures, compared
(issue #44: the own JSON reader against the yajl import it replaced). Not in CI: run by hand.

    python3 bench/interop/kineto_diff_fuzz.py NEW_STEPSCOPE OLD_STEPSCOPE [--seed S] [--n N]

A slice of tests/fixtures/h100-1206/kineto/eager_mlp-bad.json.gz with GPU work in it is mutated
N times (bytes flipped, cut, inserted, escapes and lone surrogates planted in names, the
document cut short); each is imported by both with --accept-damage, and the exit status, the
records (`dump --format json`) and the error line must match — but for the wording and byte
offset of "not valid JSON". A crash (status >= 128) or a sanitizer report stops it.
"""
import argparse
import gzip
import os
import random
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CAPTURE = os.path.join(HERE, "../../tests/fixtures/h100-1206/kineto/eager_mlp-bad.json.gz")
EXTRAS = [b'"\\u00e9\\ud83d\\ude00 x"', b'"\\ud800"', b'"\\ud800abc"', b'"a\\nb\\t\\"q\\"\\\\"',
          b'1e5', b'-0.5e-3', b'true', b'null', b'[1,[2,{}]]', b'"\\u0000z"']
PLANT = b'{}[]",:\\0123456789eE.-+ tfn\x00\x1f\x0b\x0c'


def base_doc():
    src = gzip.open(CAPTURE).read()
    i = src.index(b'"traceEvents"') + len(b'"traceEvents": [')
    k = src.index(b'"cat": "kernel"')
    k = src.rindex(b"\n  {", 0, k - 3000)
    j = src.index(b"\n  },", k + 30000)
    return src[:i] + src[k:j] + b"\n  }\n]}\n"


def mutate(d, rnd):
    d = bytearray(d)
    for _ in range(rnd.randint(1, 4)):
        op, p = rnd.random(), rnd.randrange(len(d))
        if op < 0.3:
            d[p] = rnd.randrange(256)
        elif op < 0.5:
            del d[p:p + rnd.randint(1, 20)]
        elif op < 0.7:
            d[p:p] = bytes([rnd.choice(PLANT)]) * rnd.randint(1, 3)
        elif op < 0.8:
            d = d[:p]
        else:
            k = d.find(b'"name": ', p)
            if k >= 0:
                d[k + 8:k + 8] = rnd.choice(EXTRAS) + b', "x": '
    return bytes(d)


def run(binary, path, out):
    r = subprocess.run([binary, "import", "-q", "--accept-damage", path, "-o", out, "--force"],
                       capture_output=True)
    if r.returncode >= 128 or b"Sanitizer" in r.stderr or b"runtime error" in r.stderr:
        sys.exit("CRASH: %s %s: %d %s" % (binary, path, r.returncode, r.stderr[-500:]))
    dump = b""
    if r.returncode == 0:
        dump = subprocess.run([binary, "dump", "--format", "json", out],
                              capture_output=True).stdout.replace(out.encode(), b"")
    err = r.stderr.replace(path.encode(), b"")
    err = b"JSON" if b"not valid JSON" in err else re.sub(rb"byte \d+", b"byte N", err)
    return r.returncode, dump, err


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("new")
    ap.add_argument("old")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--n", type=int, default=300)
    a = ap.parse_args()
    rnd, base, diffs = random.Random(a.seed), base_doc(), 0
    with tempfile.TemporaryDirectory() as w:
        path, out = os.path.join(w, "in.json"), os.path.join(w, "t.sstrace")
        for it in range(a.n):
            d = mutate(base, rnd)
            open(path, "wb").write(d)
            o, n = run(a.old, path, out), run(a.new, path, out)
            if o != n:
                diffs += 1
                keep = "kineto_diff_%d_%d.json" % (a.seed, it)
                open(keep, "wb").write(d)
                print("DIFF %d (kept as %s): status %d / %d; %s | %s"
                      % (it, keep, o[0], n[0], o[2][:150], n[2][:150]))
    print("%d cases, %d differences" % (a.n, diffs))
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
