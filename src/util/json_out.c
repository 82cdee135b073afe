/* json_out.c — see json_out.h. */
#include "json_out.h"

#include <inttypes.h>
#include <math.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>

#include "text_esc.h"

void json_init(struct json_out *j, FILE *f, int pretty)
{
    memset(j, 0, sizeof *j);
    j->f = f;
    j->pretty = pretty;
    /* The CLI writes each stream from one thread: stdio's per-call locking was a third of
     * the Perfetto export's time (millions of small writes). The writes below use the
     * _unlocked calls too: fputc and fwrite still paid a function call and checks per byte. */
    __fsetlocking(f, FSETLOCKING_BYCALLER);
}

/* Decimal digits of v, written with one fwrite (fprintf's parsing cost more than the work). */
static void put_u64(FILE *f, uint64_t v, int negative)
{
    char buf[24], *p = buf + sizeof buf;
    do
        *--p = (char)('0' + v % 10);
    while (v /= 10);
    if (negative) *--p = '-';
    fwrite_unlocked(p, 1, (size_t)(buf + sizeof buf - p), f);
}

static void newline_indent(struct json_out *j)
{
    if (!j->pretty) return;
    putc_unlocked('\n', j->f);
    for (int i = 0; i < j->depth; i++)
        fputs_unlocked("  ", j->f);
}

/* Everything that precedes a value or a key: the separator and the indentation. */
static void before_item(struct json_out *j, int is_key)
{
    if (j->after_key) {
        if (is_key) j->misuse = 1;
        j->after_key = 0;
        return; /* the value follows its key on the same line */
    }
    if (j->depth > 0) {
        if (j->has_items[j->depth]) putc_unlocked(',', j->f);
        newline_indent(j);
    } else if (j->has_items[0] && !is_key) {
        putc_unlocked('\n', j->f); /* several top-level values: one per line */
    }
    j->has_items[j->depth] = 1;
}

static void open_container(struct json_out *j, char c)
{
    before_item(j, 0);
    putc_unlocked(c, j->f);
    if (j->depth >= JSON_MAX_DEPTH) {
        j->misuse = 1;
        return;
    }
    j->depth++;
    j->has_items[j->depth] = 0;
}

static void close_container(struct json_out *j, char c)
{
    if (j->depth == 0 || j->after_key) {
        j->misuse = 1;
        return;
    }
    int had_items = j->has_items[j->depth];
    j->depth--;
    if (had_items) newline_indent(j);
    putc_unlocked(c, j->f);
}

void json_begin_object(struct json_out *j)
{
    open_container(j, '{');
}

void json_end_object(struct json_out *j)
{
    close_container(j, '}');
}

void json_begin_array(struct json_out *j)
{
    open_container(j, '[');
}

void json_end_array(struct json_out *j)
{
    close_container(j, ']');
}

/* The escape for code point cp inside a JSON string, or NULL when it is written raw. */
static const char *json_escape_for(uint32_t cp, char *tmp, size_t cap)
{
    switch (cp) {
    case '"':
        return "\\\"";
    case '\\':
        return "\\\\";
    case '\n':
        return "\\n";
    case '\r':
        return "\\r";
    case '\t':
        return "\\t";
    case '\b':
        return "\\b";
    case '\f':
        return "\\f";
    case UTF8_INVALID:
        return "\\ufffd";
    default:
        break;
    }
    if (!text_cp_is_unsafe(cp)) return NULL;
    snprintf(tmp, cap, "\\u%04x", (unsigned)cp); /* all unsafe code points are in the BMP */
    return tmp;
}

/* 1 for the bytes written as they are: printable ASCII but the quote and the backslash. A
 * table rather than four comparisons: this loop sees every byte of every name exported. */
#define JSON_PLAIN_RANGE(b) ((b) >= 0x20 && (b) < 0x7f && (b) != '"' && (b) != '\\')
static const unsigned char json_plain[256] = {
#define P1(b) JSON_PLAIN_RANGE(b)
#define P4(b) P1(b), P1(b + 1), P1(b + 2), P1(b + 3)
#define P16(b) P4(b), P4(b + 4), P4(b + 8), P4(b + 12)
#define P64(b) P16(b), P16(b + 16), P16(b + 32), P16(b + 48)
    P64(0), P64(64), P64(128), P64(192)
#undef P64
#undef P16
#undef P4
#undef P1
};

/* Writes the string, escaping what must be; bytes that need no escape are written in runs
 * (one fwrite per run, not per character: dump --json writes millions of strings). */
static void write_string_body(struct json_out *j, const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    char tmp[8];
    size_t run = 0; /* start of the pending run of bytes written as they are */
    putc_unlocked('"', j->f);
    for (size_t i = 0; i < n;) {
        if (json_plain[p[i]]) {
            i++; /* the common case: plain ASCII */
            continue;
        }
        uint32_t cp;
        size_t len = utf8_decode(p + i, n - i, &cp);
        const char *esc = json_escape_for(cp, tmp, sizeof tmp);
        if (esc) {
            fwrite_unlocked(p + run, 1, i - run, j->f);
            fputs_unlocked(esc, j->f);
            run = i + len;
        }
        i += len;
    }
    fwrite_unlocked(p + run, 1, n - run, j->f);
    putc_unlocked('"', j->f);
}

void json_key(struct json_out *j, const char *key)
{
    if (j->depth == 0) j->misuse = 1;
    before_item(j, 1);
    write_string_body(j, key, strlen(key));
    fputs_unlocked(j->pretty ? ": " : ":", j->f);
    j->after_key = 1;
}

void json_string_n(struct json_out *j, const char *s, size_t n)
{
    before_item(j, 0);
    write_string_body(j, s, n);
}

void json_string(struct json_out *j, const char *s)
{
    if (!s) {
        json_null(j);
        return;
    }
    json_string_n(j, s, strlen(s));
}

void json_u64(struct json_out *j, uint64_t v)
{
    before_item(j, 0);
    put_u64(j->f, v, 0);
}

void json_i64(struct json_out *j, int64_t v)
{
    before_item(j, 0);
    put_u64(j->f, v < 0 ? 0 - (uint64_t)v : (uint64_t)v, v < 0);
}

void json_double(struct json_out *j, double v)
{
    if (!isfinite(v)) {
        json_null(j); /* JSON has no NaN or Infinity */
        return;
    }
    before_item(j, 0);
    /* The shortest of %.15g / %.17g that reads back as the same double. */
    char buf[32];
    snprintf(buf, sizeof buf, "%.15g", v);
    if (strtod(buf, NULL) != v) snprintf(buf, sizeof buf, "%.17g", v);
    fputs_unlocked(buf, j->f);
}

void json_ns_as_us(struct json_out *j, int64_t ns)
{
    before_item(j, 0);
    char buf[32], *p = buf + sizeof buf;
    uint64_t v = ns < 0 ? 0 - (uint64_t)ns : (uint64_t)ns;
    for (int i = 0; i < 3; i++, v /= 10)
        *--p = (char)('0' + v % 10);
    *--p = '.';
    do
        *--p = (char)('0' + v % 10);
    while (v /= 10);
    if (ns < 0) *--p = '-';
    fwrite_unlocked(p, 1, (size_t)(buf + sizeof buf - p), j->f);
}

void json_bool(struct json_out *j, int v)
{
    before_item(j, 0);
    fputs_unlocked(v ? "true" : "false", j->f);
}

void json_null(struct json_out *j)
{
    before_item(j, 0);
    fputs_unlocked("null", j->f);
}

void json_kv_string(struct json_out *j, const char *key, const char *s)
{
    json_key(j, key);
    json_string(j, s);
}

void json_kv_u64(struct json_out *j, const char *key, uint64_t v)
{
    json_key(j, key);
    json_u64(j, v);
}

void json_kv_i64(struct json_out *j, const char *key, int64_t v)
{
    json_key(j, key);
    json_i64(j, v);
}

void json_kv_bool(struct json_out *j, const char *key, int v)
{
    json_key(j, key);
    json_bool(j, v);
}

void json_kv_double(struct json_out *j, const char *key, double v)
{
    json_key(j, key);
    json_double(j, v);
}

int json_finish(struct json_out *j)
{
    int bad = j->misuse || j->depth != 0 || j->after_key;
    putc_unlocked('\n', j->f);
    j->has_items[0] = 0; /* the next value starts a new document */
    return bad ? -1 : 0;
}
