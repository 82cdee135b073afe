#!/usr/bin/env python3
"""harness.py — hostile inputs through every verb and format (issue #41).

Mutates real fixtures by category (sstmut.py: cut, bit flips, chunks removed, repeated or
swapped with valid checksums, an END chunk that claims drops or miscounts, records with an end
before their start or an absurd time, data after the END chunk; foreignmut.py: the same for
Kineto JSON, plain and gzip, and nsys SQLite, whose repeated rows and impossible values are
written through the formats' own tools), runs each mutant through report (text, json, md, html),
diff, info (text, json), dump (text, json), export (perfetto, nsys-sqlite, nvtxt, folded, with
--time and --steps) and import (from a file and from stdin), and judges each run:

  refused   exit non-zero with a message on stderr
  said      exit 0 with the damage said on stderr (only with --accept-damage; without it a
            damaged input must fail the verb)
  SILENT    exit 0 and no word of damage on stderr: a silent wrong result when the output
            differs from the unmutated input's, silent either way for a damaged input
  crash     killed by a signal, a sanitizer report, a hang, a usage error

A mutant is damaged by construction, or by the format's own check (see foreignmut.py); a
"plausible" mutant (a flipped digit that leaves valid JSON, an SQLite file that passes its
integrity check) is another valid capture: counted, not judged. With --accept-damage, every
damaged mutant's info and report must exit 0 (or refuse an unreadable input) and say the
damage exactly once. Exit 1 on any SILENT run of a damaged mutant, any crash, any accept
failure.

  harness.py --stepscope BIN --rechunk BIN --fixtures DIR --work DIR
             [--mutants N] [--seed S] [--jobs J] [--sources ci|all] [--json OUT]
"""
import argparse
import collections
import concurrent.futures
import gzip
import hashlib
import json
import lzma
import os
import random
import re
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import foreignmut  # noqa: E402
import sstmut  # noqa: E402

SAID = re.compile(r"damaged|incomplete|truncat|corrupt|cut short|malformed|has no end|"
                  r"could be read|inconsistent|repeat|out of sequence|lost|dropped|not valid|"
                  r"negative|out of range|before (its|the)", re.I)
ACCEPTED = re.compile(r"warning: (damaged|incomplete) input")
SANITIZER = re.compile(r"Sanitizer|runtime error:")

# Every verb and format: (name, arguments; IN is the input, ORIG the unmutated one, OUT a file
# the verb writes, which is what its output is then).
VERBS = [
    ("info", ["info", "IN"]),
    ("info-json", ["info", "--json", "IN"]),
    ("dump", ["dump", "IN"]),
    ("dump-json", ["dump", "--json", "IN"]),
    ("report", ["report", "IN"]),
    ("report-json", ["report", "-f", "json", "IN"]),
    ("report-md", ["report", "-f", "md", "IN"]),
    ("report-html", ["report", "-f", "html", "-o", "OUT.html", "IN"]),
    ("diff", ["diff", "ORIG", "IN"]),
    ("export-perfetto", ["export", "-q", "-o", "OUT.json", "IN"]),
    ("export-nsys", ["export", "-q", "-f", "nsys-sqlite", "-o", "OUT.sqlite", "IN"]),
    ("export-nvtxt", ["export", "-q", "-f", "nvtxt", "-o", "OUT.nvtxt", "IN"]),
    ("export-folded", ["export", "-q", "-f", "folded", "-o", "OUT.folded", "IN"]),
    ("export-nvtxt-time", ["export", "-q", "-f", "nvtxt", "--time", "0-3", "-o", "OUT.nvtxt", "IN"]),
    ("export-folded-time", ["export", "-q", "-f", "folded", "--time", "0-3", "-o", "OUT.folded", "IN"]),
    ("export-steps", ["export", "-q", "--steps", "3-5", "-o", "OUT.json", "IN"]),
    ("import", ["import", "-q", "-o", "OUT.sstrace", "IN"]),
    ("import-stdin", ["import", "-q", "-o", "OUT.sstrace", "-"]),
]

# The sources: (name, kind, fixture path relative to --fixtures). ci: one of each kind, small.
SOURCES = {
    "ci": [("mlp-sync", "sst", "workloads/traces/mlp-sync.sstrace"),
           ("syncsite", "sst", "synthetic-syncsite.sstrace"),
           ("kineto-wide", "kin", "workloads/kineto/wide-none.json.gz"),
           ("nsys-wide", "nsys", "workloads/nsys/wide-none.sqlite.xz")],
    "all": [("mlp-sync", "sst", "workloads/traces/mlp-sync.sstrace"),
            ("syncsite", "sst", "synthetic-syncsite.sstrace"),
            ("synthetic-small", "sst", "synthetic-small.sstrace"),
            ("cnn-window", "sst", "h200-cnn-window.sstrace"),
            ("dataloader-w0", "sst", "h200-dataloader-w0.sstrace"),
            ("kineto-wide", "kin", "workloads/kineto/wide-none.json.gz"),
            ("kineto-mlp-sync", "kin", "workloads/kineto/mlp-sync.json.gz"),
            ("nsys-wide", "nsys", "workloads/nsys/wide-none.sqlite.xz"),
            ("nsys-mlp-sync", "nsys", "workloads/nsys/mlp-sync.sqlite.xz")],
}
EXT = {"sst": ".sstrace", "kin": ".json", "nsys": ".sqlite"}


class Source:
    def __init__(self, name, kind, data, work):
        self.name, self.kind, self.data = name, kind, data
        self.dir = os.path.join(work, "src-" + name)
        os.makedirs(self.dir, exist_ok=True)
        self.orig = os.path.join(self.dir, "orig" + EXT[kind])
        with open(self.orig, "wb") as f:
            f.write(data)
        self.doc = json.loads(data) if kind == "kin" else None
        self.trace = sstmut.Trace(data) if kind == "sst" else None
        self.baseline = {}  # verb -> output digest of the unmutated input


def load_sources(args, work):
    out = []
    for name, kind, rel in SOURCES[args.sources]:
        path = os.path.join(args.fixtures, rel)
        if kind == "sst":
            raw = os.path.join(work, name + ".raw.sstrace")
            subprocess.run([args.rechunk, path, raw, "8192"], check=True)
            data = open(raw, "rb").read()
        elif kind == "kin":
            data = gzip.open(path).read()
        else:
            data = lzma.open(path).read()
        out.append(Source(name, kind, data, work))
    return out


def out_name(name, x, extra):
    """The file a verb writes: one per verb (runs in one folder go in parallel)."""
    return x.replace("OUT", "out-" + name + ("-accept" if extra else ""))


def argv_of(name, verb_args, ext, mutant_ext, extra):
    a = [out_name(name, x, extra) for x in verb_args]
    return [("input" + mutant_ext) if x == "IN" else ("orig" + ext) if x == "ORIG" else x for x in a]


def digest(path, stdout):
    """What a run produced: the file it wrote (None: none), else its stdout."""
    if path is None:
        return hashlib.sha1(stdout).hexdigest()
    return hashlib.sha1(open(path, "rb").read()).hexdigest() if os.path.exists(path) else None


def run(args, cwd, verb, mutant_ext, src, extra=()):
    """One verb over one input: exit status, stderr, the digest of its output, seconds."""
    name, verb_args = verb
    argv = [args.stepscope] + argv_of(name, verb_args, EXT[src.kind], mutant_ext, extra)
    argv[2:2] = list(extra)
    outs = [os.path.join(cwd, out_name(name, x, extra)) for x in verb_args if x.startswith("OUT")]
    for p in outs:
        if os.path.exists(p):
            os.unlink(p)
    stdin = subprocess.DEVNULL
    if name == "import-stdin":
        stdin = open(os.path.join(cwd, "input" + mutant_ext), "rb")
    t0 = time.time()
    try:
        p = subprocess.run(argv, cwd=cwd, stdin=stdin, capture_output=True, timeout=60)
        rc, out, err = p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        rc, out, err = "hang", b"", ""
    finally:
        if stdin is not subprocess.DEVNULL:
            stdin.close()
    return rc, digest(outs[0] if outs else None, out), err, time.time() - t0


def applicable(src, name):
    if name.startswith("import"):
        return src.kind != "sst"
    return True


def baseline(args, sources, pool):
    """The unmutated inputs through every verb: which verbs apply (exit 0), their outputs."""
    jobs = {}
    for s in sources:
        os.symlink(os.path.basename(s.orig), os.path.join(s.dir, "input" + EXT[s.kind]))
        for v in VERBS:
            if applicable(s, v[0]):
                jobs[pool.submit(run, args, s.dir, v, EXT[s.kind], s)] = (s, v)
    for f in concurrent.futures.as_completed(jobs):
        s, v = jobs[f]
        rc, out, err, _ = f.result()
        if rc == 0 and not SAID.search(err):
            s.baseline[v[0]] = out
        elif rc == 0 or rc == 1:
            pass  # not applicable to this source (folded without samples...)
        else:
            sys.exit("baseline: %s %s exit %s: %s" % (s.name, v[0], rc, err[:300]))


def mutations_of(kind):
    if kind == "sst":
        return {k: (lambda f: lambda s, rng: f(s.data, rng, s.trace, TF) + (True,))(f)
                for k, f in sstmut.MUTATIONS.items()}
    table = foreignmut.KINETO if kind == "kin" else foreignmut.NSYS
    return {k: (lambda f: lambda s, rng: f(s.data, rng, s.doc))(f) for k, f in table.items()}


def make_mutants(args, sources):
    rng = random.Random(args.seed)
    mutants = []
    for s in sources:
        for cat, fn in sorted(mutations_of(s.kind).items()):
            for k in range(args.mutants):
                made = fn(s, rng)
                if made is None:
                    continue
                data, what, damaged = made
                ext = EXT[s.kind] + (".gz" if cat in foreignmut.KINETO_GZ else "")
                d = os.path.join(args.work, "m", "%s-%s-%d" % (s.name, cat, k))
                os.makedirs(d, exist_ok=True)
                with open(os.path.join(d, "input" + ext), "wb") as f:
                    f.write(data)
                os.symlink(s.orig, os.path.join(d, "orig" + EXT[s.kind]))
                mutants.append(dict(src=s, cat=cat, what=what, damaged=damaged, dir=d, ext=ext))
    return mutants


def judge(m, v, rc, out, err):
    if rc == "hang" or (isinstance(rc, int) and (rc < 0 or rc >= 2)) or SANITIZER.search(err):
        return "crash"
    if rc != 0:
        return "refused" if err.strip() else "crash"  # a failure without a word
    if SAID.search(err):
        return "said"
    same = out == m["src"].baseline.get(v[0])
    return "silent-same" if same else "silent-differs"


def accept_check(args, m):
    """--accept-damage: exit 0 with the damage said once, or a refusal of an unreadable input."""
    bad = []
    for v in (VERBS[0], VERBS[4]):
        rc, out, err, _ = run(args, m["dir"], v, m["ext"], m["src"], ["--accept-damage"])
        said = len(ACCEPTED.findall(err))
        if rc == 0 and said != 1:
            bad.append("%s --accept-damage: exit 0, damage said %d times" % (v[0], said))
        elif rc not in (0, 1) or (rc == 1 and not err.strip()):
            bad.append("%s --accept-damage: exit %s: %s" % (v[0], rc, err.strip()[:200]))
    return bad


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--stepscope", required=True)
    ap.add_argument("--rechunk", required=True)
    ap.add_argument("--fixtures", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--mutants", type=int, default=2, help="per category and source")
    ap.add_argument("--seed", type=int, default=41)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--sources", choices=sorted(SOURCES), default="ci")
    ap.add_argument("--no-accept-check", action="store_true")
    ap.add_argument("--json", help="write the counts here")
    args = ap.parse_args()
    args.stepscope = os.path.abspath(args.stepscope)
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    global TF
    TF = sstmut.load_time_fields(subprocess.run([args.rechunk, "--time-fields"], check=True,
                                                capture_output=True, text=True).stdout.splitlines())
    t0 = time.time()
    sources = load_sources(args, args.work)
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        baseline(args, sources, pool)
        mutants = make_mutants(args, sources)
        results = run_all(args, mutants, pool)
        accept = [] if args.no_accept_check else accept_all(args, mutants, pool)
    return report(args, mutants, results, accept, time.time() - t0)


def run_all(args, mutants, pool):
    jobs = {}
    for m in mutants:
        for v in VERBS:
            if v[0] in m["src"].baseline:
                jobs[pool.submit(run, args, m["dir"], v, m["ext"], m["src"])] = (m, v)
    results = []
    for f in concurrent.futures.as_completed(jobs):
        m, v = jobs[f]
        rc, out, err, secs = f.result()
        results.append((m, v[0], judge(m, v, rc, out, err), rc, err.strip().splitlines()[:2]))
    return results


def accept_all(args, mutants, pool):
    futs = {pool.submit(accept_check, args, m): m for m in mutants if m["damaged"]}
    bad = []
    for f in concurrent.futures.as_completed(futs):
        bad += ["%s (%s): %s" % (futs[f]["dir"], futs[f]["what"], b) for b in f.result()]
    return bad


def report(args, mutants, results, accept, secs):
    by = collections.defaultdict(collections.Counter)
    failures = []
    for m, verb, verdict, rc, err in results:
        key = (m["src"].kind, m["cat"], "damaged" if m["damaged"] else "plausible")
        by[key][verdict] += 1
        if verdict == "crash" or (m["damaged"] and verdict.startswith("silent")):
            failures.append("%s %s: %s (%s): exit %s %s" % (verdict.upper(), verb, m["dir"],
                                                              m["what"], rc, " | ".join(err)))
    cols = ["refused", "said", "silent-differs", "silent-same", "crash"]
    print("%-5s %-20s %-9s %7s" % ("input", "mutation", "class", "runs") +
          "".join("%15s" % c for c in cols))
    total = collections.Counter()
    for key in sorted(by):
        c = by[key]
        print("%-5s %-20s %-9s %7d" % (key + (sum(c.values()),)) +
              "".join("%15d" % c[x] for x in cols))
        if key[2] == "damaged":
            total.update(c)
    n_dmg = sum(1 for m in mutants if m["damaged"])
    silent = total["silent-differs"] + total["silent-same"]
    print("\n%d mutants (%d damaged, %d plausible), %d runs, %.0f s; damaged runs: %d refused, "
          "%d said, %d SILENT (%d with a different output), %d crashes; --accept-damage "
          "failures: %d" % (len(mutants), n_dmg, len(mutants) - n_dmg, len(results), secs,
                            total["refused"], total["said"], silent, total["silent-differs"],
                            total["crash"], len(accept)))
    for f in (failures + accept)[:40]:
        print("  " + f)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"mutants": len(mutants), "damaged": n_dmg, "runs": len(results),
                       "seconds": round(secs, 1), "silent": silent,
                       "silent_differs": total["silent-differs"], "crashes": total["crash"],
                       "accept_failures": len(accept),
                       "by": {"/".join(k): dict(v) for k, v in by.items()}}, f, indent=1)
    return 1 if failures or accept else 0


TF = {}
if __name__ == "__main__":
    sys.exit(main())
