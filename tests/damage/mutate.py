#!/usr/bin/env python3
"""mutate.py — one mutation of harness.py's, by name, for a test that needs exactly that input.

  mutate.py RECHUNK sst MUTATION SEED IN.sstrace OUT.sstrace   (IN is rewritten raw first)
  mutate.py RECHUNK kin|nsys MUTATION SEED IN OUT               (IN plain JSON / SQLite)
  mutate.py RECHUNK sst swap I J IN OUT                          (swap the chunks of seq I, J)

Prints what it did.
"""
import json
import os
import random
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import foreignmut  # noqa: E402
import sstmut  # noqa: E402


def raw_trace(rechunk, path):
    """path written again raw, in 8 KiB chunks (smaller for a small trace: 16 chunks at least)."""
    fd, tmp = tempfile.mkstemp(suffix=".sstrace")
    os.close(fd)
    os.unlink(tmp)
    chunk = max(512, min(8192, os.path.getsize(path) // 16))
    subprocess.run([rechunk, path, tmp, str(chunk)], check=True)
    data = open(tmp, "rb").read()
    os.unlink(tmp)
    return data


def sst_mutant(rechunk, name, args, src):
    data = raw_trace(rechunk, src)
    tr = sstmut.Trace(data)
    if name == "swap":
        ch = list(tr.chunks)
        i, j = (next(k for k, c in enumerate(ch) if c.seq == int(x)) for x in args)
        ch[i], ch[j] = ch[j], ch[i]
        return tr.encode(ch), "chunks %s and %s swapped" % tuple(args)
    tf = sstmut.load_time_fields(subprocess.run([rechunk, "--time-fields"], check=True,
                                                capture_output=True, text=True).stdout.splitlines())
    return sstmut.MUTATIONS[name](data, random.Random(int(args[0])), tr, tf)


def main(argv):
    rechunk, kind, name = argv[1:4]
    args, src, dst = argv[4:-2], argv[-2], argv[-1]
    if kind == "sst":
        out, what = sst_mutant(rechunk, name, args, src)
    else:
        data = open(src, "rb").read()
        doc = json.loads(data) if kind == "kin" else None
        table = foreignmut.KINETO if kind == "kin" else foreignmut.NSYS
        out, what, _ = table[name](data, random.Random(int(args[0])), doc)
    with open(dst, "wb") as f:
        f.write(out)
    print(what)


if __name__ == "__main__":
    main(sys.argv)
