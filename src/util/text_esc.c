/* text_esc.c — see text_esc.h. */
#include "text_esc.h"

#include <string.h>

/* Length of a UTF-8 sequence from its lead byte, 0 when it cannot start one. */
static size_t utf8_seq_len(unsigned char b)
{
    if (b < 0x80) return 1;
    if (b >= 0xC2 && b <= 0xDF) return 2; /* C0/C1 would be overlong */
    if (b >= 0xE0 && b <= 0xEF) return 3;
    if (b >= 0xF0 && b <= 0xF4) return 4; /* above F4 is past U+10FFFF */
    return 0;
}

size_t utf8_decode(const unsigned char *s, size_t n, uint32_t *cp)
{
    size_t len = utf8_seq_len(s[0]);
    *cp = UTF8_INVALID;
    if (len == 0 || len > n) return 1;
    if (len == 1) {
        *cp = s[0];
        return 1;
    }
    uint32_t v = s[0] & (0x7F >> len);
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80) return 1;
        v = (v << 6) | (s[i] & 0x3F);
    }
    static const uint32_t min_for_len[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (v < min_for_len[len] || v > 0x10FFFF) return 1; /* overlong or out of range */
    if (v >= 0xD800 && v <= 0xDFFF) return 1;           /* UTF-16 surrogates */
    *cp = v;
    return len;
}

int text_cp_is_unsafe(uint32_t cp)
{
    if (cp < 0x20 || (cp >= 0x7F && cp <= 0x9F)) return 1;
    if (cp == 0x2028 || cp == 0x2029) return 1;
    if ((cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069)) return 1;
    if (cp == 0x200E || cp == 0x200F || cp == 0x061C) return 1; /* directional marks */
    return 0;
}

/* The escape for one byte that is printed as itself in C, or NULL. */
static const char *simple_escape(unsigned char c, int quoted)
{
    switch (c) {
    case '\n':
        return "\\n";
    case '\r':
        return "\\r";
    case '\t':
        return "\\t";
    case '\\':
        return "\\\\";
    case '"':
        return quoted ? "\\\"" : NULL;
    default:
        return NULL;
    }
}

/* Where escaped text goes: a FILE, or a bounded buffer for error messages. */
struct esc_sink {
    void (*put)(struct esc_sink *k, const char *s, size_t n);
    FILE *f;
    char *buf;
    size_t cap, len;
    int cut;
};

static void put_file(struct esc_sink *k, const char *s, size_t n)
{
    fwrite(s, 1, n, k->f);
}

static void put_buf(struct esc_sink *k, const char *s, size_t n)
{
    if (k->len + n >= k->cap) {
        k->cut = 1;
        return; /* stop at a whole escape so the text stays well-formed */
    }
    memcpy(k->buf + k->len, s, n);
    k->len += n;
}

/* Writes the escape for the sequence of len bytes at p (code point cp) into k; returns 0
 * when the sequence needs none and is written as it is. */
static int put_escape(struct esc_sink *k, const unsigned char *p, size_t len, uint32_t cp,
                      int quoted)
{
    char tmp[16];
    const char *esc = len == 1 ? simple_escape(p[0], quoted) : NULL;
    if (esc) {
        k->put(k, esc, strlen(esc));
    } else if (cp == UTF8_INVALID || (cp < 0x80 && text_cp_is_unsafe(cp))) {
        snprintf(tmp, sizeof tmp, "\\x%02x", p[0]); /* the raw byte helps debugging */
        k->put(k, tmp, strlen(tmp));
    } else if (text_cp_is_unsafe(cp)) {
        snprintf(tmp, sizeof tmp, "\\u{%04x}", (unsigned)cp);
        k->put(k, tmp, strlen(tmp));
    } else {
        return 0;
    }
    return 1;
}

/* A run of plain ASCII: one put for a FILE; byte by byte into a buffer, so that a cut
 * there keeps as much of the text as fits (escapes are never cut in half). */
static void put_run(struct esc_sink *k, const unsigned char *p, size_t n)
{
    if (!k->buf) {
        k->put(k, (const char *)p, n);
        return;
    }
    for (size_t i = 0; i < n && !k->cut; i++)
        k->put(k, (const char *)p + i, 1);
}

/* Bytes that need no escape go out in runs, one put per run. */
static void escape_into(struct esc_sink *k, const char *s, size_t n, int quoted)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t run = 0;
    if (quoted) k->put(k, "\"", 1);
    for (size_t i = 0; i < n && !k->cut;) {
        if (p[i] >= 0x20 && p[i] < 0x7f && p[i] != '"' && p[i] != '\\') {
            i++;
            continue;
        }
        uint32_t cp;
        size_t len = utf8_decode(p + i, n - i, &cp);
        if (i > run) put_run(k, p + run, i - run);
        if (!put_escape(k, p + i, len, cp, quoted)) k->put(k, (const char *)p + i, len);
        i += len;
        run = i;
    }
    if (run < n && !k->cut) put_run(k, p + run, n - run);
    if (quoted && !k->cut) k->put(k, "\"", 1);
}

void text_write_escaped(FILE *f, const char *s, size_t n, int quoted)
{
    struct esc_sink k = {.put = put_file, .f = f};
    escape_into(&k, s, n, quoted);
}

char *text_escape_to(char *buf, size_t cap, const char *s)
{
    if (cap < 8) {
        if (cap) buf[0] = '\0';
        return buf;
    }
    struct esc_sink k = {.put = put_buf, .buf = buf, .cap = cap - 3};
    escape_into(&k, s, strlen(s), 0);
    if (k.cut) {
        memcpy(buf + k.len, "...", 3);
        k.len += 3;
    }
    buf[k.len] = '\0';
    return buf;
}

/* ---- fitting untrusted text into one line ---- */

size_t text_columns(const char *s, size_t n)
{
    size_t cols = 0;
    for (size_t i = 0; i < n; i++) cols += ((unsigned char)s[i] & 0xc0) != 0x80;
    return cols;
}

size_t text_bytes_for_columns(const char *s, size_t cols)
{
    size_t i = 0;
    for (size_t c = 0; s[i]; i++) {
        if (((unsigned char)s[i] & 0xc0) != 0x80 && c++ == cols) break;
    }
    return i;
}

/* The byte offset where the last `cols` code points of s start. */
static size_t start_of_last_columns(const char *s, size_t len, size_t cols)
{
    size_t i = len;
    for (size_t c = 0; i > 0 && c < cols;) {
        i--;
        c += ((unsigned char)s[i] & 0xc0) != 0x80;
    }
    return i;
}

char *text_elide_path(char *buf, size_t cap, const char *s, size_t width)
{
    char esc[4096];
    text_escape_to(esc, sizeof esc, s ? s : "-");
    size_t len = strlen(esc), cols = text_columns(esc, len);
    if (cols <= width || width < 12) {
        snprintf(buf, cap, "%s", esc);
        return buf;
    }
    const char *slash = strrchr(esc, '/');
    size_t base_cols = slash ? text_columns(slash, strlen(slash)) : 0;
    size_t tail = base_cols && base_cols <= width - 8 ? base_cols : (width - 3) / 2;
    if (tail < (width - 3) / 2) tail = (width - 3) / 2; /* room left: keep more of the end */
    size_t head = width - 3 - tail;
    size_t hb = text_bytes_for_columns(esc, head), tb = start_of_last_columns(esc, len, tail);
    snprintf(buf, cap, "%.*s...%s", (int)hb, esc, esc + tb);
    return buf;
}

char *text_short_command(char *buf, size_t cap, const char *cmdline, size_t width)
{
    char esc[4096];
    if (!cmdline) cmdline = "-";
    size_t prog_len = strcspn(cmdline, " ");
    const char *base = cmdline;
    for (size_t i = 0; i < prog_len; i++)
        if (cmdline[i] == '/') base = cmdline + i + 1;
    text_escape_to(esc, sizeof esc, base); /* the program's name, then its arguments */
    size_t len = strlen(esc);
    if (text_columns(esc, len) <= width || width < 4) {
        snprintf(buf, cap, "%s", esc);
        return buf;
    }
    size_t keep = text_bytes_for_columns(esc, width - 3);
    snprintf(buf, cap, "%.*s...", (int)keep, esc);
    return buf;
}

/* ---- HTML and Markdown ---- */

const char *html_entity(uint32_t c)
{
    switch (c) {
    case '&':
        return "&amp;";
    case '<':
        return "&lt;";
    case '>':
        return "&gt;";
    case '"':
        return "&quot;";
    case '\'':
        return "&#39;";
    default:
        return NULL;
    }
}

void html_escaped(FILE *f, const char *s)
{
    if (!s) {
        fputc('-', f);
        return;
    }
    const unsigned char *p = (const unsigned char *)s;
    size_t n = strlen(s);
    for (size_t i = 0; i < n;) {
        uint32_t cp;
        size_t len = utf8_decode(p + i, n - i, &cp);
        const char *e = html_entity(cp);
        if (e)
            fputs(e, f);
        else if (cp == UTF8_INVALID || text_cp_is_unsafe(cp))
            fputs("&#xFFFD;", f);
        else
            fwrite(p + i, 1, len, f);
        i += len;
    }
}

void md_escaped(FILE *f, const char *s)
{
    if (!s) {
        fputc('-', f);
        return;
    }
    const unsigned char *p = (const unsigned char *)s;
    size_t n = strlen(s);
    for (size_t i = 0; i < n;) {
        uint32_t cp;
        size_t len = utf8_decode(p + i, n - i, &cp);
        const char *e = html_entity(cp); /* Markdown renders inline HTML */
        if (e)
            fputs(e, f);
        else if (cp < 0x80 && strchr("\\`*_[]|#~!", (int)cp))
            fprintf(f, "\\%c", (char)cp);
        else if (cp == UTF8_INVALID)
            fputs("\xEF\xBF\xBD", f);
        else if (text_cp_is_unsafe(cp))
            fputc(' ', f);
        else
            fwrite(p + i, 1, len, f);
        i += len;
    }
}
