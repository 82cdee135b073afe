/*
 * ssi_kineto_lex.c — the Kineto importer's own streaming JSON reader (it replaced yajl, issue
 * #44 item 5: yajl's tokenising alone was ~9x Python's json.load, the import had to be 10x).
 *
 * The driver appends input to a buffer (ki_lex_room / ki_lex_added), or hands a piece the feed
 * thread read (ki_lex_adopt, ssi_kineto_feed.c); ki_lex_run turns every complete token in it
 * into the parser's callbacks (ssi_kineto_parse.c) and leaves an incomplete one for the next
 * piece, so memory is the read size plus the longest token (capped at KI_TOKEN_MAX). A NUL is kept after the data, and KI_LEX_PAD
 * bytes after that: scanners stop on it without checking the length at every byte, and the
 * string scanner may read 16 bytes at a time. The grammar is strict JSON (RFC 8259, as yajl
 * read it): strings are not checked for UTF-8 (names pass through as given), escapes are
 * decoded in place, numbers are handed over as their text (timestamps converted exactly).
 */
#include <stdlib.h>
#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "ssi_kineto_internal.h"
#include "util/ss_error.h"

/* What the reader expects next. */
enum {
    S_VALUE = 0,   /* a value (the document, after ':', after ',' in an array) */
    S_FIRST_VALUE, /* after '[': a value or ']' */
    S_FIRST_KEY,   /* after '{': a key or '}' */
    S_KEY,         /* after ',' in an object */
    S_COLON,       /* after a key */
    S_AFTER,       /* after a value in a container: ',' or the close */
    S_DONE,        /* the document is complete: only whitespace may follow */
};

#define KL_MORE 1 /* the token is not complete in the buffer: read more */

int ki_lex_init(struct ki_lex *l, size_t cap)
{
    memset(l, 0, sizeof *l);
    l->own = calloc(1, cap + KI_LEX_PAD); /* zeroed: the padding is read, never used */
    if (!l->own) return SS_ENOMEM;
    l->buf = l->own, l->own_cap = cap;
    return 0;
}

void ki_lex_free(struct ki_lex *l)
{
    free(l->own);
    l->own = l->buf = NULL;
}

/* The own buffer holds at least `need` bytes (its first `keep` kept). */
static int own_fits(struct ki_lex *l, size_t need, size_t keep)
{
    if (l->own_cap >= need) return 0;
    size_t cap = 2 * l->own_cap > need ? 2 * l->own_cap : need;
    unsigned char *b = realloc(l->own, cap + KI_LEX_PAD);
    if (!b) return SS_ENOMEM;
    memset(b + keep, 0, cap + KI_LEX_PAD - keep);
    if (l->buf == l->own) l->buf = b;
    l->own = b, l->own_cap = cap;
    return 0;
}

int ki_lex_room(struct ki_lex *l, size_t want, unsigned char **at, size_t *room)
{
    size_t tail = l->end - l->pos;
    if (l->buf == l->own) { /* the tail to the front; a token longer than the buffer grows it */
        if (l->pos) memmove(l->own, l->own + l->pos, tail);
        l->base += l->pos, l->pos = 0, l->end = tail;
        if (own_fits(l, tail + want, tail)) return SS_ENOMEM;
    } else { /* leaving a piece of the feed (ki_lex_adopt): the tail copied out of it */
        if (own_fits(l, tail + want, 0)) return SS_ENOMEM;
        memcpy(l->own, l->buf + l->pos, tail);
        l->base += l->pos, l->buf = l->own, l->pos = 0, l->end = tail;
    }
    l->own[tail] = '\0'; /* the stop after the data, also when no more comes */
    *at = l->own + tail;
    *room = l->own_cap - tail;
    return 0;
}

int ki_lex_adopt(struct ki_lex *l, unsigned char *mem, size_t n)
{
    size_t tail = l->end - l->pos;
    if (tail > KI_FEED_HEAD) return -1;
    unsigned char *at = mem + KI_FEED_HEAD - tail;
    memcpy(at, l->buf + l->pos, tail);
    l->base += l->pos, l->buf = at, l->pos = 0, l->end = tail + n;
    l->buf[l->end] = '\0';
    return 0;
}

void ki_lex_added(struct ki_lex *l, size_t n)
{
    l->end += n;
    l->buf[l->end] = '\0';
}

/* ---- errors ---- */

static int syntax(struct ki_lex *l, size_t at, const char *what)
{
    l->err = what;
    l->err_at = l->base + at;
    return KL_SYNTAX;
}

/* A scanner stopped at `at`: the data ended there (read more; at the end of the input the
 * document is incomplete: truncated, as yajl said it) or a byte that cannot be there. */
static int stopped(struct ki_lex *l, size_t at, const char *what)
{
    if (at >= l->end) return KL_MORE;
    return syntax(l, at, what);
}

static int too_long(struct ki_lex *l, size_t at)
{
    l->err_at = l->base + at;
    return KL_BIG;
}

/* ---- strings ---- */

/* Index of the first '"', '\\' or control byte at or after i: the NUL after the data stops
 * it. 16 bytes at a time where SSE2 is (the padding after the NUL keeps the loads inside). */
static size_t str_stop(const unsigned char *b, size_t i)
{
#ifdef __SSE2__
    const __m128i q = _mm_set1_epi8('"'), bs = _mm_set1_epi8('\\'), ctl = _mm_set1_epi8(0x1f);
    for (;; i += 16) {
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(b + i));
        __m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, q), _mm_cmpeq_epi8(x, bs)),
                                 _mm_cmpeq_epi8(_mm_min_epu8(x, ctl), x));
        unsigned bits = (unsigned)_mm_movemask_epi8(m);
        if (bits) return i + (size_t)__builtin_ctz(bits);
    }
#else
    while (b[i] != '"' && b[i] != '\\' && b[i] >= 0x20)
        i++;
    return i;
#endif
}

static int hex_value(unsigned char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    c |= 0x20;
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* The escape at b[j] == '\\': checked; the index after it. */
static int escape_end(struct ki_lex *l, size_t j, size_t *next)
{
    const unsigned char *b = l->buf;
    if (j + 1 >= l->end) return stopped(l, j + 1, "");
    if (b[j + 1] != 'u') {
        if (!strchr("\"\\/bfnrt", b[j + 1]) || !b[j + 1])
            return syntax(l, j + 1,
                          "lexical error: inside a string, '\\' occurs before a character which "
                          "it may not");
        return *next = j + 2, 0;
    }
    for (size_t k = j + 2; k < j + 6; k++)
        if (hex_value(b[k]) < 0)
            return stopped(l, k,
                           "lexical error: invalid (non-hex) character occurs after '\\u' "
                           "inside string");
    return *next = j + 6, 0;
}

static unsigned hex4(const unsigned char *s)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++)
        v = v << 4 | (unsigned)hex_value(s[i]);
    return v;
}

/* A code point as UTF-8 into o; its length. */
static size_t utf8_put(unsigned char *o, unsigned cp)
{
    if (cp < 0x80) return o[0] = (unsigned char)cp, 1;
    if (cp < 0x800)
        return o[0] = (unsigned char)(0xC0 | cp >> 6), o[1] = (unsigned char)(0x80 | (cp & 0x3F)),
               2;
    if (cp < 0x10000) {
        o[0] = (unsigned char)(0xE0 | cp >> 12), o[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
        return o[2] = (unsigned char)(0x80 | (cp & 0x3F)), 3;
    }
    if (cp > 0x10FFFF) return o[0] = '?', 1;
    o[0] = (unsigned char)(0xF0 | cp >> 18), o[1] = (unsigned char)(0x80 | (cp >> 12 & 0x3F));
    o[2] = (unsigned char)(0x80 | (cp >> 6 & 0x3F)), o[3] = (unsigned char)(0x80 | (cp & 0x3F));
    return 4;
}

/* "\uXXXX" at s[i] (checked by escape_end) decoded into o, as yajl decoded it: a high
 * surrogate joins the "\uXXXX" after it; alone it is '?'. Returns the index after what was
 * read. */
static size_t unicode_escape(const unsigned char *s, size_t n, size_t i, unsigned char **o)
{
    unsigned cp = hex4(s + i + 2);
    i += 6;
    if ((cp & 0xFC00) == 0xD800) {
        if (i + 5 < n && s[i] == '\\' && s[i + 1] == 'u') {
            unsigned lo = hex4(s + i + 2);
            cp = ((cp & 0x3F) << 10) | ((((cp >> 6) & 0xF) + 1) << 16) | (lo & 0x3FF);
            i += 6;
        } else {
            *(*o)++ = '?';
            return i;
        }
    }
    *o += utf8_put(*o, cp);
    return i;
}

/* The byte a one-letter escape stands for (escape_end checked the letter). */
static unsigned char escaped(unsigned char c)
{
    static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
    const char *at = c ? strchr(from, c) : NULL;
    return at ? (unsigned char)to[at - from] : c;
}

/* The escapes of s[0..n) decoded in place (never longer); the new length. */
static size_t unescape(unsigned char *s, size_t n)
{
    unsigned char *o = s;
    for (size_t i = 0; i < n;) {
        if (s[i] != '\\') {
            *o++ = s[i++];
        } else if (s[i + 1] == 'u') {
            i = unicode_escape(s, n, i, &o);
        } else {
            *o++ = escaped(s[i + 1]);
            i += 2;
        }
    }
    return (size_t)(o - s);
}

/* lex_string past its first stop j: escapes, the end of the data, a control byte. */
static int lex_string_rest(struct ki_lex *l, size_t i, size_t j, const unsigned char **s,
                           size_t *n, size_t *next)
{
    unsigned char *b = l->buf;
    int esc = 0;
    while (b[j] == '\\') {
        int rc = escape_end(l, j, &j);
        if (rc) return rc;
        j = str_stop(b, j), esc = 1;
    }
    if (b[j] != '"') {
        if (j - i > KI_TOKEN_MAX) return too_long(l, i);
        return stopped(l, j, "lexical error: invalid character inside string");
    }
    if (j - i - 1 > KI_TOKEN_MAX) return too_long(l, i);
    *s = b + i + 1;
    *n = esc ? unescape(b + i + 1, j - i - 1) : j - i - 1;
    *next = j + 1;
    return 0;
}

/* The string whose opening quote is at i: its text (escapes decoded in place) in *s, *n;
 * *next: the index after its closing quote. Inline: most strings end at their first stop. */
static inline int lex_string(struct ki_lex *l, size_t i, const unsigned char **s, size_t *n,
                             size_t *next)
{
    size_t j = str_stop(l->buf, i + 1);
    if (l->buf[j] != '"' || j - i - 1 > KI_TOKEN_MAX) return lex_string_rest(l, i, j, s, n, next);
    *s = l->buf + i + 1;
    *n = j - i - 1;
    *next = j + 1;
    return 0;
}

/* ---- numbers and literals ---- */

static int is_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

static size_t digits(const unsigned char *b, size_t j)
{
    while (is_digit(b[j]))
        j++;
    return j;
}

/* The number at i, as JSON has it: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?; *next:
 * the index after it. A number that reaches the end of the data may go on: read more. */
static int lex_number(struct ki_lex *l, size_t i, size_t *next)
{
    const unsigned char *b = l->buf;
    size_t j = i + (b[i] == '-');
    if (!is_digit(b[j]))
        return stopped(l, j,
                       "lexical error: malformed number, a digit is required after the minus "
                       "sign");
    j = b[j] == '0' ? j + 1 : digits(b, j);
    if (b[j] == '.') {
        if (!is_digit(b[++j]))
            return stopped(l, j,
                           "lexical error: malformed number, a digit is required after the "
                           "decimal point");
        j = digits(b, j);
    }
    if (b[j] == 'e' || b[j] == 'E') {
        j += b[j + 1] == '+' || b[j + 1] == '-' ? 2 : 1;
        if (!is_digit(b[j]))
            return stopped(l, j,
                           "lexical error: malformed number, a digit is required after the "
                           "exponent marker");
        j = digits(b, j);
    }
    if (j - i > KI_TOKEN_MAX) return too_long(l, i);
    if (j >= l->end && !l->eof) return KL_MORE;
    return *next = j, 0;
}

/* true, false or null at i: 1 for true, 0 for false, -1 for null into *what. */
static int lex_literal(struct ki_lex *l, size_t i, int *what, size_t *next)
{
    static const char *const words[] = {"null", "false", "true"};
    for (int w = 0; w < 3; w++) {
        size_t len = strlen(words[w]), have = l->end - i;
        if (memcmp(l->buf + i, words[w], have < len ? have : len) != 0) continue;
        if (have < len) return stopped(l, l->end, "");
        return *what = w - 1, *next = i + len, 0;
    }
    return syntax(l, i, "lexical error: invalid string in json text");
}

/* ---- structure ---- */

/* JSON's whitespace, and \v and \f, which yajl took too (the import of such files stays). */
static int is_space(unsigned char c)
{
    return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\v' || c == '\f';
}

/* The first byte at or after i that is not whitespace (the NUL after the data stops it). */
static size_t skip_space(const unsigned char *b, size_t i)
{
    while (is_space(b[i]))
        i++;
    return i;
}

/* After a complete value: in a container, ',' or its close; at the top, the end. */
static void value_done(struct ki_lex *l)
{
    l->state = l->depth ? S_AFTER : S_DONE;
}

static int open_container(struct ki_lex *l, struct ki_parser *p, unsigned char c)
{
    if (!(c == '{' ? ki_cb_start_map(p) : ki_cb_start_array(p))) return KL_STOP;
    if (l->depth >= (int)sizeof l->open) /* the parser stops first (KI_MAX_DEPTH) */
        return syntax(l, l->pos, "nested too deep");
    l->open[l->depth++] = c;
    l->state = c == '{' ? S_FIRST_KEY : S_FIRST_VALUE;
    l->pos++;
    return 0;
}

static int close_container(struct ki_lex *l, struct ki_parser *p, unsigned char c)
{
    unsigned char open = l->depth ? l->open[l->depth - 1] : 0;
    if ((c == '}' && open != '{') || (c == ']' && open != '['))
        return syntax(l, l->pos, "parse error: unallowed token at this point in JSON text");
    if (!(c == '}' ? ki_cb_end_map(p) : ki_cb_end_array(p))) return KL_STOP;
    l->depth--;
    l->pos++;
    value_done(l);
    return 0;
}

/* A string, number or literal value at l->pos. */
static int scalar(struct ki_lex *l, struct ki_parser *p, unsigned char c)
{
    size_t next = 0;
    int rc, ok;
    if (c == '"') {
        const unsigned char *s;
        size_t n;
        rc = lex_string(l, l->pos, &s, &n, &next);
        ok = rc || ki_cb_string(p, s, n);
    } else if (c == '-' || is_digit(c)) {
        rc = lex_number(l, l->pos, &next);
        ok = rc || ki_cb_number(p, (const char *)l->buf + l->pos, next - l->pos);
    } else if (c == 't' || c == 'f' || c == 'n') {
        int what = 0;
        rc = lex_literal(l, l->pos, &what, &next);
        ok = rc || (what < 0 ? ki_cb_null(p) : ki_cb_boolean(p, what));
    } else {
        return syntax(l, l->pos, "lexical error: invalid char in json text");
    }
    if (rc) return rc;
    if (!ok) return KL_STOP;
    l->pos = next;
    value_done(l);
    return 0;
}

static int value(struct ki_lex *l, struct ki_parser *p, unsigned char c)
{
    if (c == '{' || c == '[') return open_container(l, p, c);
    if (c == '}' || c == ']')
        return syntax(l, l->pos, "parse error: unallowed token at this point in JSON text");
    return scalar(l, p, c);
}

/* After a key: the ':' and the value, when they are in the buffer (the usual case), without
 * a turn through the dispatcher (ki_lex_run); anything else is left to it. */
static int colon_value(struct ki_lex *l, struct ki_parser *p)
{
    const unsigned char *b = l->buf;
    size_t i = skip_space(b, l->pos);
    l->pos = i;
    if (b[i] != ':') return 0;
    i = skip_space(b, i + 1);
    l->pos = i, l->state = S_VALUE;
    return i < l->end ? value(l, p, b[i]) : 0;
}

static int key(struct ki_lex *l, struct ki_parser *p, unsigned char c)
{
    if (c != '"') return syntax(l, l->pos, "parse error: invalid object key (must be a string)");
    const unsigned char *s;
    size_t n, next;
    int rc = lex_string(l, l->pos, &s, &n, &next);
    if (rc) return rc;
    if (!ki_cb_map_key(p, s, n)) return KL_STOP;
    l->pos = next;
    l->state = S_COLON;
    return colon_value(l, p);
}

static int after_value(struct ki_lex *l, struct ki_parser *p, unsigned char c)
{
    int in_map = l->open[l->depth - 1] == '{';
    if (c == ',') { /* and the next member or element, as colon_value does */
        size_t i = skip_space(l->buf, l->pos + 1);
        l->pos = i;
        l->state = in_map ? S_KEY : S_VALUE;
        if (i >= l->end) return 0;
        return in_map ? key(l, p, l->buf[i]) : value(l, p, l->buf[i]);
    }
    if (c == (in_map ? '}' : ']')) return close_container(l, p, c);
    return syntax(l, l->pos,
                  in_map ? "parse error: after key and value, inside map, I expect ',' or '}'"
                         : "parse error: after array element, I expect ',' or ']'");
}

/* One token at l->pos (not whitespace). */
static int step(struct ki_lex *l, struct ki_parser *p, unsigned char c)
{
    switch (l->state) {
    case S_AFTER:
        return after_value(l, p, c);
    case S_COLON:
        if (c != ':')
            return syntax(l, l->pos,
                          "parse error: object key and value must be separated by a colon "
                          "(':')");
        l->pos++, l->state = S_VALUE;
        return 0;
    case S_FIRST_KEY:
        if (c == '}') return close_container(l, p, c);
        return key(l, p, c);
    case S_KEY:
        return key(l, p, c);
    case S_FIRST_VALUE:
        if (c == ']') return close_container(l, p, c);
        return value(l, p, c);
    case S_VALUE:
        return value(l, p, c);
    default:
        return syntax(l, l->pos, "parse error: trailing garbage");
    }
}

int ki_lex_run(struct ki_lex *l, struct ki_parser *p)
{
    const unsigned char *b = l->buf;
    for (;;) {
        size_t i = skip_space(b, l->pos);
        l->pos = i;
        if (i >= l->end) return 0;
        int rc = step(l, p, b[i]);
        if (rc) return rc == KL_MORE ? 0 : rc;
    }
}

int ki_lex_complete(const struct ki_lex *l)
{
    return l->state == S_DONE;
}
