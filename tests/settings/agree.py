#!/usr/bin/env python3
"""agree.py: every consumer of the settings table agrees with it (issue #42, item 1).

  agree.py --stepscope BIN --gen SETTINGS_GEN --src SRC --man SCD_DIR [--nvtx-prog PROG]
           --work DIR

The table is src/trace/sst_settings.h, read through `settings_gen rows`. Fails (one line per
difference) when:
  variables   a STEPSCOPE_* name in the product's code (src/, tools/, python/: C, Python, the
              completions) is no row's variable nor a known name that is not one (macros, nsys
              keys: NOT_VARIABLES below);
  readers     a row's readers (COLLECTOR, SHIM, RECORD/CLI) and the code that uses it differ:
              a part uses a row it is not said to read (it would get the default), or a row
              says a part reads it and that part never uses it;
  python      python/stepscope/_settings_rows.py is not what the table makes of it now;
  grammar     the shim's parser (python/stepscope/_settings.py) and the C grammar read a value
              differently (every shim row, over the same probes), or say a problem otherwise;
  help        record --help lacks an option row (its ARG, its words, its default) or shows an
              option that is no row; a row's check does not refuse a value that is not one;
  man         record's man page (as built) lacks an option row or a user variable that record,
              the collector or the shim reads; a user variable of another verb is in no man
              page or docs/*.md;
  completion  bash's or zsh's completion does not offer an option row's words;
  env         (with --nvtx-prog) the collector's ENV record of a run with record's defaults,
              and of one with every option given, differs from the table's values.
Test-only variables of the test harness (STEPSCOPE_TEST_*) live in tests/ and are not read by
the product; the product's own hooks for tests and benchmarks are rows (flag TEST).
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys

S_COLLECTOR, S_SHIM, S_RECORD, S_CLI = 0x01, 0x02, 0x04, 0x08
S_ENV, S_ENV_CUDA, S_INTERNAL, S_TEST, S_NO_VAR = 0x10, 0x20, 0x40, 0x80, 0x100

# STEPSCOPE_* names in the code that are no variable (a trailing _ is a prefix).
NOT_VARIABLES = {
    "STEPSCOPE_VERSION": "the CLI's version, a macro from CMake",
    "STEPSCOPE_PYTHON_DIR_DEFAULT": "record's shim folder in the build tree, a macro",
    "STEPSCOPE_PKGLIB_REL": "where record finds the collector when installed, a macro",
    "STEPSCOPE_CATEGORY_PYSHIM": "an NVTX category of the markers header",
    "STEPSCOPE_CAPTURE_": "nsys export's STEPSCOPE_CAPTURE_<n> rows",
    "STEPSCOPE_DAMAGE_": "nsys export's STEPSCOPE_DAMAGE_<KIND> rows",
    "STEPSCOPE_DAMAGE_SAID": "an nsys export row",
    "STEPSCOPE_DROPPED": "an nsys export row",
    "STEPSCOPE_TRACE_STATE": "an nsys export row",
    "STEPSCOPE_TRACE": "a merged nsys export's STEPSCOPE_TRACE<i>_<KEY> rows",
}
NAME = re.compile(r"STEPSCOPE_[A-Z0-9_]+")
GENERATORS = ("src/trace/sst_settings.c", "src/trace/sst_settings.h",
              "tools/install/settings_gen.c")

errors = []


def fail(what, msg):
    errors.append("%s: %s" % (what, msg))


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def product_files(src, exts):
    for top in ("src", "tools", "python"):
        for d, _, names in os.walk(os.path.join(src, top)):
            for n in sorted(names):
                if n.endswith(exts) or n in ("stepscope.bash", "_stepscope"):
                    path = os.path.join(d, n)
                    yield os.path.relpath(path, src), open(path, errors="replace").read()


# ---- variables and readers ----

def check_variables(rows, src):
    envs = {r["env"] for r in rows if r["env"]}
    for rel, text in product_files(src, (".c", ".h", ".py")):
        for name in sorted(set(NAME.findall(text))):
            if name in envs or name in NOT_VARIABLES:
                continue
            if name.endswith("_") and any(e.startswith(name) for e in envs):
                continue  # a family named by its prefix: STEPSCOPE_FOREIGN_*
            fail("variables", "%s names %s, which is no row of the settings table" % (rel, name))


def uses(src):
    """Where each row is used: {"collector"|"shim"|"cli": set of ids}."""
    out = {"collector": set(), "shim": set(), "cli": set()}
    for rel, text in product_files(src, (".c", ".h", ".py")):
        if rel in GENERATORS:
            continue
        if rel.startswith("src/collect/"):
            out["collector"] |= set(re.findall(r"SST_SET_([A-Z0-9_]+)", text))
        elif rel.startswith("tools/"):
            out["cli"] |= set(re.findall(r"SST_SET_([A-Z0-9_]+)", text))
        elif rel.startswith("python/") and not os.path.basename(rel).startswith("_settings"):
            out["shim"] |= set(re.findall(r"_settings\.(?:get|env|parse)\(\s*\"([A-Z0-9_]+)\"",
                                          text))
            out["shim"] |= set(re.findall(r"\(\"[A-Z0-9_]+\", \"([A-Z0-9_]+)\"\)", text))
    return out


def check_readers(rows, src):
    used = uses(src)
    for r in rows:
        f, rid = r["flags"], r["id"]
        if r["option"] and rid in used["cli"]:
            used["cli"].discard(rid)  # record's own option (record_options.c sets its variable)
            f |= S_RECORD
        for part, flag in (("collector", S_COLLECTOR), ("shim", S_SHIM),
                           ("cli", S_RECORD | S_CLI)):
            said, done = bool(f & flag), rid in used[part]
            if done and not said:
                fail("readers", "%s uses %s, which the table does not say it reads (it gets the "
                     "default)" % (part, rid))
            if said and not done and not (part == "cli" and r["option"]):
                fail("readers", "the table says %s reads %s; no code there uses it" % (part, rid))


# ---- the shim ----

def check_python(gen, src, work):
    out = os.path.join(work, "_settings_rows.py")
    if run([gen, "python", out]).returncode != 0:
        return fail("python", "settings_gen python failed")
    committed = os.path.join(src, "python", "stepscope", "_settings_rows.py")
    if open(out).read() != open(committed).read():
        fail("python", "python/stepscope/_settings_rows.py is stale: cmake --build build "
             "--target settings_py")


PROBES = ["", "0", "1", "2", "8", "100", "1000", "1001", "off", "OFF", "no", "false", "2.5",
          " 5", "5 ", "-1", "+1", "auto", "gil", "8:1", "8:", ":1", "1001:2", "8:1:2", "x",
          "0x10", "99999999999999999999", "1" * 40, "18446744073709551615",
          "18446744073709551616"]


def py_canonical(rows_py, name, v):
    """What settings_gen parse prints for a Python Value: rc, word, num, pid, shown."""
    _, kind, values, _, _ = rows_py[name]
    alts = values.split("|") if values else []
    value = v.value
    if kind == "step_pid" and value:
        return (v.given, -1, value[0], value[1], "")
    if isinstance(value, str) and kind == "choice":
        return (v.given, alts.index(value), 0, 0, value)
    if isinstance(value, int):
        return (v.given, -1, value, 0, str(value))
    return (v.given, -1, 0, 0, value or "")


def check_grammar(gen, src):
    sys.path.insert(0, os.path.join(src, "python"))
    from stepscope import _settings, _settings_rows  # noqa: E402
    lines = ["%s\t%s" % (n, p) for n in _settings_rows.ROWS for p in PROBES]
    got = run([gen, "parse"], input="\n".join(lines) + "\n")
    if got.returncode != 0:
        return fail("grammar", "settings_gen parse: %s" % got.stderr.strip())
    for line in got.stdout.splitlines():
        name, text, rc, word, num, pid, shown, problem = (line.split("\t") + [""])[:8]
        v = _settings.parse(name, text)
        want = (int(rc), int(word), int(num), int(pid), shown)
        have = py_canonical(_settings_rows.ROWS, name, v)
        if _settings_rows.ROWS[name][1] == "step_pid":  # C shows its text, the shim a pair
            have, want = have[:4], want[:4]
        if have != want:
            fail("grammar", "%s=%r: C reads %s, the shim %s" % (name, text, want, have))
        if (v.problem or "") != problem:
            fail("grammar", "%s=%r: C says %r, the shim %r" % (name, text, problem, v.problem))


# ---- record's help and checks ----

def help_entries(text):
    """{"--opt": (arg, [description lines])} of record --help."""
    out, cur = {}, None
    for line in text.splitlines():
        m = re.match(r"  (?:-\w, )?    ?(--[\w-]+)(?: (\S+))?\s{2,}(.*)$", line) or \
            re.match(r"  (?:-\w, )(--[\w-]+)(?: (\S+))?\s{2,}(.*)$", line)
        if m:
            cur = m.group(1)
            out[cur] = (m.group(2), [m.group(3)])
        elif cur and line.startswith(" " * 25):
            out[cur][1].append(line.strip())
    return out


def check_help(rows, ss):
    text = run([ss, "record", "--help"]).stdout
    entries = help_entries(text)
    options = {"--" + r["option"]: r for r in rows if r["option"]}
    for opt in sorted(set(entries) - set(options)):
        fail("help", "record --help shows %s, which is no row" % opt)
    for opt, r in sorted(options.items()):
        if opt not in entries:
            fail("help", "record --help lacks %s" % opt)
            continue
        arg, lines = entries[opt]
        if arg != r["arg"]:
            fail("help", "%s shows %s, the row's ARG is %s" % (opt, arg, r["arg"]))
        want = ([r["lead"]] if r["lead"] else []) + [r["describe"]]
        if [lines[0], " ".join(lines[1:])] != want and [" ".join(lines)] != want:
            fail("help", "%s says %r, the row %r" % (opt, lines, want))
        if r["arg"] and r["type"] != "text":
            bad = run([ss, "record", opt, "x!", "--", "true"])
            must = "%s must be %s, not 'x!'" % (opt, r["must"])
            if bad.returncode != 2 or must not in bad.stderr:
                fail("help", "record %s x! exits %d: %s" % (opt, bad.returncode, bad.stderr))


# ---- man pages and docs ----

def check_man(rows, src, mandir):
    page = open(os.path.join(mandir, "stepscope-record.1.scd")).read()
    opts = page.split("# OPTIONS", 1)[1].split("\n# ", 1)[0]
    envs = page.split("# ENVIRONMENT", 1)[1].split("\n# ", 1)[0]
    docs = ""
    for d in (mandir, os.path.join(src, "docs")):
        docs += "".join(open(os.path.join(d, n)).read() for n in os.listdir(d)
                        if n.endswith((".scd", ".md")))
    for r in rows:
        user = r["env"] and not r["flags"] & (S_INTERNAL | S_TEST | S_NO_VAR)
        escaped = (r["env"] or "").replace("_", "\\_")
        if r["option"] and "*--%s*" % r["option"] not in opts:
            fail("man", "stepscope-record(1) OPTIONS lacks --%s" % r["option"])
        elif user and not r["option"] and r["flags"] & (S_COLLECTOR | S_SHIM | S_RECORD):
            if "*%s*" % escaped not in envs:
                fail("man", "stepscope-record(1) ENVIRONMENT lacks %s" % r["env"])
        elif user and r["env"] not in docs and escaped not in docs:
            fail("man", "%s is in no man page and no docs/*.md" % r["env"])


# ---- completions ----

def completions(src, ss, opt):
    bash = run(["bash", "-c", '. "$1"; COMP_WORDS=("$2" record "$3" ""); COMP_CWORD=3; '
                '_stepscope; echo "${COMPREPLY[*]}"', "_",
                os.path.join(src, "tools/install/stepscope.bash"), ss, opt]).stdout.split()
    zsh = None
    if run(["sh", "-c", "command -v zsh"]).returncode == 0:
        zsh = run(["zsh", "-c", '_values() { shift; print -r -- "$*" }; _files() {}; '
                   'compadd() {}; _describe() {}; _normal() {}; words=("$1" record "$2" ""); '
                   'CURRENT=4; PREFIX=""; source "$3"', "_", ss, opt,
                   os.path.join(src, "tools/install/_stepscope")]).stdout.split()
    return bash, zsh


def check_completion(rows, src, ss):
    for r in rows:
        if not (r["option"] and r["lead"]):
            continue
        want = [w.split(":")[0] + ":" if ":" in w else w for w in r["lead"].split(" | ")
                if w[:1].isalpha()]
        bash, zsh = completions(src, os.path.abspath(ss), "--" + r["option"])
        if bash != want:
            fail("completion", "bash offers %s after --%s, the row %s" % (bash, r["option"], want))
        if zsh is not None and zsh != want:
            fail("completion", "zsh offers %s after --%s, the row %s" % (zsh, r["option"], want))


# ---- the collector's ENV record ----

def env_of(ss, args, work, name, extra_env=None):
    out = os.path.join(work, name)
    shutil.rmtree(out, ignore_errors=True)  # only this run's trace there
    env = dict(os.environ, **(extra_env or {}))
    for r in list(env):
        if r.startswith("STEPSCOPE_") and r not in (extra_env or {}):
            del env[r]
    rec = run([ss, "record", "-q", "-o", out] + args, env=env)
    traces = [os.path.join(out, n) for n in os.listdir(out) if n.endswith(".sstrace")] \
        if os.path.isdir(out) else []
    if not traces:
        fail("env", "record %s wrote no trace: %s" % (args, rec.stderr))
        return {}, rec.stderr
    kv = {}
    for line in run([ss, "dump", "--json", "-t", "env,notice", traces[0]]).stdout.splitlines():
        rec_ = json.loads(line)
        if "key" in rec_:
            kv[rec_["key"]] = rec_["value"]
        elif "message" in rec_:
            kv.setdefault("notices", []).append(rec_["message"])
    return kv, rec.stderr


def shown(gen, rid, text):
    line = run([gen, "parse"], input="%s\t%s\n" % (rid, text)).stdout.rstrip("\n")
    return line.split("\t")[6]


def check_env(rows, gen, ss, prog, work):
    given = {"CAPTURE": "all", "MODE": "light", "MEMORY_CAP": "32M", "SAMPLE_HZ": "5",
             "LAUNCH_SAMPLE": "3"}
    runs = (("defaults", [], {"LAUNCH_SAMPLE": "1"}),  # a window records every launch
            ("given", sum((["--" + r["option"], given[r["id"]]] for r in rows
                           if r["id"] in given), []), given))
    env_rows = [r for r in rows if r["flags"] & S_ENV]
    for name, args, want in runs:
        kv, _ = env_of(ss, args + ["--", prog, "steps"], work, name)
        for r in env_rows:
            text = want.get(r["id"], r["record"] or r["default"])
            value = shown(gen, r["id"], text)
            if value and kv.get(r["env_key"]) != value:
                fail("env", "%s run: ENV %s is %r, the table's %r" % (name, r["env_key"],
                                                                     kv.get(r["env_key"]), value))
    missing = [r["id"] for r in rows if r["flags"] & S_ENV and not r["env_key"]]
    if missing:
        fail("env", "rows %s go to the ENV record without a key" % missing)
    kv, err = env_of(ss, ["--", prog, "steps"], work, "invalid", {"STEPSCOPE_WAKE_MS": "5"})
    said = "STEPSCOPE_WAKE_MS must be a number from 10 to 1000, not '5': using the default"
    if said not in err or said not in kv.get("notices", []):
        fail("env", "an invalid STEPSCOPE_WAKE_MS is not said on stderr and in the trace: %r"
             % err)


def main():
    ap = argparse.ArgumentParser()
    for a in ("--stepscope", "--gen", "--src", "--man", "--work"):
        ap.add_argument(a, required=True)
    ap.add_argument("--nvtx-prog")
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    rows = [json.loads(x) for x in run([a.gen, "rows"]).stdout.splitlines()]
    if not rows:
        print("FAIL: settings_gen rows gave nothing")
        return 1
    check_variables(rows, a.src)
    check_readers(rows, a.src)
    check_python(a.gen, a.src, a.work)
    check_grammar(a.gen, a.src)
    check_help(rows, a.stepscope)
    check_man(rows, a.src, a.man)
    check_completion(rows, a.src, a.stepscope)
    if a.nvtx_prog:
        check_env(rows, a.gen, a.stepscope, a.nvtx_prog, a.work)
    for e in errors:
        print("FAIL: " + e)
    print("settings: %d rows, %d disagreements%s" % (len(rows), len(errors),
          "" if a.nvtx_prog else " (no collector: ENV not checked)"))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
