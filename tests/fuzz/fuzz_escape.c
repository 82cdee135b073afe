/*
 * fuzz_escape.c — libFuzzer target: the escapers every string from a trace goes through,
 * checked against exact oracles (the target aborts when one is violated).
 *
 *   JSON (json_out.c, json_string_n): the output is one JSON string token with no raw
 *     control character and no raw terminal-unsafe code point, valid UTF-8, and decoding it
 *     gives back the input with each byte that is not UTF-8 replaced by U+FFFD.
 *   HTML (html_escaped): no raw < > " ' and every & starts one of the entities it writes;
 *     no control bytes; valid UTF-8 (the input up to its first NUL).
 *   Markdown (md_escaped): as HTML, plus no raw ` * _ [ ] | # ~ ! \ that is not escaped
 *     and no newline.
 *   Text (text_write_escaped, text_escape_to): printable only, valid UTF-8, no unsafe code
 *     point; text_escape_to stays inside its buffer for every capacity 0..80.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_out.h"
#include "report.h"
#include "text_esc.h"

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "fuzz_escape: %s:%d: %s\n", __FILE__, __LINE__, #cond);                \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

/* Writes through fn into a heap buffer (open_memstream); *n is its length. Caller frees. */
#define CAPTURE(out, n, call)                                                                      \
    do {                                                                                           \
        FILE *f_ = open_memstream(&(out), &(n));                                                   \
        CHECK(f_ != NULL);                                                                         \
        FILE *f = f_;                                                                              \
        call;                                                                                      \
        CHECK(fclose(f_) == 0);                                                                    \
    } while (0)

static void put_utf8(uint32_t cp, char *dst, size_t *len)
{
    unsigned char *o = (unsigned char *)dst + *len;
    if (cp < 0x80) {
        o[0] = (unsigned char)cp, *len += 1;
    } else if (cp < 0x800) {
        o[0] = (unsigned char)(0xC0 | cp >> 6), o[1] = (unsigned char)(0x80 | (cp & 0x3F));
        *len += 2;
    } else if (cp < 0x10000) {
        o[0] = (unsigned char)(0xE0 | cp >> 12), o[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
        o[2] = (unsigned char)(0x80 | (cp & 0x3F)), *len += 3;
    } else {
        o[0] = (unsigned char)(0xF0 | cp >> 18), o[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
        o[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F)),
        o[3] = (unsigned char)(0x80 | (cp & 0x3F));
        *len += 4;
    }
}

/* Walks s as UTF-8: every sequence valid (decoder agrees), and calls no unsafe code point
 * or control byte acceptable unless allow_unsafe. */
static void check_utf8_safe(const char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        uint32_t cp;
        size_t len = utf8_decode((const unsigned char *)s + i, n - i, &cp);
        CHECK(cp != UTF8_INVALID);
        CHECK(!text_cp_is_unsafe(cp));
        i += len;
    }
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static uint32_t hex4(const char *p)
{
    uint32_t v = 0;
    for (int k = 0; k < 4; k++) {
        int h = hexval(p[k]);
        CHECK(h >= 0);
        v = v << 4 | (uint32_t)h;
    }
    return v;
}

/* Decodes one JSON string token (the whole of s[0..n) minus a trailing newline) strictly;
 * returns the decoded bytes (UTF-8) in a malloc'd buffer. */
static char *json_decode(const char *s, size_t n, size_t *out_len)
{
    if (n && s[n - 1] == '\n') n--;
    CHECK(n >= 2 && s[0] == '"' && s[n - 1] == '"');
    char *out = malloc(n * 2 + 4);
    CHECK(out != NULL);
    size_t len = 0;
    for (size_t i = 1; i < n - 1;) {
        unsigned char c = (unsigned char)s[i];
        CHECK(c >= 0x20 && c != '"');
        if (c != '\\') {
            out[len++] = (char)c;
            i++;
            continue;
        }
        CHECK(i + 1 < n - 1);
        char e = s[i + 1];
        const char *simple = strchr("\"\\/bfnrt", e);
        if (e && simple) {
            static const char map[] = "\"\\/\b\f\n\r\t";
            out[len++] = map[simple - "\"\\/bfnrt"];
            i += 2;
            continue;
        }
        CHECK(e == 'u' && i + 6 <= n - 1);
        uint32_t cp = hex4(s + i + 2);
        i += 6;
        if (cp >= 0xD800 && cp <= 0xDBFF) { /* a surrogate pair */
            CHECK(i + 6 <= n - 1 && s[i] == '\\' && s[i + 1] == 'u');
            uint32_t lo = hex4(s + i + 2);
            CHECK(lo >= 0xDC00 && lo <= 0xDFFF);
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            i += 6;
        } else {
            CHECK(cp < 0xDC00 || cp > 0xDFFF);
        }
        put_utf8(cp, out, &len);
    }
    *out_len = len;
    return out;
}

static void check_json(const uint8_t *data, size_t size)
{
    char *out = NULL;
    size_t n = 0;
    CAPTURE(out, n, {
        struct json_out j;
        json_init(&j, f, 0);
        json_string_n(&j, (const char *)data, size);
        CHECK(json_finish(&j) == 0);
    });
    /* raw bytes of the token: UTF-8, and nothing a terminal would act on */
    check_utf8_safe(out, n && out[n - 1] == '\n' ? n - 1 : n);
    size_t dlen;
    char *dec = json_decode(out, n, &dlen);
    /* the oracle: the input with every invalid byte as U+FFFD */
    char *want = malloc(size * 3 + 1);
    CHECK(want != NULL);
    size_t wlen = 0;
    for (size_t i = 0; i < size;) {
        uint32_t cp;
        size_t len = utf8_decode(data + i, size - i, &cp);
        if (cp == UTF8_INVALID)
            put_utf8(0xFFFD, want, &wlen);
        else
            memcpy(want + wlen, data + i, len), wlen += len;
        i += len;
    }
    CHECK(dlen == wlen && memcmp(dec, want, wlen) == 0);
    free(want);
    free(dec);
    free(out);
}

static const char *const k_entities[] = {"&amp;", "&lt;", "&gt;", "&quot;", "&#39;", "&#xFFFD;"};

static void check_html_like(const char *out, size_t n, int md)
{
    for (size_t i = 0; i < n; i++) {
        char c = out[i];
        CHECK(c != '<' && c != '>' && c != '"' && c != '\'');
        if (c == '&') {
            size_t skip = 0;
            for (size_t k = 0; k < sizeof k_entities / sizeof k_entities[0]; k++)
                if (strncmp(out + i, k_entities[k], strlen(k_entities[k])) == 0)
                    skip = strlen(k_entities[k]);
            CHECK(skip > 0);
            i += skip - 1;
            continue;
        }
        if (md && c == '\\') { /* an escape: the next byte is the escaped one */
            CHECK(i + 1 < n && strchr("\\`*_[]|#~!", out[i + 1]) != NULL);
            i++;
        } else if (md) {
            CHECK(!strchr("`*_[]|#~!", c) || c == '\0');
        }
    }
    check_utf8_safe(out, n);
}

static void check_html_md(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    CHECK(s != NULL);
    memcpy(s, data, size);
    s[size] = '\0'; /* the escapers take C strings: up to the first NUL */
    char *out = NULL;
    size_t n = 0;
    CAPTURE(out, n, html_escaped(f, s));
    check_html_like(out, n, 0);
    free(out);
    out = NULL;
    CAPTURE(out, n, md_escaped(f, s));
    check_html_like(out, n, 1);
    free(out);

    out = NULL;
    CAPTURE(out, n, text_write_escaped(f, (const char *)data, size, 1));
    check_utf8_safe(out, n);
    free(out);
    char buf[80];
    for (size_t cap = 0; cap <= sizeof buf; cap += 1 + cap / 8) {
        char *small = malloc(cap ? cap : 1); /* exact size: ASan sees any overrun */
        CHECK(small != NULL);
        text_escape_to(small, cap, s);
        if (cap) {
            size_t len = strnlen(small, cap);
            CHECK(len < cap);
            check_utf8_safe(small, len);
        }
        free(small);
    }
    free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    check_json(data, size);
    check_html_md(data, size);
    return 0;
}
