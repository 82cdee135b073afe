#!/usr/bin/env python3
"""check_outputs.py STEPSCOPE EVIL_TRACE STRINGS_JSON BENIGN_TRACE WORKDIR

Every output of the CLI on a trace whose strings are attacks (mk_evil.c) must stay inert:

  html   no element or attribute the same report of a benign trace does not have, no on*
         attribute, no javascript: URL, no raw control byte; every attack string is present as
         text (escaped, not dropped)
  md     no raw tag from the trace, no raw control byte
  text   (report -v, info, dump, diff) no control byte but newline/tab, no bidi override or
         line/paragraph separator, valid UTF-8; the format-string attack printed literally
  json   (report, info, dump, diff, export) strict JSON (no NaN/Infinity), no raw U+2028/9; the
         strings decode to the attack bytes with each byte that is not UTF-8 as U+FFFD

Prints one line per failure and exits 1 if any.
"""
import html.parser
import json
import os
import subprocess
import sys

BIN, EVIL, STRINGS, BENIGN, WORK = sys.argv[1:6]
EVIL_BYTES = [bytes(s) for s in json.load(open(STRINGS))]
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def run(*args, out=None):
    """Runs stepscope; returns its stdout bytes. A non-zero exit is a failure."""
    p = subprocess.run([BIN, *args], capture_output=True, timeout=120)
    if p.returncode != 0:
        fail(f"stepscope {' '.join(args)}: exit {p.returncode}: {p.stderr[-300:]!r}")
    if out:
        with open(out, "rb") as f:
            return f.read()
    return p.stdout


def as_stepscope_decodes(b):
    """The text stepscope's escapers make of bytes b: text_esc.c's utf8_decode, where an
    invalid, overlong, surrogate or cut sequence consumes one byte and becomes U+FFFD."""
    out, i = [], 0
    while i < len(b):
        c = b[i]
        n = 1 if c < 0x80 else 2 if 0xC2 <= c <= 0xDF else 3 if 0xE0 <= c <= 0xEF else 4 if 0xF0 <= c <= 0xF4 else 0
        ok = n > 0 and i + n <= len(b) and all(0x80 <= x <= 0xBF for x in b[i + 1:i + n])
        if ok and n > 1:
            v = c & (0x7F >> n)
            for x in b[i + 1:i + n]:
                v = (v << 6) | (x & 0x3F)
            ok = v >= (0, 0, 0x80, 0x800, 0x10000)[n] and v <= 0x10FFFF and not 0xD800 <= v <= 0xDFFF
        if ok:
            out.append(b[i:i + n].decode("utf-8"))
            i += n
        else:
            out.append("\ufffd")
            i += 1
    return "".join(out)


UNSAFE = {0x2028, 0x2029, 0x200E, 0x200F, 0x061C} | set(range(0x202A, 0x202F)) | set(range(0x2066, 0x206A))


def check_plain_text(name, data, allow_esc=False):
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        fail(f"{name}: not UTF-8 ({e})")
        return ""
    for ch in text:
        o = ord(ch)
        if (o < 0x20 and ch not in "\n\t" and not (allow_esc and o == 0x1B)) or 0x7F <= o <= 0x9F or o in UNSAFE:
            fail(f"{name}: raw U+{o:04X} in the output")
            break
    return text


class Tags(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags, self.attrs, self.text = set(), [], []

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        self.attrs += [(tag, k, v or "") for k, v in attrs]

    def handle_data(self, data):
        self.text.append(data)


def parse_html(data):
    p = Tags()
    p.feed(data.decode("utf-8", "replace"))
    p.close()
    return p


def check_html():
    ev = run("report", "--format", "html", "-v", EVIL)
    ok = run("report", "--format", "html", "-v", BENIGN)
    check_plain_text("html", ev)
    e, b = parse_html(ev), parse_html(ok)
    extra = e.tags - b.tags
    if extra:
        fail(f"html: elements from the trace: {sorted(extra)}")
    for tag, k, v in e.attrs:
        if k.lower().startswith("on"):
            fail(f"html: event-handler attribute <{tag} {k}=...>")
        if "javascript:" in v.lower():
            fail(f"html: javascript: URL in <{tag} {k}>")
    text = "".join(e.text)
    for s in (EVIL_BYTES[0], EVIL_BYTES[1]):  # the tag attacks, shown as text
        if as_stepscope_decodes(s) not in text:
            fail(f"html: {s[:30]!r}... not shown as text")


def check_md():
    md = run("report", "--format", "md", "-v", EVIL)
    text = check_plain_text("md", md)
    for tag in ("<script", "<img", "<svg", "<style", "<a "):
        if tag in text.lower():
            fail(f"md: raw {tag} from the trace")


def check_text():
    for args in (("report", "-v", EVIL), ("info", EVIL), ("dump", EVIL), ("diff", EVIL, EVIL)):
        text = check_plain_text(" ".join(args[:1]), run(*args))
        if args[0] == "dump" and "%s%s%s%n%n%p%x%99999999d" not in text:
            fail("dump: the format-string attack is not printed literally")


def no_nan(x):
    raise ValueError(f"non-standard JSON constant {x}")


def strings_in(v, acc):
    if isinstance(v, str):
        acc.add(v)
    elif isinstance(v, list):
        for x in v:
            strings_in(x, acc)
    elif isinstance(v, dict):
        for k, x in v.items():
            acc.add(k)
            strings_in(x, acc)
    return acc


def check_json():
    export = os.path.join(WORK, "evil.perfetto.json")
    docs = {
        "report json": run("report", "--format", "json", "-v", EVIL),
        "info json": run("info", "--json", EVIL),
        "diff json": run("diff", "--format", "json", EVIL, EVIL),
        "export perfetto": run("export", "-o", export, EVIL, out=export),
    }
    dump = run("dump", "--json", EVIL)
    found = {}
    for name, data in list(docs.items()) + [("dump json", dump)]:
        if "\u2028".encode() in data or "\u2029".encode() in data:
            fail(f"{name}: raw U+2028/U+2029")
        check_plain_text(name, data)
        try:
            if name == "dump json":
                values = [json.loads(line, parse_constant=no_nan) for line in data.decode().splitlines()]
            else:
                values = json.loads(data.decode(), parse_constant=no_nan)
        except ValueError as e:
            fail(f"{name}: not strict JSON: {e}")
            continue
        found[name] = strings_in(values, set())
    want = [as_stepscope_decodes(s) for s in EVIL_BYTES]
    for i, w in enumerate(want):  # every string record, decoded exactly
        if w and w not in found.get("dump json", ()):
            fail(f"dump json: string {i} ({EVIL_BYTES[i][:24]!r}) does not decode to the attack")
    for name in ("report json", "info json"):  # the command line (string 0)
        if want[0] not in found.get(name, ()):
            fail(f"{name}: the command line does not decode to the attack")
    if not any(w in found.get("export perfetto", ()) for w in want if w):
        fail("export perfetto: no attack string decodes back")


check_html()
check_md()
check_text()
check_json()
if failures:
    sys.exit(1)
print("ok: html, md, text and json outputs of the hostile trace are inert")
