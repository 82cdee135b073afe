/*
 * ssi_kineto_parse.c — the reader's callbacks for a Kineto trace: where in the document the parser
 * is (a stack of frames), and the fields of the event being read.
 *
 * The document is {"deviceProperties": [...], "baseTimeNanoseconds": N, "distributedInfo":
 * {...}, "traceEvents": [{event}, ...], ...}. Each event object is filled into one struct
 * ki_event and handed to the emitter when it closes; members the importer does not read are
 * skipped whatever their type, so memory never depends on the document. Numbers arrive as
 * their text (ki_cb_number), so timestamps are converted exactly. A member of an
 * event with the wrong JSON type or an absurd value is marked bad (ki_event.bad) and stops the
 * import only if the event is one the importer converts and needs that member (the emitter
 * decides); elsewhere in the document a wrong type stops it at once. A callback returning 0
 * stops the reader (the driver then reports p->msg).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ssi_kineto_internal.h"
#include "util/ss_error.h"

/* The members read, per frame. 0 is "not read". */
enum ki_key {
    K_NONE = 0,
    /* document */
    K_EVENTS,
    K_DEVPROPS,
    K_DIST,
    K_BASE,
    K_DRIVER_VER,
    K_RUNTIME_VER,
    K_CUPTI_VER,
    /* event */
    K_PH,
    K_CAT,
    K_NAME,
    K_PID,
    K_TID,
    K_TS,
    K_DUR,
    K_ARGS,
    /* args */
    K_DEVICE,
    K_STREAM,
    K_CORR,
    K_BYTES,
    K_REGS,
    K_SHMEM,
    K_CBID,
    K_GRID,
    K_BLOCK,
    K_EVENT_ID,
    K_ARG_NAME,
    K_FROM_DEV,
    K_TO_DEV,
    K_IN_DEV,
    /* deviceProperties entry */
    K_DEV_ID,
    K_DEV_NAME,
    K_DEV_MEM,
    K_DEV_MAJOR,
    K_DEV_MINOR,
    K_DEV_SMS,
    /* distributedInfo */
    K_RANK,
    K_WORLD,
};

struct key_row {
    uint8_t frame;
    uint8_t key;
    const char *text;
    size_t len;
};
#define ROW(frame, key, lit)                                                                       \
    {                                                                                              \
        frame, key, lit, sizeof(lit) - 1                                                           \
    }

static const struct key_row key_rows[] = {
    ROW(KFR_TOP, K_EVENTS, "traceEvents"),
    ROW(KFR_TOP, K_DEVPROPS, "deviceProperties"),
    ROW(KFR_TOP, K_DIST, "distributedInfo"),
    ROW(KFR_TOP, K_BASE, "baseTimeNanoseconds"),
    ROW(KFR_TOP, K_DRIVER_VER, "cuda_driver_version"),
    ROW(KFR_TOP, K_RUNTIME_VER, "cuda_runtime_version"),
    ROW(KFR_TOP, K_CUPTI_VER, "cupti_version"),
    ROW(KFR_EVENT, K_PH, "ph"),
    ROW(KFR_EVENT, K_CAT, "cat"),
    ROW(KFR_EVENT, K_NAME, "name"),
    ROW(KFR_EVENT, K_PID, "pid"),
    ROW(KFR_EVENT, K_TID, "tid"),
    ROW(KFR_EVENT, K_TS, "ts"),
    ROW(KFR_EVENT, K_DUR, "dur"),
    ROW(KFR_EVENT, K_ARGS, "args"),
    ROW(KFR_ARGS, K_DEVICE, "device"),
    ROW(KFR_ARGS, K_STREAM, "stream"),
    ROW(KFR_ARGS, K_CORR, "correlation"),
    ROW(KFR_ARGS, K_BYTES, "bytes"),
    ROW(KFR_ARGS, K_REGS, "registers per thread"),
    ROW(KFR_ARGS, K_SHMEM, "shared memory"),
    ROW(KFR_ARGS, K_CBID, "cbid"),
    ROW(KFR_ARGS, K_GRID, "grid"),
    ROW(KFR_ARGS, K_BLOCK, "block"),
    ROW(KFR_ARGS, K_EVENT_ID, "wait_on_cuda_event_id"),
    ROW(KFR_ARGS, K_ARG_NAME, "name"),
    ROW(KFR_ARGS, K_FROM_DEV, "fromDevice"),
    ROW(KFR_ARGS, K_TO_DEV, "toDevice"),
    ROW(KFR_ARGS, K_IN_DEV, "inDevice"),
    ROW(KFR_DEV, K_DEV_ID, "id"),
    ROW(KFR_DEV, K_DEV_NAME, "name"),
    ROW(KFR_DEV, K_DEV_MEM, "totalGlobalMem"),
    ROW(KFR_DEV, K_DEV_MAJOR, "computeMajor"),
    ROW(KFR_DEV, K_DEV_MINOR, "computeMinor"),
    ROW(KFR_DEV, K_DEV_SMS, "numSms"),
    ROW(KFR_DIST, K_RANK, "rank"),
    ROW(KFR_DIST, K_WORLD, "world_size"),
};

#define N_KEY_ROWS (sizeof key_rows / sizeof key_rows[0])

/* The first 8 bytes of a name (fewer: zeros after), as one word. */
static uint64_t head_word(const unsigned char *s, size_t n)
{
    uint64_t w = 0;
    memcpy(&w, s, n < 8 ? n : 8);
    return w;
}

/* head_word of a name in the reader's buffer, which has bytes to spare after every string
 * (KI_LEX_PAD): one load and a mask, where the copy of n bytes stalled on the load after it
 * (a store-forwarding miss, a fifth of the import's time). */
static uint64_t head_word_padded(const unsigned char *s, size_t n)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t w;
    memcpy(&w, s, 8);
    return n >= 8 ? w : w & ((UINT64_C(1) << (8 * n)) - 1);
#else
    return head_word(s, n);
#endif
}

/* Every member name of every event goes through here (~10 per event): a small open-addressed
 * table, hashed from the name's first word, its length and the frame, holds each row's first
 * word, frame, length and key, so that one load after the hash settles almost every name.
 * Built in the parser when its first key comes. */
static unsigned key_hash(uint8_t frame, uint64_t head, size_t n)
{
    uint64_t h = (head + (uint64_t)n * 0x100000001b3ull + frame) * 0x9e3779b97f4a7c15ull;
    return (unsigned)(h >> 56) & (KI_KEY_SLOTS - 1);
}

static void build_key_slots(struct ki_parser *p)
{
    for (size_t i = 0; i < N_KEY_ROWS; i++) {
        const struct key_row *k = &key_rows[i];
        uint64_t head = head_word((const unsigned char *)k->text, k->len);
        unsigned h = key_hash(k->frame, head, k->len);
        while (p->key_slot[h].row)
            h = (h + 1) & (KI_KEY_SLOTS - 1);
        p->key_slot[h] = (struct ki_key_slot){head, (uint8_t)(i + 1), k->frame, (uint8_t)k->len,
                                              k->key};
    }
    p->key_slot_built = 1;
}

/* The row of member name s[0..n) (in the reader's buffer) in this frame, its K_ key; K_NONE
 * when not read. */
static uint8_t key_of(struct ki_parser *p, uint8_t frame, const unsigned char *s, size_t n)
{
    if (n == 0) return K_NONE;
    if (!p->key_slot_built) build_key_slots(p);
    uint64_t head = head_word_padded(s, n);
    for (unsigned h = key_hash(frame, head, n); p->key_slot[h].row;
         h = (h + 1) & (KI_KEY_SLOTS - 1)) {
        const struct ki_key_slot *k = &p->key_slot[h];
        if (k->head == head && k->frame == frame && k->len == n &&
            (n <= 8 || memcmp(key_rows[k->row - 1].text + 8, s + 8, n - 8) == 0))
            return k->key;
    }
    return K_NONE;
}

static const char *key_text(uint8_t key)
{
    for (size_t i = 0; i < N_KEY_ROWS; i++)
        if (key_rows[i].key == key) return key_rows[i].text;
    return "?";
}

/* ---- errors ---- */

static int fail(struct ki_parser *p, int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(struct ki_parser *p, int err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->msg, sizeof p->msg, fmt, ap);
    va_end(ap);
    p->err = err;
    return 0; /* stops the reader */
}

enum jtype { J_NUMBER, J_STRING, J_BOOL, J_NULL, J_OBJECT, J_ARRAY };

static const char *jtype_name(enum jtype t)
{
    static const char *const names[] = {"a number", "a string",  "a boolean",
                                        "null",     "an object", "an array"};
    return names[t];
}

static uint8_t cur_frame(const struct ki_parser *p)
{
    return p->depth > 0 ? p->frame[p->depth - 1] : KFR_SKIP;
}

static uint8_t cur_key(const struct ki_parser *p)
{
    return p->depth > 0 ? p->key[p->depth - 1] : K_NONE;
}

/* What a member should be, for messages. */
static const char *want_of(uint8_t key)
{
    switch (key) {
    case K_EVENTS:
    case K_DEVPROPS:
    case K_GRID:
    case K_BLOCK:
        return "an array";
    case K_DIST:
    case K_ARGS:
        return "an object";
    case K_PH:
    case K_CAT:
    case K_NAME:
    case K_ARG_NAME:
    case K_DEV_NAME:
        return "a string";
    case K_PID:
    case K_TID:
    case K_DRIVER_VER:
    case K_RUNTIME_VER:
    case K_CUPTI_VER:
        return "a number or a string";
    default:
        return "a number";
    }
}

/* The field bit of an event member (0: not an event member). */
static uint32_t field_bit(uint8_t key)
{
    static const struct {
        uint8_t key;
        uint32_t bit;
    } bits[] = {{K_PH, KF_PH},
                {K_CAT, KF_CAT},
                {K_NAME, KF_NAME},
                {K_PID, KF_PID},
                {K_TID, KF_TID},
                {K_TS, KF_TS},
                {K_DUR, KF_DUR},
                {K_DEVICE, KF_DEVICE},
                {K_IN_DEV, KF_DEVICE},
                {K_STREAM, KF_STREAM},
                {K_CORR, KF_CORR},
                {K_BYTES, KF_BYTES},
                {K_REGS, KF_REGS},
                {K_SHMEM, KF_SHMEM},
                {K_CBID, KF_CBID},
                {K_GRID, KF_GRID},
                {K_BLOCK, KF_BLOCK},
                {K_EVENT_ID, KF_EVENT_ID},
                {K_ARG_NAME, KF_ARG_NAME},
                {K_FROM_DEV, KF_SRC_DEV},
                {K_TO_DEV, KF_DST_DEV},
                {K_ARGS, KF_ARGS}};
    for (size_t i = 0; i < sizeof bits / sizeof bits[0]; i++)
        if (bits[i].key == key) return bits[i].bit;
    return 0;
}

/* A member of the current event is unusable: remembered, judged by the emitter. */
static int bad_field(struct ki_parser *p, uint8_t key, const char *what)
{
    struct ki_event *e = &p->ev;
    if (!e->bad) {
        snprintf(p->bad_msg, sizeof p->bad_msg, "traceEvents[%llu]: \"%s%s\" is %s",
                 (unsigned long long)e->index,
                 key == K_ARGS || p->depth < 2 || cur_frame(p) == KFR_EVENT ? "" : "args.",
                 key_text(key), what);
        e->bad_msg = p->bad_msg;
    }
    e->bad |= field_bit(key);
    return 1;
}

/* A member the importer reads has the wrong JSON type. Inside an event: bad_field. */
static int type_error(struct ki_parser *p, uint8_t frame, uint8_t key, enum jtype got)
{
    char what[64];
    snprintf(what, sizeof what, "%s, not %s", jtype_name(got), want_of(key));
    if (frame == KFR_EVENT || frame == KFR_ARGS || frame == KFR_DIMS)
        return bad_field(p, key, what);
    return fail(p, SS_EINVAL, "%s\"%s\" is %s", frame == KFR_DEV ? "deviceProperties: " : "",
                key_text(key), what);
}

static int absurd(struct ki_parser *p, uint8_t key)
{
    return bad_field(p, key, "out of range");
}

/* ---- the stack ---- */

static int push(struct ki_parser *p, uint8_t frame)
{
    if (p->depth >= KI_MAX_DEPTH)
        return fail(p, SS_ETOOBIG, "JSON nested deeper than %d levels", KI_MAX_DEPTH);
    p->frame[p->depth] = frame;
    p->key[p->depth] = K_NONE;
    p->depth++;
    return 1;
}

/* The frame an object opening here starts; KFR_SKIP when it is not read. */
static int object_frame(struct ki_parser *p, uint8_t *out)
{
    uint8_t f = cur_frame(p), k = cur_key(p);
    *out = KFR_SKIP;
    if (p->depth == 0)
        *out = KFR_TOP;
    else if (f == KFR_EVENTS)
        *out = KFR_EVENT;
    else if (f == KFR_DEVPROPS)
        *out = KFR_DEV;
    else if (f == KFR_EVENT && k == K_ARGS)
        *out = KFR_ARGS;
    else if (f == KFR_TOP && k == K_DIST)
        *out = KFR_DIST;
    else if (f == KFR_DIMS)
        return type_error(p, f, p->key[p->depth - 2], J_OBJECT);
    else if (f != KFR_SKIP && f != KFR_DEVPROPS && k != K_NONE)
        return type_error(p, f, k, J_OBJECT);
    return 1;
}

int ki_cb_start_map(struct ki_parser *p)
{
    uint8_t f;
    if (!object_frame(p, &f)) return 0;
    if (f == KFR_EVENT) {
        memset(&p->ev, 0, sizeof p->ev);
        p->ev.index = p->n_events++;
    } else if (f == KFR_DEV) {
        memset(&p->dev, 0, sizeof p->dev);
        p->dev.id = -1;
    }
    return push(p, f);
}

/* The frame an array opening here starts. */
static int array_frame(struct ki_parser *p, uint8_t *out)
{
    uint8_t f = cur_frame(p), k = cur_key(p);
    *out = KFR_SKIP;
    if (p->depth == 0)
        return fail(p, SS_EINVAL,
                    "the document is a JSON array, not a torch.profiler trace object");
    if (f == KFR_TOP && k == K_EVENTS)
        *out = KFR_EVENTS, p->seen_events = 1;
    else if (f == KFR_TOP && k == K_DEVPROPS)
        *out = KFR_DEVPROPS;
    else if (f == KFR_ARGS && (k == K_GRID || k == K_BLOCK))
        *out = KFR_DIMS, p->dim = 0;
    else if (f == KFR_EVENTS)
        return fail(p, SS_EINVAL, "traceEvents[%llu] is an array, not an event object",
                    (unsigned long long)p->n_events);
    else if (f == KFR_DIMS)
        return type_error(p, f, p->key[p->depth - 2], J_ARRAY);
    else if (f != KFR_SKIP && f != KFR_DEVPROPS && k != K_NONE)
        return type_error(p, f, k, J_ARRAY);
    return 1;
}

int ki_cb_start_array(struct ki_parser *p)
{
    uint8_t f;
    return array_frame(p, &f) ? push(p, f) : 0;
}

int ki_cb_map_key(struct ki_parser *p, const unsigned char *s, size_t n)
{
    uint8_t f = cur_frame(p);
    if (p->depth > 0) p->key[p->depth - 1] = f == KFR_SKIP ? K_NONE : key_of(p, f, s, n);
    return 1;
}

int ki_cb_end_map(struct ki_parser *p)
{
    uint8_t f = cur_frame(p);
    p->depth--;
    if (f == KFR_EVENT) {
        int rc = ki_emit_event(p->out, &p->ev, p->msg, sizeof p->msg);
        if (rc) return p->err = rc, 0;
    } else if (f == KFR_DEV) {
        int rc = ki_add_device(p->out, &p->dev);
        if (rc) return fail(p, rc, "cannot write a device record: %s", ss_strerror(rc));
    }
    return 1;
}

int ki_cb_end_array(struct ki_parser *p)
{
    p->depth--;
    return 1;
}

/* ---- scalars ---- */

/* Copies a string value into buf (cap bytes, at most cap - 1 kept); returns the length. */
static size_t keep_text(char *buf, size_t cap, const unsigned char *s, size_t n)
{
    size_t k = n < cap - 1 ? n : cap - 1;
    memcpy(buf, s, k);
    buf[k] = '\0';
    return k;
}

/* pid and tid: numbers, or strings ("Spans", "stream 7") that may hold a number. */
static void id_value(int64_t *v, uint8_t *is_num, enum jtype t, const char *s, size_t n)
{
    *is_num = 0;
    if (n == 0 || n > 20) return;
    if (t == J_STRING)
        for (size_t i = 0; i < n; i++)
            if ((s[i] < '0' || s[i] > '9') && !(i == 0 && s[i] == '-')) return;
    *is_num = ki_parse_scaled(s, n, 0, v) == 0;
}

static int event_string(struct ki_parser *p, uint8_t k, const unsigned char *s, size_t n)
{
    struct ki_event *e = &p->ev;
    switch (k) {
    case K_PH:
        e->ph = n == 1 ? (char)s[0] : '?';
        e->have |= KF_PH;
        return 1;
    case K_CAT:
        e->cat = (uint8_t)ki_cat_of((const char *)s, n);
        e->have |= KF_CAT;
        return 1;
    case K_NAME:
        e->name_len = keep_text(p->name_buf, sizeof p->name_buf, s, n);
        e->name = p->name_buf;
        e->have |= KF_NAME;
        return 1;
    case K_PID:
        id_value(&e->pid, &e->pid_num, J_STRING, (const char *)s, n);
        e->have |= KF_PID;
        return 1;
    case K_TID:
        id_value(&e->tid, &e->tid_num, J_STRING, (const char *)s, n);
        e->have |= KF_TID;
        return 1;
    default:
        return type_error(p, KFR_EVENT, k, J_STRING);
    }
}

static int event_number(struct ki_parser *p, uint8_t k, const char *s, size_t n)
{
    struct ki_event *e = &p->ev;
    switch (k) {
    case K_PID:
        id_value(&e->pid, &e->pid_num, J_NUMBER, s, n);
        e->have |= KF_PID;
        return 1;
    case K_TID:
        id_value(&e->tid, &e->tid_num, J_NUMBER, s, n);
        e->have |= KF_TID;
        return 1;
    case K_TS:
    case K_DUR: { /* microseconds with ns decimals: exactly */
        int64_t *dst = k == K_TS ? &e->ts : &e->dur;
        if (ki_parse_scaled(s, n, 3, dst) != 0) return absurd(p, k);
        e->have |= k == K_TS ? KF_TS : KF_DUR;
        return 1;
    }
    default:
        return type_error(p, KFR_EVENT, k, J_NUMBER);
    }
}

/* Where each integer member of args goes, and its field bit. */
static int64_t *args_slot(struct ki_event *e, uint8_t k, uint32_t *bit)
{
    switch (k) {
    case K_DEVICE:
        return *bit = KF_DEVICE, &e->device;
    case K_IN_DEV:
        return *bit = KF_DEVICE, &e->device;
    case K_STREAM:
        return *bit = KF_STREAM, &e->stream;
    case K_CORR:
        return *bit = KF_CORR, &e->corr;
    case K_BYTES:
        return *bit = KF_BYTES, &e->bytes;
    case K_REGS:
        return *bit = KF_REGS, &e->regs;
    case K_SHMEM:
        return *bit = KF_SHMEM, &e->shmem;
    case K_CBID:
        return *bit = KF_CBID, &e->cbid;
    case K_EVENT_ID:
        return *bit = KF_EVENT_ID, &e->event_id;
    case K_FROM_DEV:
        return *bit = KF_SRC_DEV, &e->src_dev;
    case K_TO_DEV:
        return *bit = KF_DST_DEV, &e->dst_dev;
    default:
        return NULL;
    }
}

static int args_number(struct ki_parser *p, uint8_t k, const char *s, size_t n)
{
    uint32_t bit = 0;
    int64_t *dst = args_slot(&p->ev, k, &bit);
    if (!dst) return type_error(p, KFR_ARGS, k, J_NUMBER);
    if (ki_parse_scaled(s, n, 0, dst) != 0) return absurd(p, k);
    p->ev.have |= bit;
    return 1;
}

static int dims_number(struct ki_parser *p, const char *s, size_t n)
{
    uint8_t k = p->depth >= 2 ? p->key[p->depth - 2] : K_GRID; /* args' member: grid/block */
    int64_t *dims = k == K_GRID ? p->ev.grid : p->ev.block;
    if (p->dim < 3 && ki_parse_scaled(s, n, 0, &dims[p->dim]) != 0) return absurd(p, k);
    p->dim++;
    p->ev.have |= k == K_GRID ? KF_GRID : KF_BLOCK;
    return 1;
}

static int dev_number(struct ki_parser *p, uint8_t k, const char *s, size_t n)
{
    struct ki_device *d = &p->dev;
    int64_t *dst = k == K_DEV_ID      ? &d->id
                   : k == K_DEV_MEM   ? &d->total_mem
                   : k == K_DEV_MAJOR ? &d->cc_major
                   : k == K_DEV_MINOR ? &d->cc_minor
                   : k == K_DEV_SMS   ? &d->sms
                                      : NULL;
    if (!dst) return type_error(p, KFR_DEV, k, J_NUMBER);
    if (ki_parse_scaled(s, n, 0, dst) != 0)
        return fail(p, SS_EINVAL, "deviceProperties: \"%s\" is out of range", key_text(k));
    return 1;
}

/* Top-level members: the time base, versions (numbers or strings: kept as text). */
static int top_value(struct ki_parser *p, uint8_t k, enum jtype t, const char *s, size_t n)
{
    struct ki_out *o = p->out;
    if (k == K_BASE) {
        if (t != J_NUMBER) return type_error(p, KFR_TOP, k, t);
        int64_t v;
        if (ki_parse_scaled(s, n, 0, &v) != 0 || v < 0)
            return fail(p, SS_EINVAL, "\"baseTimeNanoseconds\" is out of range");
        if (o->w)
            o->base_late = 1; /* events already written relative to 0: keep them so */
        else
            o->base_ns = v, o->have_base = 1;
        return 1;
    }
    char *dst = k == K_DRIVER_VER    ? o->driver_ver
                : k == K_RUNTIME_VER ? o->runtime_ver
                : k == K_CUPTI_VER   ? o->cupti_ver
                                     : NULL;
    if (dst && (t == J_NUMBER || t == J_STRING))
        keep_text(dst, KI_VALUE_MAX, (const unsigned char *)s, n);
    else if (k == K_EVENTS || k == K_DEVPROPS || k == K_DIST || dst)
        return type_error(p, KFR_TOP, k, t);
    return 1;
}

static int dist_number(struct ki_parser *p, uint8_t k, const char *s, size_t n)
{
    int64_t v;
    if (ki_parse_scaled(s, n, 0, &v) != 0 || v < -1 || v > INT32_MAX) return 1; /* informative */
    if (k == K_RANK) p->out->rank = (int32_t)v;
    if (k == K_WORLD) p->out->world_size = (int32_t)v;
    return 1;
}

/* One scalar value of type t (s/n: its text for numbers and strings). */
static int on_scalar(struct ki_parser *p, enum jtype t, const char *s, size_t n)
{
    uint8_t f = cur_frame(p), k = cur_key(p);
    if (p->depth == 0)
        return fail(p, SS_EINVAL, "the document is %s, not a torch.profiler trace object",
                    jtype_name(t));
    if (f == KFR_EVENTS)
        return fail(p, SS_EINVAL, "traceEvents[%llu] is %s, not an event object",
                    (unsigned long long)p->n_events++, jtype_name(t));
    if (f == KFR_DIMS)
        return t == J_NUMBER ? dims_number(p, s, n) : type_error(p, f, p->key[p->depth - 2], t);
    if (f == KFR_SKIP || f == KFR_DEVPROPS || k == K_NONE) return 1;
    if (f == KFR_TOP) return top_value(p, k, t, s, n);
    if (f == KFR_EVENT && t == J_STRING) return event_string(p, k, (const unsigned char *)s, n);
    if (f == KFR_EVENT && t == J_NUMBER) return event_number(p, k, s, n);
    if (f == KFR_ARGS && k == K_ARG_NAME && t == J_STRING) {
        p->ev.arg_name_len =
            keep_text(p->arg_name_buf, sizeof p->arg_name_buf, (const unsigned char *)s, n);
        p->ev.arg_name = p->arg_name_buf;
        p->ev.have |= KF_ARG_NAME;
        return 1;
    }
    if (f == KFR_ARGS && t == J_NUMBER) return args_number(p, k, s, n);
    if (f == KFR_DEV && k == K_DEV_NAME && t == J_STRING)
        return keep_text(p->dev.name, sizeof p->dev.name, (const unsigned char *)s, n), 1;
    if (f == KFR_DEV && t == J_NUMBER) return dev_number(p, k, s, n);
    if (f == KFR_DIST && t == J_NUMBER) return dist_number(p, k, s, n);
    if (f == KFR_DIST) return 1;
    return type_error(p, f, k, t);
}

int ki_cb_null(struct ki_parser *p)
{
    return on_scalar(p, J_NULL, "", 0);
}

int ki_cb_boolean(struct ki_parser *p, int v)
{
    (void)v;
    return on_scalar(p, J_BOOL, "", 0);
}

int ki_cb_number(struct ki_parser *p, const char *s, size_t n)
{
    return on_scalar(p, J_NUMBER, s, n);
}

int ki_cb_string(struct ki_parser *p, const unsigned char *s, size_t n)
{
    return on_scalar(p, J_STRING, (const char *)s, n);
}
