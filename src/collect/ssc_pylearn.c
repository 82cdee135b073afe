/*
 * ssc_pylearn.c — finding CPython's struct offsets from what its public API says (see
 * ssc_pylearn.h). Every scan reads through the given read function: a word that is no
 * pointer costs an EFAULT, never a crash.
 */
#include "collect/ssc_pylearn.h"

#include <string.h>

#define TS_SCAN 1024      /* bytes of PyThreadState searched */
#define INTERP_SCAN 65536 /* bytes of PyInterpreterState searched for the thread list */
#define FRAME_WORDS 16    /* words of an interpreter frame searched */
#define SUB_WORDS 4       /* words behind a thread-state pointer searched (3.11/3.12 cframe) */
#define TAG_MASK 7ull     /* low bits a stack reference may tag a code pointer with (3.14) */
#define MAX_DELTA 16      /* |instruction pointer - f_lasti| allowed, bytes */
#define MAX_MATCH 8

static int read_words(const struct ssc_pyr_mem *m, uint64_t addr, uint64_t *w, size_t n)
{
    return addr ? m->read(m->ctx, addr, w, n * 8) : -1;
}

/* Offsets (multiples of 8 in [from, to)) where the struct at base holds value under mask.
 * Returns how many (at most MAX_MATCH). */
static int word_offsets(const struct ssc_pyr_mem *m, uint64_t base, uint32_t from, uint32_t to,
                        uint64_t value, uint64_t mask, uint32_t *offs)
{
    uint64_t w[INTERP_SCAN / 8];
    size_t n = (to - from) / 8;
    if (!value || n > sizeof w / 8 || read_words(m, base + from, w, n) != 0) return 0;
    int k = 0;
    for (size_t i = 0; i < n && k < MAX_MATCH; i++)
        if ((w[i] & mask) == value) offs[k++] = from + (uint32_t)i * 8;
    return k;
}

/* The first offset where both structs hold their value (the same field in two objects). */
static int common_offset(const struct ssc_pyr_mem *m, uint64_t a, uint64_t va, uint64_t b,
                         uint64_t vb, uint32_t to, uint32_t *off)
{
    uint32_t oa[MAX_MATCH], ob[MAX_MATCH];
    int na = word_offsets(m, a, 16, to, va, ~0ull, oa), nb = word_offsets(m, b, 16, to, vb, ~0ull, ob);
    for (int i = 0; i < na; i++)
        for (int j = 0; j < nb; j++)
            if (oa[i] == ob[j]) return *off = oa[i], 0;
    return -1;
}

/* ---- frames -------------------------------------------------------------------------------- */

/* The frame object's pointer to its interpreter frame: a word of the frame object pointing to
 * memory that holds the frame's code. Found for two frames alike. */
static int learn_frame_link(const struct ssc_pyl_anchors *a, const struct ssc_pyr_mem *m,
                            uint32_t *fobj_off, struct ssc_pyr_layout *l)
{
    const struct ssc_pyl_frame *f1 = &a->frames[1], *f2 = &a->frames[2];
    uint64_t w[64];
    size_t n = a->frame_obj_size / 8 < 64 ? a->frame_obj_size / 8 : 64;
    if (read_words(m, f1->frame_obj, w, n) != 0) return -1;
    for (size_t i = 2; i < n; i++) {
        uint32_t c1[MAX_MATCH], c2[MAX_MATCH];
        uint64_t i2 = 0;
        if (word_offsets(m, w[i], 0, FRAME_WORDS * 8, f1->code, ~TAG_MASK, c1) != 1) continue;
        if (read_words(m, f2->frame_obj + i * 8, &i2, 1) != 0) continue;
        if (word_offsets(m, i2, 0, FRAME_WORDS * 8, f2->code, ~TAG_MASK, c2) != 1 || c1[0] != c2[0])
            continue;
        *fobj_off = (uint32_t)i * 8;
        l->if_code = c1[0];
        return 0;
    }
    return -1;
}

static uint64_t iframe_of(const struct ssc_pyr_mem *m, uint64_t frame_obj, uint32_t fobj_off)
{
    uint64_t v = 0;
    return read_words(m, frame_obj + fobj_off, &v, 1) == 0 ? v : 0;
}

/* previous: where frame i holds frame i + 1, for the first two pairs alike. */
static int learn_previous(const uint64_t *iframes, const struct ssc_pyr_mem *m,
                          struct ssc_pyr_layout *l)
{
    uint32_t o0[MAX_MATCH], o1[MAX_MATCH];
    int n0 = word_offsets(m, iframes[0], 0, FRAME_WORDS * 8, iframes[1], ~0ull, o0);
    int n1 = word_offsets(m, iframes[1], 0, FRAME_WORDS * 8, iframes[2], ~0ull, o1);
    for (int i = 0; i < n0; i++)
        for (int j = 0; j < n1; j++)
            if (o0[i] == o1[j]) return l->if_previous = o0[i], 0;
    return -1;
}

/* The instruction pointer: a word of a (non-leaf) frame inside its code, at a fixed distance
 * from f_lasti; the same field and distance in two frames. */
static int instr_candidate(const struct ssc_pyr_mem *m, uint64_t iframe,
                           const struct ssc_pyl_frame *f, uint64_t start, uint32_t off,
                           int64_t *delta)
{
    uint64_t w = 0, units = 0;
    if (read_words(m, iframe + off, &w, 1) != 0 || read_words(m, f->code + 16, &units, 1) != 0)
        return 0;
    if (w < start || w > start + units * 2 + 2) return 0;
    *delta = (int64_t)(w - start) - f->lasti;
    return *delta >= -MAX_DELTA && *delta <= MAX_DELTA;
}

static int learn_instr(const struct ssc_pyl_anchors *a, const uint64_t *iframes,
                       const struct ssc_pyr_mem *m, struct ssc_pyr_layout *l)
{
    const struct ssc_pyl_frame *f1 = &a->frames[1], *f2 = &a->frames[2];
    for (uint32_t off = 0; off < FRAME_WORDS * 8; off += 8) {
        int64_t d1, d2;
        if (off == l->if_code || off == l->if_previous) continue;
        if (instr_candidate(m, iframes[1], f1, f1->code + a->code_basicsize, off, &d1) &&
            instr_candidate(m, iframes[2], f2, f2->code + a->code_basicsize, off, &d2) &&
            d1 == d2)
            return l->if_instr = off, l->instr_delta = d1, 0;
    }
    return -1;
}

/* ---- the thread state -------------------------------------------------------------------- */

/* Every way the thread state reaches the current frame now: a word equal to it, or a pointer
 * to a struct holding it (3.11/3.12: tstate->cframe->current_frame). */
static int current_candidates(const struct ssc_pyl_anchors *a, const struct ssc_pyr_mem *m,
                              uint64_t cur, uint32_t (*cand)[3], int max)
{
    uint64_t w[TS_SCAN / 8];
    int k = 0;
    if (read_words(m, a->ts, w, TS_SCAN / 8) != 0) return 0;
    for (uint32_t i = 0; i < TS_SCAN / 8 && k < max; i++) {
        uint64_t sub[SUB_WORDS];
        if (w[i] == cur) {
            cand[k][0] = i * 8, cand[k][1] = 0, cand[k++][2] = 0;
            continue;
        }
        if (w[i] < 4096 || read_words(m, w[i], sub, SUB_WORDS) != 0) continue;
        for (uint32_t j = 0; j < SUB_WORDS && k < max; j++)
            if (sub[j] == cur) cand[k][0] = i * 8, cand[k][1] = j * 8, cand[k++][2] = 1;
    }
    return k;
}

/* Keeps the first call's candidates that also reach this call's current frame. */
static int keep_current(struct ssc_pyl_state *s, uint32_t (*now)[3], int n_now)
{
    int k = 0;
    for (int i = 0; i < s->n_cand; i++)
        for (int j = 0; j < n_now; j++)
            if (memcmp(s->cand[i], now[j], sizeof s->cand[i]) == 0) {
                memcpy(s->cand[k++], s->cand[i], sizeof s->cand[i]);
                break;
            }
    s->n_cand = k;
    return k;
}

static int learn_threads(const struct ssc_pyl_anchors *a, const struct ssc_pyr_mem *m,
                         struct ssc_pyr_layout *l)
{
    uint32_t o[MAX_MATCH];
    if (word_offsets(m, a->ts, 0, TS_SCAN, a->tid, ~0ull, o) < 1) return -1;
    l->ts_native_tid = o[0];
    if (word_offsets(m, a->head, 0, TS_SCAN, a->head_next, ~0ull, o) < 1) return -1;
    l->ts_next = o[0];
    if (word_offsets(m, a->interp, 0, INTERP_SCAN, a->head, ~0ull, o) < 1) return -1;
    l->interp_threads_head = o[0];
    return 0;
}

/* ---- code, str, bytes ------------------------------------------------------------------------ */

static int learn_first_line(const struct ssc_pyl_anchors *a, const struct ssc_pyr_mem *m,
                            struct ssc_pyr_layout *l)
{
    const struct ssc_pyl_frame *f1 = &a->frames[1], *f2 = &a->frames[2];
    int32_t v1[64], v2[64];
    size_t n = a->code_basicsize / 4 < 64 ? a->code_basicsize / 4 : 64;
    if (m->read(m->ctx, f1->code, v1, n * 4) != 0 || m->read(m->ctx, f2->code, v2, n * 4) != 0)
        return -1;
    for (size_t i = 4; i < n; i++)
        if (v1[i] == f1->first_line && v2[i] == f2->first_line)
            return l->co_firstlineno = (uint32_t)i * 4, 0;
    return -1;
}

static int learn_code(const struct ssc_pyl_anchors *a, const struct ssc_pyr_mem *m,
                      struct ssc_pyr_layout *l)
{
    const struct ssc_pyl_frame *f1 = &a->frames[1], *f2 = &a->frames[2];
    uint32_t to = (uint32_t)a->code_basicsize;
    if (common_offset(m, f1->code, f1->filename, f2->code, f2->filename, to, &l->co_filename) ||
        common_offset(m, f1->code, f1->qualname, f2->code, f2->qualname, to, &l->co_qualname) ||
        common_offset(m, f1->code, f1->linetable, f2->code, f2->linetable, to, &l->co_linetable))
        return -1;
    l->co_code_start = to;
    l->code_type = a->code_type;
    l->code_tag_mask = TAG_MASK;
    return learn_first_line(a, m, l);
}

static int str_is(const struct ssc_pyr_layout *l, const struct ssc_pyr_mem *m, uint64_t s,
                  const char *utf8)
{
    char buf[256];
    size_t n = ssc_pyr_str(l, m, s, buf, sizeof buf);
    return n == strlen(utf8) && memcmp(buf, utf8, n) == 0;
}

/* Where the characters of a compact str begin: the one offset that reads each sample right. */
static int learn_strings(const struct ssc_pyl_anchors *a, const struct ssc_pyr_mem *m,
                         struct ssc_pyr_layout *l)
{
    int ascii = 0, compact = 0;
    for (uint32_t k = 24; k < 128 && !ascii; k += 8)
        if ((l->str_ascii_data = k, str_is(l, m, a->ascii, a->ascii_text))) ascii = 1;
    for (uint32_t k = 24; k < 128 && !compact; k += 8)
        if ((l->str_compact_data = k, str_is(l, m, a->latin1, a->latin1_utf8)) &&
            str_is(l, m, a->ucs2, a->ucs2_utf8))
            compact = 1;
    return ascii && compact ? 0 : -1;
}

static int learn_bytes(const struct ssc_pyl_anchors *a, const struct ssc_pyr_mem *m,
                       struct ssc_pyr_layout *l)
{
    uint8_t buf[64];
    if (a->bytes_len > sizeof buf) return -1;
    for (uint32_t k = 24; k < 64; k += 8) {
        l->bytes_data = k;
        if (ssc_pyr_bytes(l, m, a->bytes, buf, sizeof buf) == (int64_t)a->bytes_len &&
            memcmp(buf, a->bytes_data, a->bytes_len) == 0)
            return 0;
    }
    return -1;
}

/* ---- the check ------------------------------------------------------------------------------ */

static int add_skip(struct ssc_pyr_layout *l, uint64_t code)
{
    for (int i = 0; i < SSC_PYR_MAX_SKIP; i++) {
        if (l->skip_code[i] == code) return 0;
        if (!l->skip_code[i]) return l->skip_code[i] = code, 0;
    }
    return -1;
}

/* Code objects the walk finds between the API's frames are shims (3.12's trampoline). */
static int learn_skips(const struct ssc_pyl_anchors *a, const struct ssc_pyr_mem *m,
                       struct ssc_pyr_layout *l, uint64_t cur)
{
    struct ssc_pyr_frame w[64];
    int truncated, n = ssc_pyr_walk(l, m, cur, w, 64, &truncated), j = 0;
    for (int i = 0; i < n && j < a->n_frames; i++) {
        if (w[i].code == a->frames[j].code)
            j++;
        else if (j > 0 && add_skip(l, w[i].code) != 0)
            return -1;
    }
    return j == a->n_frames ? 0 : -1;
}

/* The line of walked frame w, from its code's location table. */
static int walked_line(const struct ssc_pyr_layout *l, const struct ssc_pyr_mem *m,
                       const struct ssc_pyr_frame *w)
{
    struct ssc_pyr_code c;
    uint8_t table[4096];
    if (ssc_pyr_code(l, m, w->code, &c) != 0) return -1;
    int64_t n = ssc_pyr_bytes(l, m, c.linetable, table, sizeof table);
    if (n < 0 || n > (int64_t)sizeof table) return -1;
    return ssc_pyr_line(table, (size_t)n, c.first_line, w->lasti);
}

/* The walk of this thread must give the API's frames, in order, at their lines. */
static int check_walk(const struct ssc_pyl_anchors *a, const struct ssc_pyr_mem *m,
                      const struct ssc_pyr_layout *l, uint64_t ts, const char **why)
{
    struct ssc_pyr_frame w[SSC_PYL_FRAMES];
    int truncated, n = ssc_pyr_walk(l, m, ssc_pyr_current_frame(l, m, ts), w, a->n_frames,
                                    &truncated);
    *why = "a walk of this thread did not give the frames CPython reports";
    if (n != a->n_frames) return -1;
    for (int i = 0; i < n; i++) {
        if (w[i].code != a->frames[i].code) return -1;
        if (i > 0 && (w[i].lasti != a->frames[i].lasti || walked_line(l, m, &w[i]) != a->frames[i].line))
            return *why = "a walk of this thread read other lines than CPython reports", -1;
    }
    return 0;
}

static int fail(const char **why, const char *reason)
{
    *why = reason;
    return -1;
}

/* Everything but the current frame, learned from the API's frames and objects. */
static int learn_fields(const struct ssc_pyl_anchors *a, const struct ssc_pyr_mem *m,
                        uint64_t *iframes, struct ssc_pyr_layout *l, const char **why)
{
    uint32_t fobj_off;
    if (learn_frame_link(a, m, &fobj_off, l)) return fail(why, "no frame object -> frame link");
    for (int i = 0; i < a->n_frames; i++)
        iframes[i] = iframe_of(m, a->frames[i].frame_obj, fobj_off);
    if (learn_previous(iframes, m, l)) return fail(why, "no previous-frame link");
    if (learn_instr(a, iframes, m, l)) return fail(why, "no instruction pointer");
    if (learn_code(a, m, l)) return fail(why, "code object fields not found");
    if (learn_strings(a, m, l) || learn_bytes(a, m, l)) return fail(why, "str/bytes data not found");
    if (learn_threads(a, m, l)) return fail(why, "thread list or thread id not found");
    return 0;
}

int ssc_pyl_learn(const struct ssc_pyl_anchors *a, const struct ssc_pyr_mem *m,
                  struct ssc_pyl_state *state, struct ssc_pyr_layout *out, const char **why)
{
    struct ssc_pyr_layout l = {0};
    uint64_t iframes[SSC_PYL_FRAMES];
    uint32_t now[16][3];
    if (a->n_frames < 3) return fail(why, "fewer than three Python frames to learn from");
    if (learn_fields(a, m, iframes, &l, why) != 0) return -1;
    int n_now = current_candidates(a, m, iframes[0], now, 16);
    if (state->calls++ == 0) {
        memcpy(state->cand, now, sizeof now);
        state->n_cand = n_now;
        return 1;
    }
    for (int k = keep_current(state, now, n_now), i = 0; i < k; i++) {
        l.ts_frame = state->cand[i][0], l.ts_frame_sub = state->cand[i][1];
        l.ts_frame_indirect = state->cand[i][2];
        memset(l.skip_code, 0, sizeof l.skip_code);
        if (learn_skips(a, m, &l, iframes[0]) == 0 && check_walk(a, m, &l, a->ts, why) == 0)
            return *out = l, 0;
    }
    return fail(why, "no thread-state field reaches the current frame in both calls");
}

/* ---- CPython 3.13: _Py_DebugOffsets -------------------------------------------------------- */

/* CPython 3.13's table, as its Include/internal/pycore_runtime.h declares it, up to the last
 * group this reader uses (every field a uint64_t offset or size). */
struct debug_offsets_313 {
    char cookie[8];
    uint64_t version, free_threaded;
    struct { uint64_t size, finalizing, interpreters_head; } runtime_state;
    struct {
        uint64_t size, id, next, threads_head, gc, imports_modules, sysdict, builtins, ceval_gil,
            gil_runtime_state, gil_runtime_state_enabled, gil_runtime_state_locked,
            gil_runtime_state_holder;
    } interpreter_state;
    struct {
        uint64_t size, prev, next, interp, current_frame, thread_id, native_thread_id,
            datastack_chunk, status;
    } thread_state;
    struct { uint64_t size, previous, executable, instr_ptr, localsplus, owner; } interpreter_frame;
    struct {
        uint64_t size, filename, name, qualname, linetable, firstlineno, argcount,
            localsplusnames, localspluskinds, co_code_adaptive;
    } code_object;
    struct { uint64_t size, ob_type; } pyobject;
    struct { uint64_t size, tp_name, tp_repr, tp_flags; } type_object;
    struct { uint64_t size, ob_item, ob_size; } tuple_object, list_object;
    struct { uint64_t size, ma_keys, ma_values; } dict_object;
    struct { uint64_t size, ob_fval; } float_object;
    struct { uint64_t size, lv_tag, ob_digit; } long_object;
    struct { uint64_t size, ob_size, ob_sval; } bytes_object;
    struct { uint64_t size, state, length, asciiobject_size; } unicode_object;
};
_Static_assert(sizeof(struct debug_offsets_313) == 71 * 8, "3.13's table: 71 words up to unicode");

static void layout_from_table(const struct debug_offsets_313 *t, struct ssc_pyr_layout *l)
{
    l->interp_threads_head = (uint32_t)t->interpreter_state.threads_head;
    l->ts_next = (uint32_t)t->thread_state.next;
    l->ts_frame = (uint32_t)t->thread_state.current_frame;
    l->ts_native_tid = (uint32_t)t->thread_state.native_thread_id;
    l->if_previous = (uint32_t)t->interpreter_frame.previous;
    l->if_code = (uint32_t)t->interpreter_frame.executable;
    l->if_instr = (uint32_t)t->interpreter_frame.instr_ptr;
    l->co_filename = (uint32_t)t->code_object.filename;
    l->co_qualname = (uint32_t)t->code_object.qualname;
    l->co_linetable = (uint32_t)t->code_object.linetable;
    l->co_firstlineno = (uint32_t)t->code_object.firstlineno;
    l->co_code_start = (uint32_t)t->code_object.co_code_adaptive;
    l->bytes_data = (uint32_t)t->bytes_object.ob_sval;
    l->str_ascii_data = (uint32_t)t->unicode_object.asciiobject_size;
    /* PyCompactUnicodeObject = PyASCIIObject + utf8_length + utf8 (public header) */
    l->str_compact_data = l->str_ascii_data + 16;
    l->code_tag_mask = TAG_MASK;
}

int ssc_pyl_from_debug_offsets(uint64_t runtime, const struct ssc_pyl_anchors *a,
                               const struct ssc_pyr_mem *m, struct ssc_pyr_layout *out,
                               const char **why)
{
    struct debug_offsets_313 t;
    struct ssc_pyr_layout l = {0};
    if (!runtime || m->read(m->ctx, runtime, &t, sizeof t) != 0 || memcmp(t.cookie, "xdebugpy", 8))
        return fail(why, "no _Py_DebugOffsets in _PyRuntime");
    if ((t.version >> 16) != 0x030d)
        return fail(why, "_Py_DebugOffsets of a version other than 3.13");
    layout_from_table(&t, &l);
    l.code_type = a->code_type;
    uint64_t iframes[SSC_PYL_FRAMES];
    uint32_t fobj_off;
    if (learn_frame_link(a, m, &fobj_off, &l)) return fail(why, "no frame object -> frame link");
    for (int i = 0; i < a->n_frames; i++)
        iframes[i] = iframe_of(m, a->frames[i].frame_obj, fobj_off);
    int64_t d1, d2;
    if (!instr_candidate(m, iframes[1], &a->frames[1], a->frames[1].code + l.co_code_start,
                         l.if_instr, &d1) ||
        !instr_candidate(m, iframes[2], &a->frames[2], a->frames[2].code + l.co_code_start,
                         l.if_instr, &d2) || d1 != d2)
        return fail(why, "_Py_DebugOffsets' instruction pointer does not match f_lasti");
    l.instr_delta = d1;
    if (learn_skips(a, m, &l, iframes[0]) != 0 || check_walk(a, m, &l, a->ts, why) != 0) return -1;
    *out = l;
    return 0;
}
