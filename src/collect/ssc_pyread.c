/*
 * ssc_pyread.c — walking CPython's frames through a read function (see ssc_pyread.h).
 *
 * What is fixed here is CPython's public, stable object header (PyObject: refcount, type;
 * PyVarObject: size; PyASCIIObject's length and state bits, Include/cpython/unicodeobject.h)
 * and the location-table format documented in CPython's Objects/locations.md. The layout of
 * the internal structs comes from the caller (ssc_pylearn.c).
 */
#include "collect/ssc_pyread.h"

#include <stdio.h>
#include <string.h>

#define OB_TYPE 8  /* PyObject.ob_type */
#define OB_SIZE 16 /* PyVarObject.ob_size */
#define STR_LENGTH 16
#define STR_STATE 32
#define MAX_STR_CHARS 4096

static int read_u64(const struct ssc_pyr_mem *m, uint64_t addr, uint64_t *v)
{
    return addr ? m->read(m->ctx, addr, v, sizeof *v) : -1;
}

uint64_t ssc_pyr_current_frame(const struct ssc_pyr_layout *l, const struct ssc_pyr_mem *m,
                               uint64_t ts)
{
    uint64_t v = 0;
    if (read_u64(m, ts + l->ts_frame, &v) != 0) return 0;
    if (l->ts_frame_indirect && (v == 0 || read_u64(m, v + l->ts_frame_sub, &v) != 0)) return 0;
    return v;
}

static int is_skipped(const struct ssc_pyr_layout *l, uint64_t code)
{
    for (int i = 0; i < SSC_PYR_MAX_SKIP; i++)
        if (l->skip_code[i] && l->skip_code[i] == code) return 1;
    return 0;
}

/* The three words of one interpreter frame the walk needs, in one read. */
struct frame_words {
    uint64_t code, previous, instr;
};

static int read_frame(const struct ssc_pyr_layout *l, const struct ssc_pyr_mem *m, uint64_t f,
                      struct frame_words *w)
{
    uint32_t lo = l->if_code, hi = l->if_code;
    const uint32_t offs[3] = {l->if_code, l->if_previous, l->if_instr};
    for (int i = 1; i < 3; i++) {
        if (offs[i] < lo) lo = offs[i];
        if (offs[i] > hi) hi = offs[i];
    }
    uint8_t buf[256];
    if (hi + 8 - lo > sizeof buf || m->read(m->ctx, f + lo, buf, hi + 8 - lo) != 0) return -1;
    memcpy(&w->code, buf + (l->if_code - lo), 8);
    memcpy(&w->previous, buf + (l->if_previous - lo), 8);
    memcpy(&w->instr, buf + (l->if_instr - lo), 8);
    w->code &= ~l->code_tag_mask;
    return 0;
}

/* A copy of the memory just below the last frame asked for: frames of nested Python calls lie
 * next to each other on the data stack, each below its callee, so one read serves many. */
#define WINDOW_BYTES 8192
#define WINDOW_SMALL 1024 /* tried when the whole window reaches unreadable memory */

struct window {
    const struct ssc_pyr_mem *m;
    uint64_t base;
    size_t len;
    uint8_t buf[WINDOW_BYTES];
};

/* Refills w to end at end (the bytes below it); 0, or -1 when neither size is readable. */
static int window_fill(struct window *w, uint64_t end, size_t need)
{
    const size_t sizes[2] = {WINDOW_BYTES, WINDOW_SMALL};
    for (int i = 0; i < 2; i++) {
        size_t len = sizes[i] < end ? sizes[i] : (size_t)end;
        if (len < need) return -1;
        if (w->m->read(w->m->ctx, end - len, w->buf, len) == 0) {
            w->base = end - len, w->len = len;
            return 0;
        }
    }
    return -1;
}

static int window_read(void *ctx, uint64_t addr, void *out, size_t n)
{
    struct window *w = ctx;
    int inside = addr >= w->base && addr + n <= w->base + w->len;
    if (!inside && window_fill(w, addr + n, n) != 0) {
        w->len = 0;
        return w->m->read(w->m->ctx, addr, out, n);
    }
    memcpy(out, w->buf + (addr - w->base), n);
    return 0;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    return h * 0xBF58476D1CE4E5B9ull;
}

int ssc_pyr_chain_key(const struct ssc_pyr_layout *l, const struct ssc_pyr_mem *m, uint64_t frame,
                      struct ssc_pyr_key *key)
{
    struct window w; /* buf is filled before it is read: not cleared */
    w.m = m, w.base = 0, w.len = 0;
    const struct ssc_pyr_mem through = {window_read, &w};
    uint64_t h = 0x84222325CBF29CE4ull, f = frame;
    uint32_t depth = 0;
    for (; f && depth < SSC_PYR_KEY_HOPS; depth++) {
        struct frame_words fw;
        if (read_frame(l, &through, f, &fw) != 0) return -1;
        h = mix(mix(h, f), fw.instr);
        f = fw.previous;
    }
    *key = (struct ssc_pyr_key){h, frame, depth};
    return 0;
}

/* The frame's code object and lasti, checked: a code object, lasti inside its code. 1: a
 * frame to keep, 0: a shim to leave out, -1: implausible (torn read). */
static int frame_of(const struct ssc_pyr_layout *l, const struct ssc_pyr_mem *m,
                    const struct frame_words *w, struct ssc_pyr_frame *out)
{
    uint64_t type = 0, units = 0;
    if (is_skipped(l, w->code)) return 0;
    if (read_u64(m, w->code + OB_TYPE, &type) != 0) return -1;
    if (type != l->code_type) return 0; /* 3.13+: a C-stack shim frame runs None, not code */
    if (read_u64(m, w->code + OB_SIZE, &units) != 0) return -1;
    int64_t lasti = (int64_t)(w->instr - (w->code + l->co_code_start)) - l->instr_delta;
    if (lasti < -2 || lasti > (int64_t)units * 2) return -1;
    out->code = w->code;
    out->lasti = lasti < 0 ? 0 : (int32_t)lasti;
    return 1;
}

int ssc_pyr_walk(const struct ssc_pyr_layout *l, const struct ssc_pyr_mem *m, uint64_t frame,
                 struct ssc_pyr_frame *out, int max, int *truncated)
{
    int n = 0, hops = 0;
    *truncated = 0;
    for (uint64_t f = frame; f; hops++) {
        struct frame_words w;
        if (hops > 4 * max || read_frame(l, m, f, &w) != 0) return -1; /* a loop, or unreadable */
        if (n == max) {
            *truncated = 1;
            break;
        }
        int kept = frame_of(l, m, &w, &out[n]);
        if (kept < 0) return -1;
        n += kept;
        f = w.previous;
    }
    return n;
}

/* ---- location tables (CPython 3.11+, Objects/locations.md) -------------------------------- */

/* An unsigned varint of 6-bit groups, low group first, 0x40 = more follow. */
static uint32_t scan_varint(const uint8_t **p, const uint8_t *end)
{
    uint32_t v = 0, shift = 0;
    while (*p < end) {
        uint8_t b = *(*p)++;
        if (shift < 32) v |= (uint32_t)(b & 63) << shift;
        shift += 6;
        if (!(b & 64)) break;
    }
    return v;
}

static int32_t scan_svarint(const uint8_t **p, const uint8_t *end)
{
    uint32_t u = scan_varint(p, end);
    return u & 1 ? -(int32_t)(u >> 1) : (int32_t)(u >> 1);
}

/* The line delta of the entry at p (its first byte: 1 CCCC LLL). */
static int32_t entry_line_delta(const uint8_t *p, const uint8_t *end)
{
    int code = (*p >> 3) & 15;
    const uint8_t *q = p + 1;
    if (code == 13 || code == 14) return scan_svarint(&q, end); /* no columns; long form */
    if (code >= 10 && code <= 12) return code - 10;            /* one-line forms */
    return 0;                                                  /* short forms, none (15) */
}

int ssc_pyr_line(const uint8_t *table, size_t n, int first_line, int32_t lasti)
{
    const uint8_t *p = table, *end = table + n;
    int32_t line = first_line, unit = 0, target = lasti / 2;
    while (p < end) {
        if (!(*p & 128)) return -1; /* not the start of an entry: a torn or foreign table */
        int32_t len = (*p & 7) + 1, code = (*p >> 3) & 15;
        line += entry_line_delta(p, end);
        if (target < unit + len) return code == 15 ? -1 : line;
        unit += len;
        for (p++; p < end && !(*p & 128); p++) {
        }
    }
    return -1;
}

/* ---- objects ------------------------------------------------------------------------------ */

int ssc_pyr_code(const struct ssc_pyr_layout *l, const struct ssc_pyr_mem *m, uint64_t addr,
                 struct ssc_pyr_code *out)
{
    uint64_t type = 0, units = 0;
    uint32_t first = 0;
    if (read_u64(m, addr + OB_TYPE, &type) != 0 || type != l->code_type) return -1;
    if (read_u64(m, addr + OB_SIZE, &units) != 0 ||
        read_u64(m, addr + l->co_filename, &out->filename) != 0 ||
        read_u64(m, addr + l->co_qualname, &out->qualname) != 0 ||
        read_u64(m, addr + l->co_linetable, &out->linetable) != 0 ||
        m->read(m->ctx, addr + l->co_firstlineno, &first, 4) != 0)
        return -1;
    out->first_line = (int32_t)first;
    out->units = (int64_t)units;
    return 0;
}

int64_t ssc_pyr_bytes(const struct ssc_pyr_layout *l, const struct ssc_pyr_mem *m, uint64_t addr,
                      uint8_t *buf, size_t cap)
{
    uint64_t size = 0;
    if (read_u64(m, addr + OB_SIZE, &size) != 0 || size > (1u << 30)) return -1;
    size_t n = size < cap ? (size_t)size : cap;
    if (n && m->read(m->ctx, addr + l->bytes_data, buf, n) != 0) return -1;
    return (int64_t)size;
}

/* One code point as UTF-8 into out (room for 4); its length. */
static size_t utf8_put(uint32_t c, char *out)
{
    if (c < 0x80) return out[0] = (char)c, 1;
    if (c < 0x800) return out[0] = (char)(0xC0 | c >> 6), out[1] = (char)(0x80 | (c & 63)), 2;
    if (c < 0x10000) {
        out[0] = (char)(0xE0 | c >> 12), out[1] = (char)(0x80 | ((c >> 6) & 63));
        return out[2] = (char)(0x80 | (c & 63)), 3;
    }
    out[0] = (char)(0xF0 | c >> 18), out[1] = (char)(0x80 | ((c >> 12) & 63));
    out[2] = (char)(0x80 | ((c >> 6) & 63)), out[3] = (char)(0x80 | (c & 63));
    return 4;
}

/* kind-byte characters (1, 2 or 4 bytes each) as UTF-8 into buf; a lone surrogate (an
 * undecodable byte of a file name) as its \udcXX escape, as Python's backslashreplace. */
static size_t widen(const uint8_t *chars, size_t count, int kind, char *buf, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < count; i++) {
        uint32_t c = 0;
        memcpy(&c, chars + i * (size_t)kind, (size_t)kind); /* little-endian x86-64 */
        char u[8];
        size_t k = c >= 0xD800 && c < 0xE000 ? (size_t)snprintf(u, sizeof u, "\\u%04x", c)
                                             : utf8_put(c, u);
        if (n + k > cap) break;
        memcpy(buf + n, u, k);
        n += k;
    }
    return n;
}

size_t ssc_pyr_str(const struct ssc_pyr_layout *l, const struct ssc_pyr_mem *m, uint64_t addr,
                   char *buf, size_t cap)
{
    int64_t length = 0;
    uint32_t state = 0;
    if (m->read(m->ctx, addr + STR_LENGTH, &length, 8) != 0 ||
        m->read(m->ctx, addr + STR_STATE, &state, 4) != 0 || length < 0)
        return 0;
    int kind = (state >> 2) & 7, compact = (state >> 5) & 1, ascii = (state >> 6) & 1;
    if (!compact || !(kind == 1 || kind == 2 || kind == 4)) return 0;
    size_t count = (size_t)length < MAX_STR_CHARS ? (size_t)length : MAX_STR_CHARS;
    if (ascii) {
        size_t n = count < cap ? count : cap;
        return n && m->read(m->ctx, addr + l->str_ascii_data, buf, n) != 0 ? 0 : n;
    }
    uint8_t chars[MAX_STR_CHARS * 4];
    if (count && m->read(m->ctx, addr + l->str_compact_data, chars, count * (size_t)kind) != 0)
        return 0;
    return widen(chars, count, kind, buf, cap);
}
