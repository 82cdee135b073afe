#!/usr/bin/env python3
"""man_check.py STEPSCOPE MANDIR: the man pages (docs/man/*.scd) against the CLI's --help.

Fails (exit 1, one line per difference) when
  - the verbs of `stepscope --help` and the pages stepscope-VERB.1.scd differ, or a page's NAME
    line is not the verb's one-line summary, or stepscope(1) does not list every verb;
  - an option of `stepscope VERB --help` (its option column) is not an entry of the page's
    OPTIONS section, or an entry there is not in --help;
  - a long option named anywhere in --help is missing from the page, or the page (outside
    EXAMPLES and SEE ALSO) names a long option that --help does not.
"""
import os
import re
import subprocess
import sys

LONG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")
SHORT = re.compile(r"(?<![\w-])-[A-Za-z](?![\w-])")


def run_help(ss, *verb):
    out = subprocess.run([ss, *verb, "--help"], capture_output=True, text=True, check=True)
    return out.stdout


def verbs_of(top_help):
    """(name, summary) of each verb listed under 'verbs:'."""
    block = top_help.split("verbs:\n", 1)[1].split("\n\n", 1)[0]
    return [tuple(re.match(r"  (\S+)\s+(.*)", ln).groups()) for ln in block.splitlines()]


def help_option_column(text):
    """The options of --help's option lines: the text before the description column."""
    opts = set()
    for line in text.splitlines():
        m = re.match(r"\s+(-\S.*)$", line)
        if m:
            head = re.split(r"\s{2,}", m.group(1))[0]
            opts |= set(LONG.findall(head)) | set(SHORT.findall(head))
    return opts


def sections(scd):
    """{title: text} of the page's '# TITLE' sections."""
    out, title = {}, ""
    for line in scd.splitlines():
        m = re.match(r"# (.+)", line)
        if m:
            title = m.group(1)
            out[title] = ""
        else:
            out[title] = out.get(title, "") + line + "\n"
    return out


def page_option_entries(sec):
    """Options of the OPTIONS section's entries: lines starting with '*-'."""
    opts = set()
    for line in sec.get("OPTIONS", "").splitlines():
        if line.startswith("*-"):
            opts |= set(LONG.findall(line)) | set(SHORT.findall(line))
    return opts


def check_page(name, scd, help_text, column, errors):
    sec = sections(scd)
    entries = page_option_entries(sec)
    for o in sorted(column - entries):
        errors.append("%s: %s is in --help but not an entry of OPTIONS" % (name, o))
    for o in sorted(entries - column):
        errors.append("%s: OPTIONS lists %s, which --help does not" % (name, o))
    body = "".join(t for k, t in sec.items() if k not in ("EXAMPLES", "SEE ALSO"))
    help_long, page_long = set(LONG.findall(help_text)), set(LONG.findall(body))
    for o in sorted(help_long - page_long):
        errors.append("%s: --help names %s, the page does not" % (name, o))
    for o in sorted(page_long - help_long):
        errors.append("%s: the page names %s, which --help does not" % (name, o))


def main():
    ss, mandir = sys.argv[1], sys.argv[2]
    errors = []
    top = run_help(ss)
    verbs = verbs_of(top)
    pages = {f[len("stepscope-"):-len(".1.scd")] for f in os.listdir(mandir)
             if f.startswith("stepscope-") and f.endswith(".1.scd")}
    names = {v for v, _ in verbs}
    for v in sorted(names - pages):
        errors.append("verb %s has no page stepscope-%s.1.scd" % (v, v))
    for v in sorted(pages - names):
        errors.append("page stepscope-%s.1.scd is of no verb in `stepscope --help`" % v)
    main_page = open(os.path.join(mandir, "stepscope.1.scd")).read()
    listed = set(re.findall(r"^\*([a-z]+)\*", sections(main_page).get("VERBS", ""), re.M))
    for v in sorted(names ^ (listed - {"help"})):
        errors.append("stepscope(1) VERBS and `stepscope --help` differ on %s" % v)
    usage = "\n".join(top.split("\n\n", 1)[0].splitlines()[1:])  # the line after the first
    check_page("stepscope(1)", main_page, top, set(LONG.findall(usage) + SHORT.findall(usage)),
               errors)
    for verb, summary in verbs:
        path = os.path.join(mandir, "stepscope-%s.1.scd" % verb)
        if not os.path.exists(path):
            continue
        scd = open(path).read()
        name_line = sections(scd).get("NAME", "").strip()
        if name_line != "stepscope-%s - %s" % (verb, summary):
            errors.append("stepscope-%s(1) NAME is '%s', the summary is '%s'"
                          % (verb, name_line, summary))
        text = run_help(ss, verb)
        check_page("stepscope-%s(1)" % verb, scd, text, help_option_column(text), errors)
    for e in errors:
        print("FAIL: " + e)
    print("man pages: %d verbs checked, %d differences" % (len(verbs), len(errors)))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
